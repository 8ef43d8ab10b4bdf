"""Running a single statement as its own transaction where it can be one."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext

from django.db import connection, transaction


def statement_scope() -> AbstractContextManager:
    """Around one statement that may fail without failing its caller: a savepoint when the caller holds a
    transaction (a failed statement must not end it), else nothing, since a statement outside a transaction
    block is its own transaction (no BEGIN and COMMIT round trips)."""
    return transaction.atomic() if connection.in_atomic_block else nullcontext()
