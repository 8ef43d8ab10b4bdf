"""elf-eval's quality protocol (issue 32), pure: which conversations are the dev split and which the test split,
and the metrics of each.

LoCoMo's conversations 1-5 (in file order: conv-26, -30, -41, -42, -43) are the dev split, where levers are
tuned; conversations 6-10 are the test split, reported beside it and never read query by query while tuning.
A dataset of another size keeps the rule: its first ``DEV_CONVERSATIONS`` conversations are dev, the rest test.
``--split dev`` runs only the dev conversations (a tuning run never searches the test split at all).
"""

from __future__ import annotations

from collections.abc import Sequence

from .eval_dataset import Dataset
from .eval_metrics import by_category, mean_metrics

DEV_CONVERSATIONS = 5
SPLITS = ("dev", "test", "all")


def split_of(conversation_index: int) -> str:
    """``dev`` or ``test`` for the 0-based position of a conversation in its dataset."""
    return "dev" if conversation_index < DEV_CONVERSATIONS else "test"


def conversation_splits(ds: Dataset) -> dict[str, str]:
    """conversation id -> its split."""
    return {c.conversation_id: split_of(i) for i, c in enumerate(ds.conversations)}


def only_split(ds: Dataset, split: str) -> Dataset:
    """``ds`` with only the conversations of ``split`` (``all``: every one)."""
    if split == "all":
        return ds
    convs = tuple(c for i, c in enumerate(ds.conversations) if split_of(i) == split)
    return Dataset(path=ds.path, sha256=ds.sha256, source=ds.source, conversations=convs)


def split_metrics(per_query: Sequence[dict], splits: dict[str, str]) -> dict[str, dict]:
    """Per split present in ``per_query`` (each row has ``conversation_id``, ``category_name``, ``metrics``):
    the query count, the overall means and the means per category."""
    out = {}
    for name in ("dev", "test"):
        rows = [q for q in per_query if splits[q["conversation_id"]] == name]
        if rows:
            metrics = [q["metrics"] for q in rows]
            out[name] = {"queries": len(rows), "overall": mean_metrics(metrics),
                         "by_category": by_category(metrics, [q["category_name"] for q in rows])}
    return out
