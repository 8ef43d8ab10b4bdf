"""Which event-log values are sealed at rest (agent-memory-acb-prd 9.2, "high: Encrypted at rest") and the model
hooks that seal them on save and open them on load; the cipher is elf_kernel.crypto.

Sealed when the row's ``sensitivity`` is ``high``: an event's content (stored as ``{"encrypted": <envelope>}``),
its chunks' text (``text_hash`` then a keyed digest), a decision's text fields (decision, search_text, and each
of rationale, constraints, alternatives, consequences as one envelope of the JSON list). A task's title and
details once a high event has written the task; an artifact's bytes when its event is high (its meta says
``encrypted_at_rest``); a kept bundle's body, compressed first, when its build read any sealed value. Every AAD
names the table, column, tenant and row, so a ciphertext cannot be moved to another row.

Loading opens sealed values (a wrong key raises, never garbage). ``reveal(False)`` (the admin for staff who are
not superusers) loads them as PLACEHOLDER instead. Rows written before this existed stay as they were stored.
"""

from __future__ import annotations

import base64
import functools
import json
import zlib
from contextlib import contextmanager
from contextvars import ContextVar

from elf_kernel.crypto import LOOKALIKE, aad, cipher, is_sealed, is_sealed_bytes
from elf_kernel.errors import InvalidRequest

from .domain.vocabulary import Sensitivity

PLACEHOLDER = "[encrypted: high sensitivity]"
ENCRYPTED = "encrypted"
ARTIFACT_FLAG = "encrypted_at_rest"
DECISION_TEXTS = ("decision", "search_text")
DECISION_LISTS = ("rationale", "constraints", "alternatives", "consequences")
TASK_TEXTS = ("title", "details")

_reveal: ContextVar[bool] = ContextVar("elf_reveal_sealed", default=True)
_opened: ContextVar[list[int] | None] = ContextVar("elf_sealed_opened", default=None)


@contextmanager
def reveal(allowed: bool):
    """Within the block, sealed values load opened (``allowed``) or as PLACEHOLDER."""
    token = _reveal.set(allowed)
    try:
        yield
    finally:
        _reveal.reset(token)


