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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from django.db import DatabaseError, connection

FORMAT = "elf_export/v1"
HEADER_KIND = "elf_export"
TRAILER_KIND = "elf_export_end"
BATCH = 500
BATCH_BYTES = 8 << 20  # an import batch also ends at this much JSON (bundle and artifact rows are large)
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


class ImportRefused(Exception):
    """The file cannot be imported into this database; nothing was written."""


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
        table = _Table.of(spec.table)
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
    """Insert the records of ``lines`` (the lines after the header) with the tenant renamed; returns the row
    count per kind. Raises :class:`ImportRefused` for an unknown kind, a cut file, or rows that clash with
    rows already in the database; call inside a transaction, which the caller rolls back then."""
    by_kind = {spec.name: spec for spec in specs}
    moved: dict[str, dict[str, Any]] = {}  # table -> {the file's id: the id of the target's row in its place}
    counts: dict[str, int] = {}
    trailer = None
    batch: list[Row] = []
    batch_bytes = 0
    current: _Loader | None = None
    for number, line in enumerate(lines, start=2):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            kind = record["kind"]
        except (ValueError, KeyError, TypeError):
            raise ImportRefused(f"line {number} is not an export record") from None
        if trailer is not None:
            raise ImportRefused(f"line {number} follows the end record")
        if kind == TRAILER_KIND:
            trailer = record
            continue
        spec = by_kind.get(kind)
        if spec is None:
            raise ImportRefused(f"line {number}: unknown record kind {kind!r} (made by a newer release?)")
        if current is None or current.spec is not spec:
            if current is not None:
                current.finish(batch)
                batch, batch_bytes = [], 0
            if spec.name in counts:
                raise ImportRefused(f"line {number}: the {kind} records are not contiguous")
            current = _Loader(spec, old_tenant, new_tenant, moved)
            counts[spec.name] = 0
        batch.append(current.remap(record.get("row"), number))
        batch_bytes += len(line)
        counts[spec.name] += 1
        if len(batch) >= BATCH or batch_bytes >= BATCH_BYTES:
            current.insert(batch)
            batch, batch_bytes = [], 0
    if current is not None:
        current.finish(batch)
    expected = trailer.get("counts") if trailer is not None else None
    if not isinstance(expected, dict) or {kind: n for kind, n in expected.items() if n} != counts:
        raise ImportRefused("the file is incomplete: its end record is missing or does not match its rows")
    return counts


