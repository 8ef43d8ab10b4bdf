"""Trace writes: enqueue (search side), persist and the outbox worker, retention (spec v2 section 12)."""