def counting(fn):
    """Runs ``fn`` with a fresh count of the sealed values it opens (``opened_any``)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        token = _opened.set([0])
        try:
            return fn(*args, **kwargs)
        finally:
            _opened.reset(token)
    return wrapper


def opened_any() -> bool:
    counter = _opened.get()
    return bool(counter and counter[0])


def _open(value: str, ad: bytes, what: str) -> str:
    if not _reveal.get():
        return PLACEHOLDER
    counter = _opened.get()
    if counter is not None:
        counter[0] += 1
    return cipher().open(value, ad, what)


def open_text(table: str, column: str, tenant_id: str, row_id: str, value, what: str):
    return _open(value, aad(table, column, tenant_id, row_id), what) if is_sealed(value) else value


def _open_list(table: str, column: str, tenant_id: str, row_id: str, value, what: str):
    if isinstance(value, list) and len(value) == 1 and is_sealed(value[0]):
        opened = _open(value[0], aad(table, column, tenant_id, row_id), what)
        return [PLACEHOLDER] if opened == PLACEHOLDER else json.loads(opened)
    return value


def _open_json(table: str, column: str, tenant_id: str, row_id: str, value, what: str):
    if isinstance(value, dict) and list(value) == [ENCRYPTED] and is_sealed(value[ENCRYPTED]):
        opened = _open(value[ENCRYPTED], aad(table, column, tenant_id, row_id), what)
        return {ENCRYPTED: PLACEHOLDER} if opened == PLACEHOLDER else json.loads(opened)
    return value


def seal_json(table: str, column: str, tenant_id: str, row_id: str, value) -> dict:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return {ENCRYPTED: cipher().seal(text, aad(table, column, tenant_id, row_id))}


def refuse_lookalikes(value, path: str = "$.content") -> None:
    """Written text may not hold what reads as a sealed value (it would be opened, and fail, on every read)."""
    if isinstance(value, str):
        if LOOKALIKE.search(value):
            raise InvalidRequest("This text holds an encrypted-value marker (elfencv1 and hex digits), which ELF "
                                 "reserves for encryption at rest.", [path])
    elif isinstance(value, list):
        for i, v in enumerate(value):
            refuse_lookalikes(v, f"{path}[{i}]")
    elif isinstance(value, dict):
        for k, v in value.items():
            refuse_lookalikes(v, f"{path}.{k}")


def _loaded(obj) -> dict:
    return obj.__dict__  # a deferred field is absent: never read it here (that would query it)


# --- per model: open on load, seal on save --------------------------------------------------------------------


def open_event(e):
    d = _loaded(e)
    if d.get("sensitivity") == Sensitivity.HIGH and "content" in d:
        e.content = _open_json("acb_events", "content", e.tenant_id, e.event_id, d["content"], "event")
    return e


def seal_event_values(e) -> dict:
    if e.sensitivity != Sensitivity.HIGH:
        return {}
    return {"content": seal_json("acb_events", "content", e.tenant_id, e.event_id, e.content)}


def open_chunk(c):
    d = _loaded(c)
    if d.get("sensitivity") == Sensitivity.HIGH and "text" in d:
        c.text = open_text("acb_chunks", "text", c.tenant_id, c.chunk_id, d["text"], "chunk")
    return c


def seal_chunks(rows: list) -> list:
    """Chunks of a high event with their text sealed (in place); written by bulk_create, so no save hook."""
    for c in rows:
        if c.sensitivity == Sensitivity.HIGH:
            c.text_hash = cipher().text_hash(c.text)
            c.text = cipher().seal(c.text, aad("acb_chunks", "text", c.tenant_id, c.chunk_id))
    return rows


def open_chunk_text(tenant_id: str, chunk_id: str, text: str) -> str:
    """A chunk's text as read by raw SQL (the bundle's selectors)."""
    return open_text("acb_chunks", "text", tenant_id, chunk_id, text, "chunk")


def open_decision(dec):
    d = _loaded(dec)
    if d.get("sensitivity") != Sensitivity.HIGH:
        return dec
    for name in DECISION_TEXTS:
        if name in d:
            setattr(dec, name, open_text("acb_decisions", name, dec.tenant_id, dec.decision_id, d[name], "decision"))
    for name in DECISION_LISTS:
        if name in d:
            setattr(dec, name, _open_list("acb_decisions", name, dec.tenant_id, dec.decision_id, d[name], "decision"))
    return dec


def seal_decision_values(dec) -> dict:
    if dec.sensitivity != Sensitivity.HIGH:
        return {}
    c = cipher()
    out = {n: c.seal(getattr(dec, n), aad("acb_decisions", n, dec.tenant_id, dec.decision_id)) for n in DECISION_TEXTS}
    for n in DECISION_LISTS:
        out[n] = [c.seal(json.dumps(list(getattr(dec, n)), ensure_ascii=False),
                         aad("acb_decisions", n, dec.tenant_id, dec.decision_id))]
    return out


def open_task(t):
    d = _loaded(t)
    for name in TASK_TEXTS:
        if is_sealed(d.get(name)):
            t.sealed = True
            setattr(t, name, open_text("acb_tasks", name, t.tenant_id, t.task_id, d[name], "task"))
    return t


def seal_task_values(t) -> dict:
    if not t.sealed:
        return {}
    return {n: cipher().seal(getattr(t, n) or "", aad("acb_tasks", n, t.tenant_id, t.task_id)) for n in TASK_TEXTS}


def open_artifact(a):
    d = _loaded(a)
    if (d.get("meta") or {}).get(ARTIFACT_FLAG) and is_sealed_bytes(d.get("bytes")):
        if not _reveal.get():
            a.bytes = PLACEHOLDER.encode("utf-8")
        else:
            counter = _opened.get()
            if counter is not None:
                counter[0] += 1
            a.bytes = cipher().open_bytes(d["bytes"], aad("acb_artifacts", "bytes", a.tenant_id, a.artifact_id),
                                          "artifact")
    return a


def seal_artifact_values(a) -> dict:
    if not a.sealed or a.bytes is None:
        return {}
    a.meta = {**(a.meta or {}), ARTIFACT_FLAG: True}
    return {"bytes": cipher().seal_bytes(bytes(a.bytes), aad("acb_artifacts", "bytes", a.tenant_id, a.artifact_id))}


def open_bundle(b):
    d = _loaded(b)
    body = d.get("body")
    if isinstance(body, dict) and list(body) == [ENCRYPTED] and is_sealed(body[ENCRYPTED]):
        opened = _open(body[ENCRYPTED], aad("acb_bundles", "body", b.tenant_id, b.acb_id), "bundle")
        b.body = {"provenance": {ENCRYPTED: PLACEHOLDER}} if opened == PLACEHOLDER else json.loads(_unpacked(opened))
    return b


# A kept bundle's body is hundreds of KiB and the envelope (hex) doubles what it seals, while a ciphertext does
# not compress: so the JSON is compressed before it is sealed (zlib level 1, base64 so that the sealed value
# stays text). A body sealed before this holds the JSON itself, and opens as it did.
PACKED = "zlib1+base64:"


def _unpacked(opened: str) -> str:
    if opened.startswith(PACKED):
        return zlib.decompress(base64.b64decode(opened[len(PACKED):])).decode("utf-8")
    return opened


def seal_kept_body(tenant_id: str, acb_id: str, stored: str) -> str:
    """A kept bundle's serialised body, compressed and sealed (its build read sensitivity-high content)."""
    packed = PACKED + base64.b64encode(zlib.compress(stored.encode("utf-8"), 1)).decode("ascii")
    return json.dumps({ENCRYPTED: cipher().seal(packed, aad("acb_bundles", "body", tenant_id, acb_id))})


@contextmanager
def sealed_for_save(obj, values: dict):
    """The sealed ``values`` in place of the plaintext while the row is written; the plaintext after."""
    plain = {name: getattr(obj, name) for name in values}
    for name, v in values.items():
        setattr(obj, name, v)
    try:
        yield
    finally:
        for name, v in plain.items():
            setattr(obj, name, v)
