"""Graph use cases: facts with their entities, predicates and evidence in the note's transaction (facts.py), the
admin's predicate changes (predicate_admin.py) and the public fact reads (fact_reads.py)."""
