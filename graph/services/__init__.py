"""Graph writes: facts with their entities, predicates and evidence in the note's transaction (facts.py),
and the admin's predicate changes (predicate_admin.py)."""
