"""Moving one tenant's rows between databases (manage.py export_tenant / import_tenant): the part that is the
same for every table.

Each app lists its tables in its ``services/portability.py`` as :class:`TableSpec` rows (which rows belong to a
tenant, and what besides ``tenant_id`` names it); ``elf_project.portability`` puts them in foreign-key order and
runs the two functions below over Django's connection.

A row travels as the JSON Postgres makes of it (``to_jsonb``: uuids and timestamps as text, jsonb as JSON,
arrays as lists, bytea as ``\\x`` hex, vectors as ``[...]``) and comes back through
``jsonb_populate_recordset``, so every column type round-trips exactly with no per-column code. Generated
columns (``tsv``) are left out both ways; identity columns (``core_memory_audit.audit_id``) are numbered anew by
the target database, in the exported order, since such counters are per database and would collide there.
Every other id is kept, so references between the rows stay valid; the one exception is a shared row (a global
predicate, seeded in every database under an id of its own) that the target already holds by name under another
id: the target's row is used, and the references to it (``TableSpec.refs``) take its id.

The file is JSON lines: a header ``{"kind": "elf_export", ...}``, one ``{"kind": <table>, "row": {...}}`` per
row, and a trailer ``{"kind": "elf_export_end", "counts": {...}}`` that lets the import tell a cut file.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from django.db import connection, transaction

from elf_infra.index.dispatch import send_outbox_task

from .portability_load import ImportRefused, Loader, Table

FORMAT = "elf_export/v1"
HEADER_KIND = "elf_export"
TRAILER_KIND = "elf_export_end"
BATCH = 500  # rows an export fetches at a time
Row = dict[str, Any]


def owned_by_tenant(alias: str = "t") -> str:
    """The rows of the tenant (and of the project, when one is given) in a table with both columns."""
    return f"{alias}.tenant_id = %(tenant)s AND (%(project)s::text IS NULL OR {alias}.project_id = %(project)s)"


@dataclass(frozen=True)
class TableSpec:
    """One table's part in an export.

    ``where`` selects the tenant's rows of ``table`` (alias ``t``; parameters ``%(tenant)s`` and
    ``%(project)s``, NULL for the whole tenant); run with the target tenant it also tells whether that tenant
    already holds such rows. ``remap(row, old, new)`` renames the tenant in the columns other than
    ``tenant_id`` that carry it. ``vectors``: only exported with vectors (derived data the index is rebuilt
    from). ``shared``: rows the tenant uses but does not own (a predicate of the whole project or installation):
    the import adds the missing ones and keeps existing ones. ``match`` (shared rows): the columns that name such
    a row in any database, a unique key besides the id (a predicate's scope and name: the global predicates are
    seeded with ids of their own in every database); the import uses the target's row of the same values, whatever
    its id. ``refs``: columns holding the id of another table's row (column -> table), rewritten on import to the
    id of the target's row that ``match`` found for it. ``deferred``: columns that reference rows of the same
    table, inserted as these values and set to the exported ones once every row of the table is in.
    """

    table: str
    where: str
    kind: str = ""
    remap: Callable[[Row, str, str], None] | None = None
    vectors: bool = False
    shared: bool = False
    match: tuple[str, ...] = ()
    refs: Mapping[str, str] = field(default_factory=dict)
    deferred: Mapping[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.kind or self.table


# --- export ------------------------------------------------------------------------------------------------


def export_rows(specs: Iterable[TableSpec], out: TextIO, *, header: Row, tenant: str, project: str | None,
                with_vectors: bool) -> dict[str, int]:
    """Write the header, every row of the tenant, and the trailer; returns the row count per kind. Call inside
    a REPEATABLE READ transaction (:func:`snapshot`) so the rows are one consistent state."""
    out.write(json.dumps({"kind": HEADER_KIND, "format": FORMAT, **header}) + "\n")
    counts: dict[str, int] = {}
    params = {"tenant": tenant, "project": project}
    for spec in specs:
        if spec.vectors and not with_vectors:
            continue
        table = Table.of(spec.table)
        prefix = '{"kind":' + json.dumps(spec.name) + ',"row":'
        counts[spec.name] = 0
        with connection.chunked_cursor() as cur:
            cur.execute(f"SELECT (to_jsonb(t) - %(skip)s::text[])::text FROM {spec.table} t WHERE {spec.where} "
                        f"ORDER BY {table.order}", {**params, "skip": table.skipped})
            while batch := cur.fetchmany(BATCH):
                out.writelines(prefix + text + "}\n" for (text,) in batch)
                counts[spec.name] += len(batch)
    out.write(json.dumps({"kind": TRAILER_KIND, "counts": counts}) + "\n")
    return counts


def snapshot() -> None:
    """Make the current transaction one read-only snapshot (the first statement of an atomic block)."""
    with connection.cursor() as cur:
        cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")


# --- import ------------------------------------------------------------------------------------------------


def read_header(lines: Iterable[str]) -> tuple[Row, Iterable[str]]:
    """The header record of an export file and an iterator over the lines after it."""
    it = iter(lines)
    first = next(it, "")
    try:
        header = json.loads(first)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("kind") != HEADER_KIND or header.get("format") != FORMAT:
        raise ImportRefused(f"not an ELF export: its first line is not a {FORMAT} header")
    return header, it


def target_has_rows(specs: Iterable[TableSpec], *, tenant: str, project: str | None) -> list[str]:
    """The tables that already hold rows of ``tenant`` (in ``project``, when given)."""
    found = []
    with connection.cursor() as cur:
        for spec in specs:
            if spec.shared or spec.vectors:
                continue
            cur.execute(f"SELECT EXISTS (SELECT 1 FROM {spec.table} t WHERE {spec.where})",
                        {"tenant": tenant, "project": project})
            if cur.fetchone()[0] and spec.table not in found:
                found.append(spec.table)
    return found


def import_rows(specs: Iterable[TableSpec], lines: Iterable[str], *, old_tenant: str, new_tenant: str
                ) -> dict[str, int]:
    """Load the records of ``lines`` (the lines after the header) with the tenant renamed, each kind through
    one COPY (elf_kernel.portability_load); returns the row count per kind. Raises :class:`ImportRefused`
    for an unknown kind, a cut file, or rows that clash with rows already in the database; call inside a
    transaction, which the caller rolls back then."""
    by_kind = {spec.name: spec for spec in specs}
    moved: dict[str, dict[str, Any]] = {}  # table -> {the file's id: the id of the target's row in its place}
    counts: dict[str, int] = {}
    trailer = None
    current: Loader | None = None
    loads = json.loads
    try:
        for number, line in enumerate(lines, start=2):
            if not line.strip():
                continue
            try:
                record = loads(line)
                kind = record["kind"]
            except (ValueError, KeyError, TypeError):
                raise ImportRefused(f"line {number} is not an export record") from None
            if trailer is not None:
                raise ImportRefused(f"line {number} follows the end record")
            if kind == TRAILER_KIND:
                trailer = record
                continue
            if current is None or current.spec.name != kind:
                spec = by_kind.get(kind)
                if spec is None:
                    raise ImportRefused(f"line {number}: unknown record kind {kind!r} (made by a newer release?)")
                if current is not None:
                    current.finish()
                if spec.name in counts:
                    raise ImportRefused(f"line {number}: the {kind} records are not contiguous")
                current = Loader(spec, old_tenant, new_tenant, moved)
                counts[spec.name] = 0
            current.add(record.get("row"), number)
            counts[kind] += 1
        if current is not None:
            current.finish()
    except BaseException as exc:
        if current is not None:
            current.abort(exc)
        raise
    expected = trailer.get("counts") if trailer is not None else None
    if not isinstance(expected, dict) or {kind: n for kind, n in expected.items() if n} != counts:
        raise ImportRefused("the file is incomplete: its end record is missing or does not match its rows")
    return counts


def analyze_imported(specs: Iterable[TableSpec], counts: Mapping[str, int]) -> None:
    """ANALYZE every table an import wrote rows to, once it has committed. A table a bulk
    import grew keeps the planner statistics of before it until autovacuum's next pass (a minute or more), and
    plans made from them can be slow: the search's re-validation of 10,000 notes just loaded took 300 ms instead of
    3 until then (docs/benchmarks.md, "Scale")."""
    with connection.cursor() as cur:
        for table in dict.fromkeys(spec.table for spec in specs if counts.get(spec.name)):
            cur.execute(f"ANALYZE {table}")


# --- re-indexing after an import ---------------------------------------------------------------------------

# A version 7 UUID made in SQL (Postgres 15+ has no uuidv7()): the current millisecond over the first 48 bits
# of a random UUID, its version nibble set from 4 to 7.
SQL_UUID7 = ("encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing "
             "substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6), "
             "52, 1), 53, 1), 'hex')::uuid")


def enqueue_imported(sql: str, params: Mapping[str, Any]) -> list:
    """Run one ``INSERT INTO <outbox> ... SELECT ... RETURNING outbox_id`` (the outbox rows of every imported
    note or document, in the import's transaction); returns the new outbox ids in their order."""
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return [outbox_id for (outbox_id,) in cur.fetchall()]


def dispatch_after_commit(task_name: str, outbox_ids: list, *, every: int, log: logging.Logger) -> None:
    """Once the import commits, send one task per ``every`` outbox rows (each claims its row and the due rows
    beside it). Sent from this thread, in order, not through the bounded publisher queue: an import of a
    million notes has tens of thousands of them. The first failed send stops the sending: the outbox sweep
    claims whatever is left."""

    def send() -> None:
        for outbox_id in outbox_ids[::every]:
            if not send_outbox_task(task_name, outbox_id, log=log):
                return

    if outbox_ids:
        transaction.on_commit(send)
