"""ElfStore: a LangGraph long-term memory store (``langgraph.store.base.BaseStore``) kept in ELF.

Install with the extra: ``pip install "elf-client[langgraph]"``.

>>> from elf_client import ElfClient
>>> from elf_client.langgraph import ElfStore
>>> store = ElfStore(ElfClient("http://127.0.0.1:8089", tenant_id="t1", project_id="p1", agent_id="a1"))
>>> store.put(("users", "u1", "memories"), "food", {"likes": "spicy ramen"})
>>> store.get(("users", "u1", "memories"), "food").value
{'likes': 'spicy ramen'}
>>> store.search(("users", "u1"), query="what food does the user like?")

How items are kept (one ELF note per item):

* Context. The store acts as its client's (tenant, project, agent): ELF's context headers (or the API key) are
  set once on the client, never taken from the namespace. A namespace is a path *inside* that context, so two
  agents (or two projects) never see each other's items unless they share a scope (below).
* Scope. All items live in one ELF scope, ``scope="agent_private"`` by default (only this agent reads them);
  ``"project_shared"`` (alias ``"team_shared"``) or ``"org_shared"`` share them through ELF's space grants.
  In a shared scope every agent writes its own note for an item; a read returns the newest readable one, and a
  delete removes the caller's own.
* Note. Every item is a note of type ``note_type`` (``"fact"``) whose
  - ``text`` is the value as compact JSON (``json.dumps(value, ensure_ascii=False, separators=(",", ":"))``):
    this is what ELF embeds, searches and shows, and what ``get`` parses back into the dict;
  - ``key`` is ``"lg:" + <6 hex digits per namespace level, up to 16 levels> + "." + <20 hex digits>``, hashes
    of the namespace prefixes and of (namespace, key): a fixed-length, always-valid ELF key (at most 120 of its
    128 characters) under which ELF updates the note in place when the item is put again, and whose leading
    part lets a query search narrow to a namespace prefix inside ELF (a ``contains`` filter on the key);
  - ``source_ref`` is ``{"schema": "elf_client.langgraph/v1", "namespace": [...], "key": "..."}``: the item's
    real namespace and key, checked on every read (so a hash collision can never return another item); a label
    or key with a control character (or a leading ``"``) is kept there as a JSON string literal;
  - ``ttl_days`` is ``ttl_days`` (36500 by default: no practical expiry whatever ``lifecycle.ttl_days`` says for
    the type), ``importance`` and ``confidence`` are the store's (0.5 and 1.0).
* ``get``, ``list_namespaces`` and ``search`` without a query read the store's notes page by page
  (``GET /v2/notes``, newest first, Postgres: consistent at once). One batch reads them at most once between
  two writes. ``search`` with a query is an ELF search (``search_mode``: ``"quick_find"`` by default, or
  ``"planned_search"``) over at most the best 100 notes of the namespace prefix, scored by ELF's
  ``final_score``; the notes are indexed by elf-worker, so an item is found by a query once the worker has
  indexed it (usually well under a second), while ``get`` sees it at once.
* ``filter`` (``{"field": value}``, ``{"field": {"$gt": 1}}``, ``$eq $ne $gt $gte $lt $lte``; dotted paths for
  nested fields) is applied by the store to the parsed values.

Limits (ELF's, enforced by the service; a put that breaks one raises :class:`elf_client.ElfError`: the note's
``reason_code`` as ``error_code`` with ``status`` None when the service refused the note inside its 200 answer,
else the HTTP error):

* ``memory.max_note_chars`` (240 in the shipped config) bounds the JSON text of a value: REJECT_TOO_LONG.
* The English gate: text in a non-Latin script anywhere in the value is a 422 NON_ENGLISH_INPUT for the whole
  request (``ensure_ascii`` is off on purpose, so the gate sees the real text); a long, natural-language value
  that reads as another language may be too. A search query is gated the same way.
* Secrets and PII (keys, tokens, e-mail addresses, card numbers, ...) are REJECT_SECRET.
* The puts of one batch are written together, up to 100 notes a request: when one is refused the others of
  that request are still written, and the batch raises for the first refused one.
* A value must be a JSON object of JSON values; namespace labels are non-empty strings without ``.`` (as for
  every LangGraph store) and, like keys, go into ``source_ref`` (at most 16 KiB of JSON).
* LangGraph's per-item ``index`` argument is ignored: ELF always indexes the whole text. TTLs (``ttl=``) are not
  supported (``supports_ttl = False``): use ``ttl_days`` for the store.
* ``limit`` of a query search is at most 100 (ELF's ``top_k``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    validate_op_namespace,
)

from ._async_client import AsyncElfClient
from ._client import ElfClient
from ._errors import ElfError

SCHEMA = "elf_client.langgraph/v1"
KEY_PREFIX = "lg:"
CHAIN_LEVELS = 16  # namespace levels whose hash is in the note key (6 hex digits each)
MAX_TOP_K = 100
SCOPE_ALIASES = {"team_shared": "project_shared"}
READ_PROFILE_OF = {"agent_private": "private_only", "project_shared": "private_plus_project",
                   "org_shared": "all_scopes"}
ACCEPTED_IGNORES = {"IGNORE_DUPLICATE"}  # the same value again: nothing to change


def _hex(material: Any, size: int) -> str:
    text = json.dumps(material, ensure_ascii=False, separators=(",", ":"))
    return hashlib.blake2b(text.encode("utf-8"), digest_size=size).hexdigest()


def _chain(namespace: tuple[str, ...]) -> str:
    return "".join(_hex(list(namespace[: i + 1]), 3) for i in range(min(len(namespace), CHAIN_LEVELS)))


def note_key(namespace: tuple[str, ...], key: str) -> str:
    """The ELF note key of item (namespace, key)."""
    return f"{KEY_PREFIX}{_chain(namespace)}.{_hex([list(namespace), key], 10)}"


def render(value: Mapping[str, Any]) -> str:
    """The note text of a value: compact JSON, non-ASCII kept as it is."""
    return json.dumps(dict(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def parse(text: str) -> dict[str, Any]:
    """A value back from its note text; text that is no JSON object (e.g. changed by hand) is ``{"text": ...}``."""
    try:
        value = json.loads(text)
    except ValueError:
        return {"text": text}
    return value if isinstance(value, dict) else {"text": text}


def _escaped(label: str) -> str:
    """A namespace label or key as source_ref keeps it: as it is, or, when it holds a control character (which
    ELF's gate refuses in source_ref strings) or starts with a double quote, as a JSON string literal whose
    control characters are escapes (``"alice\\n"``). Other characters are never escaped: the gate sees them."""
    if not (label.startswith('"') or any(unicodedata.category(c) == "Cc" for c in label)):
        return label
    text = json.dumps(label, ensure_ascii=False)
    return "".join(f"\\u{ord(c):04x}" if unicodedata.category(c) == "Cc" else c for c in text)


def _unescaped(text: str) -> str:
    return json.loads(text) if text.startswith('"') else text


def _when(text: str) -> datetime:
    text = text.replace("Z", "+00:00")
    try:
        return datetime.fromisoformat(text)
    except ValueError:  # Python 3.10 reads only 3 or 6 fraction digits
        return datetime.fromisoformat(re.sub(r"\.(\d+)", lambda m: "." + (m.group(1) + "000000")[:6], text, count=1))


def item_of(note: Mapping[str, Any]) -> Item | None:
    """The store item a note holds, None for a note that is not one."""
    ref = note.get("source_ref")
    key = note.get("key") or ""
    if not (isinstance(ref, dict) and ref.get("schema") == SCHEMA and key.startswith(KEY_PREFIX)):
        return None
    namespace, item_key = ref.get("namespace"), ref.get("key")
    if not (isinstance(namespace, list) and all(isinstance(x, str) for x in namespace) and isinstance(item_key, str)):
        return None
    namespace, item_key = [_unescaped(x) for x in namespace], _unescaped(item_key)
    if note_key(tuple(namespace), item_key) != key:
        return None
    return Item(value=parse(note["text"]), key=item_key, namespace=tuple(namespace),
                created_at=_when(note["created_at"]), updated_at=_when(note["updated_at"]))


# --- filters and namespace matching (LangGraph's semantics, applied to parsed values) ------------------------------


_MISSING = object()


def _lookup(value: Any, path: str) -> Any:
    if isinstance(value, Mapping) and path in value:
        return value[path]
    current = value
    for part in path.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return _MISSING
        current = current[part]
    return current


def _same(a: Any, b: Any) -> bool:
    """JSON equality: True is not 1, 1 is 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=False))
    return a == b


