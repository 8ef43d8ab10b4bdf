"""Loader and validator of retrieval datasets in the ``locomo_retrieval/v1`` format.

The format is described in shared/benchmarks/locomo/README.md: conversations holding memory ``items``
(dialogue turns, each with a globally unique ``item_id``) and ``queries`` (each with the
``expected_item_ids`` of that conversation that answer it, a numeric ``category`` and its
``category_name``). Only the fields elf-eval uses are required; everything else is kept as is.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

FORMAT = "locomo_retrieval/v1"


class DatasetError(ValueError):
    """The file is not a valid locomo_retrieval/v1 dataset; the message names the JSONPath."""


@dataclass(frozen=True)
class Item:
    item_id: str
    text: str
    speaker: str | None
    session: int | None = None  # items of one session are neighbours (a note's context, bench.eval_notes)
    observed_at: str | None = None  # the session's time, ISO 8601 (``session_date``; a note's observed_at)


@dataclass(frozen=True)
class Query:
    query_id: str
    text: str
    expected_item_ids: tuple[str, ...]
    category: int
    category_name: str


@dataclass(frozen=True)
class Conversation:
    conversation_id: str
    items: tuple[Item, ...]
    queries: tuple[Query, ...]


@dataclass(frozen=True)
class Dataset:
    path: str
    sha256: str
    source: dict
    conversations: tuple[Conversation, ...]

    @property
    def item_count(self) -> int:
        return sum(len(c.items) for c in self.conversations)

    @property
    def query_count(self) -> int:
        return sum(len(c.queries) for c in self.conversations)


def _str(obj: dict, name: str, at: str) -> str:
    value = obj.get(name) if isinstance(obj, dict) else None
    if not isinstance(value, str) or not value.strip():
        raise DatasetError(f"{at}.{name} must be a non-empty string")
    return value


def _list(obj: dict, name: str, at: str) -> list:
    value = obj.get(name)
    if not isinstance(value, list):
        raise DatasetError(f"{at}.{name} must be a list")
    return value


def _item(raw: dict, at: str) -> Item:
    speaker = raw.get("speaker")
    if speaker is not None and not isinstance(speaker, str):
        raise DatasetError(f"{at}.speaker must be a string when present")
    session = raw.get("session")
    if session is not None and (not isinstance(session, int) or isinstance(session, bool)):
        raise DatasetError(f"{at}.session must be an integer when present")
    observed_at = raw.get("session_date")
    if observed_at is not None and not isinstance(observed_at, str):
        raise DatasetError(f"{at}.session_date must be a string when present")
    return Item(item_id=_str(raw, "item_id", at), text=_str(raw, "text", at), speaker=speaker, session=session,
                observed_at=observed_at)


def _query(raw: dict, at: str, item_ids: set[str], category_names: dict[str, str]) -> Query:
    expected = _list(raw, "expected_item_ids", at)
    if not expected:
        raise DatasetError(f"{at}.expected_item_ids must not be empty")
    for j, item_id in enumerate(expected):
        if item_id not in item_ids:
            raise DatasetError(f"{at}.expected_item_ids[{j}] {item_id!r} is not an item of this conversation")
    category = raw.get("category")
    if not isinstance(category, int) or isinstance(category, bool):
        raise DatasetError(f"{at}.category must be an integer")
    name = raw.get("category_name", category_names.get(str(category)))
    if not isinstance(name, str) or not name:
        raise DatasetError(f"{at}.category_name must be a non-empty string (or category_names must name it)")
    return Query(query_id=_str(raw, "query_id", at), text=_str(raw, "text", at),
                 expected_item_ids=tuple(dict.fromkeys(expected)), category=category, category_name=name)


def _conversation(raw: dict, at: str, seen_items: set[str], seen_queries: set[str],
                  category_names: dict[str, str]) -> Conversation:
    if not isinstance(raw, dict):
        raise DatasetError(f"{at} must be an object")
    items = []
    for i, r in enumerate(_list(raw, "items", at)):
        item = _item(r, f"{at}.items[{i}]")
        if item.item_id in seen_items:
            raise DatasetError(f"{at}.items[{i}].item_id {item.item_id!r} is not unique")
        seen_items.add(item.item_id)
        items.append(item)
    own = {i.item_id for i in items}
    queries = []
    for i, r in enumerate(_list(raw, "queries", at)):
        q = _query(r, f"{at}.queries[{i}]", own, category_names)
        if q.query_id in seen_queries:
            raise DatasetError(f"{at}.queries[{i}].query_id {q.query_id!r} is not unique")
        seen_queries.add(q.query_id)
        queries.append(q)
    return Conversation(conversation_id=_str(raw, "conversation_id", at), items=tuple(items), queries=tuple(queries))


def parse_dataset(raw: bytes, path: str = "<memory>") -> Dataset:
    """Parse and validate a dataset's bytes; raises DatasetError naming the first problem."""
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"$ is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise DatasetError(f'$.format must be "{FORMAT}"')
    names = data.get("category_names") or {}
    if not isinstance(names, dict):
        raise DatasetError("$.category_names must be an object")
    seen_items: set[str] = set()
    seen_queries: set[str] = set()
    conversations = []
    ids: set[str] = set()
    for i, raw_conv in enumerate(_list(data, "conversations", "$")):
        conv = _conversation(raw_conv, f"$.conversations[{i}]", seen_items, seen_queries, names)
        if conv.conversation_id in ids:
            raise DatasetError(f"$.conversations[{i}].conversation_id {conv.conversation_id!r} is not unique")
        ids.add(conv.conversation_id)
        conversations.append(conv)
    if not conversations:
        raise DatasetError("$.conversations must not be empty")
    source = data.get("source") if isinstance(data.get("source"), dict) else {}
    return Dataset(path=path, sha256=hashlib.sha256(raw).hexdigest(), source=source,
                   conversations=tuple(conversations))


def load_dataset(path: str | Path) -> Dataset:
    """Read and validate a locomo_retrieval/v1 file."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise DatasetError(f"cannot read {p}: {exc.strerror}") from None
    return parse_dataset(raw, str(p))


def limited(ds: Dataset, *, conversations: int | None, queries: int | None) -> Dataset:
    """The first ``conversations`` conversations, each with its first ``queries`` queries (None: all)."""
    convs = ds.conversations[:conversations] if conversations else ds.conversations
    if queries:
        convs = tuple(Conversation(c.conversation_id, c.items, c.queries[:queries]) for c in convs)
    return Dataset(path=ds.path, sha256=ds.sha256, source=ds.source, conversations=tuple(convs))
