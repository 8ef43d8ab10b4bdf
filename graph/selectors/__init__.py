"""Graph reads, always scoped: facts under the notes' read rule (facts.py), predicates by scope key
(predicates.py)."""