def _number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v)


def _operator(value: Any, operator: str, operand: Any) -> bool:
    if operator == "$eq":
        return value is not _MISSING and _same(value, operand)
    if operator == "$ne":
        return value is _MISSING or not _same(value, operand)
    if operator in ("$gt", "$gte", "$lt", "$lte"):
        a: Any
        b: Any
        if isinstance(value, str) and isinstance(operand, str):
            a, b = value, operand
        else:
            x, y = _number(value), _number(operand)
            if x is None or y is None or math.isnan(x) or math.isnan(y):
                return False
            a, b = x, y
        return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[operator]
    raise ValueError(f"Unsupported filter operator: {operator}")


def _matches_value(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping) and wanted and all(isinstance(k, str) and k.startswith("$") for k in wanted):
        return all(_operator(value, op, operand) for op, operand in wanted.items())
    if isinstance(wanted, Mapping):
        return isinstance(value, Mapping) and all(_matches_value(_lookup(value, k), v) for k, v in wanted.items())
    return value is not _MISSING and _same(value, wanted)


def matches_filter(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    return not filter or all(_matches_value(_lookup(value, k), v) for k, v in filter.items())


def matches_condition(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"Unsupported match type: {condition.match_type}")
    return all(p == "*" or n == p for n, p in pairs)


def _under(namespace: tuple[str, ...], prefix: tuple[str, ...]) -> bool:
    return tuple(namespace[: len(prefix)]) == tuple(prefix)


# --- one batch's view of the store --------------------------------------------------------------------------------


@dataclass
class _Entry:
    item: Item
    note_ids: list[str] = field(default_factory=list)  # the caller's own notes of the item (to delete)


@dataclass
class _Snapshot:
    """The store's items as one read of its notes found them."""

    entries: dict[tuple[tuple[str, ...], str], _Entry]

    @classmethod
    def of(cls, notes: Iterable[Mapping[str, Any]], own_agent: str | None) -> _Snapshot:
        entries: dict[tuple[tuple[str, ...], str], _Entry] = {}
        for note in notes:  # newest first: the first note of an item is its value
            item = item_of(note)
            if item is None:
                continue
            entry = entries.setdefault((item.namespace, item.key), _Entry(item))
            if own_agent is None or note.get("agent_id") == own_agent:
                entry.note_ids.append(note["note_id"])
        return cls(entries)

    def get(self, op: GetOp) -> Item | None:
        entry = self.entries.get((tuple(op.namespace), op.key))
        return entry.item if entry else None

    def search(self, op: SearchOp) -> list[SearchItem]:
        found = [e.item for e in self.entries.values()
                 if _under(e.item.namespace, op.namespace_prefix) and matches_filter(e.item.value, op.filter)]
        found.sort(key=lambda it: it.updated_at, reverse=True)
        return [_search_item(it, None) for it in found[op.offset: op.offset + op.limit]]

    def list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        namespaces = {ns for ns, _ in self.entries}
        if op.match_conditions:
            namespaces = {ns for ns in namespaces if all(matches_condition(c, ns) for c in op.match_conditions)}
        if op.max_depth is not None:
            namespaces = {ns[: op.max_depth] for ns in namespaces}
        return sorted(namespaces)[op.offset: op.offset + op.limit]


def _search_item(item: Item, score: float | None) -> SearchItem:
    return SearchItem(namespace=item.namespace, key=item.key, value=item.value, created_at=item.created_at,
                      updated_at=item.updated_at, score=score)


def _dedupe_puts(puts: list[PutOp]) -> list[PutOp]:
    """The last put of each item (as LangGraph's stores apply a batch)."""
    last: dict[tuple[tuple[str, ...], str], PutOp] = {}
    for op in puts:
        last.pop((tuple(op.namespace), op.key), None)
        last[(tuple(op.namespace), op.key)] = op
    return list(last.values())


def _rejection(op: PutOp, result: Mapping[str, Any]) -> ElfError | None:
    if result.get("op") == "REJECTED":
        code = result.get("reason_code") or "REJECTED"
    elif result.get("policy_decision") == "ignore" and result.get("reason_code") not in ACCEPTED_IGNORES:
        code = result.get("reason_code") or "IGNORED"
    else:
        return None
    path = result.get("field_path")
    return ElfError(None, code, f"ELF did not store item {op.key!r} of namespace {tuple(op.namespace)!r}: {code}.",
                    [path] if path else [], body=dict(result))


def _split(ops: list[Op]) -> Iterable[tuple[int, list[Op]]]:
    """Runs of consecutive puts (written together) and single other ops, in order, with their first index."""
    i = 0
    while i < len(ops):
        j = i
        if isinstance(ops[i], PutOp):
            while j + 1 < len(ops) and isinstance(ops[j + 1], PutOp):
                j += 1
        yield i, ops[i: j + 1]
        i = j + 1


class ElfStore(BaseStore):
    """A LangGraph ``BaseStore`` whose items are ELF notes (see the module documentation for the mapping).

    ``client``: an :class:`ElfClient` (or a base URL, with ``tenant_id=...`` etc. as ``client_kwargs``).
    ``async_client``: the :class:`AsyncElfClient` ``abatch`` uses (made from the client's settings when left out).
    ``scope``: the ELF scope of every item. ``note_type``, ``ttl_days``, ``importance``, ``confidence``: the
    fields of every note written. ``search_mode``: the ELF search mode of query searches; ``search_candidate_k``:
    their ELF ``candidate_k`` (the service's ``memory.candidate_k`` when None).
    """

    supports_ttl = False

    def __init__(self, client: ElfClient | str | None = None, *, async_client: AsyncElfClient | None = None,
                 scope: str = "agent_private", note_type: str = "fact", ttl_days: int | None = 36500,
                 importance: float = 0.5, confidence: float = 1.0, search_mode: str | None = "quick_find",
                 search_candidate_k: int | None = None, **client_kwargs: Any):
        if isinstance(client, str) or client is None:
            client = ElfClient(client or client_kwargs.pop("base_url", "http://127.0.0.1:8089"), **client_kwargs)
            self._owns_client = True
        elif client_kwargs:
            raise TypeError(f"client settings given beside a client: {sorted(client_kwargs)}")
        else:
            self._owns_client = False
        self.client = client
        self._async_client = async_client
        self._async_loop: asyncio.AbstractEventLoop | None = None
        self.scope = SCOPE_ALIASES.get(scope, scope)
        self.note_type = note_type
        self.ttl_days = ttl_days
        self.importance = importance
        self.confidence = confidence
        self.search_mode = search_mode
        self.search_candidate_k = search_candidate_k
        self._agent: str | None = client.config.agent_id

    # --- the ELF side of each op, shared by both paths -----------------------------------------------------------

    def _note(self, op: PutOp) -> dict[str, Any]:
        assert op.value is not None, "a PutOp without a value is a delete"
        note = {"type": self.note_type, "key": note_key(tuple(op.namespace), op.key), "text": render(op.value),
                "importance": self.importance, "confidence": self.confidence,
                "source_ref": {"schema": SCHEMA, "namespace": [_escaped(x) for x in op.namespace],
                               "key": _escaped(op.key)}}
        if self.ttl_days is not None:
            note["ttl_days"] = self.ttl_days
        return note

    def _filter_expr(self, prefix: tuple[str, ...]) -> dict[str, Any]:
        return {"schema": "search_filter_expr/v1", "expr": {"op": "and", "args": [
            {"op": "eq", "field": "type", "value": self.note_type},
            {"op": "eq", "field": "scope", "value": self.scope},
            {"op": "contains", "field": "key", "value": KEY_PREFIX + _chain(tuple(prefix))},
        ]}}

    def _search_args(self, op: SearchOp) -> dict[str, Any]:
        top_k = max(1, min(MAX_TOP_K, 2 * (op.offset + op.limit)))
        args: dict[str, Any] = {"mode": self.search_mode, "top_k": top_k,
                                "filter": self._filter_expr(tuple(op.namespace_prefix)),
                                "read_profile": READ_PROFILE_OF.get(self.scope)}
        if self.search_candidate_k is not None:
            args["candidate_k"] = self.search_candidate_k
        return args

    @staticmethod
    def _ranked(op: SearchOp, session: Mapping[str, Any], notes: Mapping[str, Any]) -> list[SearchItem]:
        found: list[SearchItem] = []
        seen: set[tuple[tuple[str, ...], str]] = set()
        for hit in session["items"]:
            note = notes.get(hit["note_id"])
            item = item_of(note) if note else None
            if item is None or (item.namespace, item.key) in seen:
                continue
            if not _under(item.namespace, op.namespace_prefix) or not matches_filter(item.value, op.filter):
                continue
            seen.add((item.namespace, item.key))
            found.append(_search_item(item, hit.get("final_score")))
        return found[op.offset: op.offset + op.limit]

    @staticmethod
    def _notes_of(response: Mapping[str, Any]) -> dict[str, Any]:
        return {r["note_id"]: r["note"] for r in response["results"] if r.get("note")}

    @staticmethod
    def _check(puts: list[PutOp], results: Sequence[Mapping[str, Any]]) -> None:
        for op, result in zip(puts, results, strict=False):
            error = _rejection(op, result)
            if error is not None:
                raise error

    def _list_args(self) -> dict[str, Any]:
        return {"scope": self.scope, "type": self.note_type, "status": "active"}

    # --- sync ------------------------------------------------------------------------------------------------------

    def _own_agent(self) -> str | None:
        if self._agent is None and self.scope != "agent_private":
            self._agent = self.client.context(read_profile=READ_PROFILE_OF.get(self.scope))["agent_id"]
        return self._agent

    def _snapshot(self) -> _Snapshot:
        return _Snapshot.of(self.client.iter_notes(**self._list_args()), self._own_agent())

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        results: list[Result] = [None] * len(ops)
        snapshot: _Snapshot | None = None
        for start, run in _split(ops):
            op = run[0]
            if isinstance(op, PutOp):
                puts = _dedupe_puts(run)  # type: ignore[arg-type]
                deletes = [p for p in puts if p.value is None]
                if deletes:
                    snapshot = snapshot or self._snapshot()
                    for p in deletes:
                        entry = snapshot.entries.get((tuple(p.namespace), p.key))
                        for note_id in entry.note_ids if entry else []:
                            self.client.delete_note(note_id)
                writes = [p for p in puts if p.value is not None]
                for i in range(0, len(writes), 100):
                    chunk = writes[i: i + 100]
                    response = self.client.add_notes([self._note(p) for p in chunk], scope=self.scope)
                    self._check(chunk, response["results"])
                snapshot = None
            elif isinstance(op, SearchOp) and op.query:
                results[start] = self._query_search(op)
            else:
                snapshot = snapshot or self._snapshot()
                results[start] = self._read(snapshot, op)
        return results

    def _query_search(self, op: SearchOp) -> list[SearchItem]:
        assert op.query, "only a search with a query goes to ELF's search"
        session = self.client.search(op.query, **self._search_args(op))
        ids = [hit["note_id"] for hit in session["items"]]
        if not ids:
            return []
        notes = self._notes_of(self.client.search_notes(session["search_id"], ids, record_hits=False))
        return self._ranked(op, session, notes)

    @staticmethod
    def _read(snapshot: _Snapshot, op: Op) -> Result:
        if isinstance(op, GetOp):
            return snapshot.get(op)
        if isinstance(op, SearchOp):
            return snapshot.search(op)
        if isinstance(op, ListNamespacesOp):
            return snapshot.list_namespaces(op)
        raise ValueError(f"Unknown operation type: {type(op)}")

    # --- async -----------------------------------------------------------------------------------------------------

    def _aclient(self) -> AsyncElfClient:
        """The async client; one made here is remade for another event loop (httpx pools are per loop)."""
        loop = asyncio.get_running_loop()
        if self._async_client is None or (self._async_loop is not None and self._async_loop is not loop):
            self._async_client = AsyncElfClient(config=self.client.config)
            self._async_loop = loop
        return self._async_client

    async def _aown_agent(self) -> str | None:
        if self._agent is None and self.scope != "agent_private":
            context = await self._aclient().context(read_profile=READ_PROFILE_OF.get(self.scope))
            self._agent = context["agent_id"]
        return self._agent

    async def _asnapshot(self) -> _Snapshot:
        notes = [n async for n in self._aclient().iter_notes(**self._list_args())]
        return _Snapshot.of(notes, await self._aown_agent())

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
        client = self._aclient()
        results: list[Result] = [None] * len(ops)
        snapshot: _Snapshot | None = None
        for start, run in _split(ops):
            op = run[0]
            if isinstance(op, PutOp):
                puts = _dedupe_puts(run)  # type: ignore[arg-type]
                deletes = [p for p in puts if p.value is None]
                if deletes:
                    snapshot = snapshot or await self._asnapshot()
                    for p in deletes:
                        entry = snapshot.entries.get((tuple(p.namespace), p.key))
                        for note_id in entry.note_ids if entry else []:
                            await client.delete_note(note_id)
                writes = [p for p in puts if p.value is not None]
                for i in range(0, len(writes), 100):
                    chunk = writes[i: i + 100]
                    response = await client.add_notes([self._note(p) for p in chunk], scope=self.scope)
                    self._check(chunk, response["results"])
                snapshot = None
            elif isinstance(op, SearchOp) and op.query:
                results[start] = await self._aquery_search(op)
            else:
                snapshot = snapshot or await self._asnapshot()
                results[start] = self._read(snapshot, op)
        return results

    async def _aquery_search(self, op: SearchOp) -> list[SearchItem]:
        assert op.query, "only a search with a query goes to ELF's search"
        client = self._aclient()
        session = await client.search(op.query, **self._search_args(op))
        ids = [hit["note_id"] for hit in session["items"]]
        if not ids:
            return []
        notes = self._notes_of(await client.search_notes(session["search_id"], ids, record_hits=False))
        return self._ranked(op, session, notes)

    # --- lifetime --------------------------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the client this store made (a client handed in stays open)."""
        if self._owns_client:
            self.client.close()

    async def aclose(self) -> None:
        if self._async_client is not None and self._async_loop is not None:
            await self._async_client.aclose()
            self._async_client = None
        self.close()

    def __enter__(self) -> ElfStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["ElfStore", "item_of", "matches_condition", "matches_filter", "note_key", "render", "parse"]
