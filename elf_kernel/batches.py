"""Walking a large table in key order, one bounded batch at a time (rebuilds, exports)."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import QuerySet


def keyset_batches(qs: QuerySet, key: str, size: int) -> Iterator[list]:
    """``qs`` (ordered by ``key``) in lists of at most ``size`` rows, each batch starting after the last key of
    the one before: no OFFSET, so every batch costs the same however deep the walk is."""
    after = None
    while batch := list((qs if after is None else qs.filter(**{f"{key}__gt": after}))[:size]):
        after = getattr(batch[-1], key)
        yield batch