class _Loader:
    """Inserts the rows of one kind in batches."""

    def __init__(self, spec: TableSpec, old_tenant: str, new_tenant: str, moved: dict[str, dict[str, Any]]):
        self.spec, self.old, self.new, self.moved = spec, old_tenant, new_tenant, moved
        self.table = _Table.of(spec.table)
        if spec.match and (not spec.shared or len(self.table.key) != 1):
            raise ValueError(f"{spec.name}: match is for shared rows of a table with a one-column key")
        self.deferred: list[Row] = []
        self.columns: list[str] | None = None

    def remap(self, row: Any, number: int) -> Row:
        if not isinstance(row, dict):
            raise ImportRefused(f"line {number}: a record without a row object")
        if self.columns is None:
            unknown = sorted(set(row) - set(self.table.columns))
            if unknown:
                raise ImportRefused(f"line {number}: {self.spec.table} has no column {', '.join(unknown)} "
                                    "(the file was made by a newer release?)")
            # Columns the file lacks (it is older than this schema) take their defaults.
            self.columns = [c for c in self.table.insertable if c in row]
        if self.old != self.new:
            if row.get("tenant_id") is not None:
                row["tenant_id"] = self.new
            if self.spec.remap:
                self.spec.remap(row, self.old, self.new)
        for column, table in self.spec.refs.items():
            target = self.moved.get(table, {}).get(row.get(column))
            if target is not None:
                row[column] = target
        return row

    def insert(self, rows: list[Row]) -> None:
        if not rows:
            return
        payload = json.dumps(rows)
        cols = ", ".join(self.columns)
        with connection.cursor() as cur:
            if not self.spec.shared and not set(self.table.key) & set(self.table.skipped):
                self._refuse_clashes(cur, payload)
            if self.spec.deferred:
                self.deferred.extend({k: r.get(k) for k in (*self.table.key, *self.spec.deferred)} for r in rows)
                rows = [{**r, **self.spec.deferred} for r in rows]
                payload = json.dumps(rows)
            # A shared row the target holds (its id, or with match also its name under another id) is kept.
            conflict = ((" ON CONFLICT DO NOTHING" if self.spec.match else
                         f" ON CONFLICT ({', '.join(self.table.key)}) DO NOTHING") if self.spec.shared else "")
            self._run(cur, f"INSERT INTO {self.spec.table} ({cols}) SELECT {cols} FROM "
                           f"jsonb_populate_recordset(NULL::{self.spec.table}, %s::jsonb){conflict}", [payload])
            if self.spec.match:
                self._follow_matches(cur, payload)

    def finish(self, rows: list[Row]) -> None:
        self.insert(rows)
        if self.deferred:
            sets = ", ".join(f"{c} = r.{c}" for c in self.spec.deferred)
            match = " AND ".join(f"x.{c} = r.{c}" for c in self.table.key)
            with connection.cursor() as cur:
                self._run(cur, f"UPDATE {self.spec.table} x SET {sets} FROM "
                               f"jsonb_populate_recordset(NULL::{self.spec.table}, %s::jsonb) r WHERE {match}",
                          [json.dumps(self.deferred)])

    def _follow_matches(self, cur, payload: str) -> None:
        """After the insert: the file's rows the target already held under another id (same ``match`` values)
        map to the target's ids, which the ``refs`` of later kinds then take."""
        (key,) = self.table.key
        on = " AND ".join(f"t.{c} = r.{c}" for c in self.spec.match)
        # to_jsonb: the ids as the file spells them (the refs of later rows compare equal)
        cur.execute(f"SELECT to_jsonb(r.{key})::text, to_jsonb(t.{key})::text "
                    f"FROM jsonb_populate_recordset(NULL::{self.spec.table}, %s::jsonb) r "
                    f"JOIN {self.spec.table} t ON {on} WHERE t.{key} <> r.{key}", [payload])
        self.moved.setdefault(self.spec.table, {}).update(
            (json.loads(old), json.loads(new)) for old, new in cur.fetchall())

    def _refuse_clashes(self, cur, payload: str) -> None:
        key = ", ".join(self.table.key)
        cur.execute(f"SELECT {key} FROM {self.spec.table} WHERE ({key}) IN (SELECT {key} FROM "
                    f"jsonb_populate_recordset(NULL::{self.spec.table}, %s::jsonb)) LIMIT 3", [payload])
        clashes = cur.fetchall()
        if clashes:
            ids = ", ".join(str(r[0] if len(r) == 1 else r) for r in clashes)
            raise ImportRefused(
                f"{self.spec.table}: rows with the ids of the file are already in this database ({ids} ...), "
                "held by another tenant or by an earlier import. Ids are kept on import, so an export can be "
                "imported once per database: import it into another database, or remove those rows first."
            )

    def _run(self, cur, sql: str, params: list) -> None:
        try:
            cur.execute(sql, params)
        except DatabaseError as exc:  # a constraint, a foreign key, a value the column type refuses
            raise ImportRefused(f"{self.spec.table}: {str(exc).strip().splitlines()[0]}") from None


@dataclass(frozen=True)
class _Table:
    """What the catalog says about a table: its columns, the ones an insert may set, its primary key, and
    the generated and identity columns left out of the file."""

    columns: tuple[str, ...]
    insertable: tuple[str, ...]
    key: tuple[str, ...]
    skipped: list[str]

    @property
    def order(self) -> str:
        return ", ".join(f"t.{c}" for c in self.key)

    @classmethod
    def of(cls, table: str) -> _Table:
        with connection.cursor() as cur:
            cur.execute(
                """
                SELECT a.attname, a.attgenerated <> '' OR a.attidentity <> '',
                       COALESCE(a.attnum = ANY(i.indkey), false)
                FROM pg_attribute a
                LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
                WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped
                ORDER BY a.attnum
                """,
                [table],
            )
            rows = cur.fetchall()
        if not rows:
            raise ImportRefused(f"this database has no table {table}")
        skipped = [name for name, skip, _ in rows if skip]
        key = tuple(name for name, _, pk in rows if pk)
        columns = tuple(name for name, _, _ in rows)
        return cls(columns, tuple(c for c in columns if c not in skipped), key, skipped)
