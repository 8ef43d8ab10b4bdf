"""The import's writing half (elf_kernel.portability): each record kind streams into its table through one
``COPY ... FROM STDIN``, so a million notes load at close to the rate of COPY alone.

A row arrives as the JSON ``to_jsonb`` made of it and leaves as COPY text: jsonb columns as JSON, arrays as
array literals, booleans as ``t``/``f``, every other value (uuids, timestamps, numbers, ``[...]`` vectors,
``\\x`` bytea) as the text it already is, which the column's own input function reads, as it would from
``jsonb_populate_recordset``. Nothing is reformatted on the way, so a vector or a timestamp comes back byte
for byte.

What the import guarantees, and how the COPY keeps it:

- ids are kept, and rows whose ids the database already holds are refused: a tenant's own rows go straight
  into their table, where the primary key refuses a clash; that error becomes :class:`ImportRefused` naming
  the id (the caller's transaction is rolled back, so nothing is written);
- shared rows (``TableSpec.shared``) land in a temporary table first, then one ``INSERT ... SELECT ... ON
  CONFLICT DO NOTHING`` keeps the target's rows, and a join with the temporary table maps the file's ids to
  the target's rows of the same name (``TableSpec.match``);
- deferred columns (``TableSpec.deferred``) go in as the placeholder values and are set to the exported ones
  once every row of the table is in;
- identity columns are left out of the COPY and numbered anew in the file's order; generated ones are left
  out;
- any other error of the database (a constraint, a foreign key, a value the column type refuses) refuses the
  import with its first line.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from typing import Any

import psycopg
from django.db import connection

Row = dict[str, Any]
FLUSH_ROWS = 1000  # rows of COPY text handed to the connection at a time


class ImportRefused(Exception):
    """The file cannot be imported into this database; nothing was written."""


def clash_message(table: str, ids: str) -> str:
    return (f"{table}: rows with the ids of the file are already in this database ({ids} ...), held by another "
            "tenant or by an earlier import. Ids are kept on import, so an export can be imported once per "
            "database: import it into another database, or remove those rows first.")


class Loader:
    """Streams the rows of one kind into its table (or, for shared rows, into a temporary table first)."""

    def __init__(self, spec, old_tenant: str, new_tenant: str, moved: dict[str, dict[str, Any]]):
        self.spec, self.old, self.new, self.moved = spec, old_tenant, new_tenant, moved
        self.table = Table.of(spec.table)
        if spec.match and (not spec.shared or len(self.table.key) != 1):
            raise ValueError(f"{spec.name}: match is for shared rows of a table with a one-column key")
        self.deferred: list[Row] = []
        self.columns: list[str] | None = None
        self._kinds: list[str] = []
        self._target = spec.table
        self._cursor: psycopg.Cursor | None = None
        self._copy_cm: Any = None
        self._copy: psycopg.Copy | None = None
        self._buffer: list[str] = []
        self._buffered = 0

    # --- rows in -----------------------------------------------------------------------------------------

    def add(self, row: Any, number: int) -> None:
        if not isinstance(row, dict):
            raise ImportRefused(f"line {number}: a record without a row object")
        if self.columns is None:
            self._start(row, number)
        if self.old != self.new:
            if row.get("tenant_id") is not None:
                row["tenant_id"] = self.new
            if self.spec.remap:
                self.spec.remap(row, self.old, self.new)
        for column, table in self.spec.refs.items():
            target = self.moved.get(table, {}).get(row.get(column))
            if target is not None:
                row[column] = target
        if self.spec.deferred:
            self.deferred.append({k: row.get(k) for k in (*self.table.key, *self.spec.deferred)})
            row = {**row, **self.spec.deferred}
        fields = [_copy_text(row.get(c), kind) for c, kind in zip(self.columns, self._kinds, strict=True)]
        self._buffer.append("\t".join(fields))
        self._buffered += 1
        if self._buffered >= FLUSH_ROWS:
            self._flush()

    def _start(self, row: Row, number: int) -> None:
        unknown = sorted(set(row) - set(self.table.columns))
        if unknown:
            raise ImportRefused(f"line {number}: {self.spec.table} has no column {', '.join(unknown)} "
                                "(the file was made by a newer release?)")
        # Columns the file lacks (it is older than this schema) take their defaults.
        self.columns = [c for c in self.table.insertable if c in row]
        self._kinds = [self.table.kinds[c] for c in self.columns]
        cols = ", ".join(self.columns)
        self._cursor = connection.connection.cursor()
        if self.spec.shared:
            self._target = f"_elf_import_{self.spec.table}"
            self._run(f"CREATE TEMPORARY TABLE {self._target} ON COMMIT DROP AS "
                      f"SELECT {cols} FROM {self.spec.table} WITH NO DATA")
        self._copy_cm = self._cursor.copy(f"COPY {self._target} ({cols}) FROM STDIN")
        try:
            self._copy = self._copy_cm.__enter__()
        except psycopg.Error as exc:
            self._copy_cm = None
            raise self._refusal(exc) from None

    def _flush(self) -> None:
        if self._buffer and self._copy is not None:
            self._buffer.append("")
            try:
                self._copy.write("\n".join(self._buffer))
            except psycopg.Error as exc:
                self._end_copy(exc)
                raise self._refusal(exc) from None
        self._buffer, self._buffered = [], 0

    # --- end of the kind ---------------------------------------------------------------------------------

    def finish(self) -> None:
        """End the COPY; for shared rows move them from the temporary table; set the deferred columns."""
        if self._copy_cm is None:
            return
        self._flush()
        try:
            self._end_copy(None)
        except psycopg.Error as exc:
            raise self._refusal(exc) from None
        if self.spec.shared:
            self._insert_shared()
        if self.deferred:
            sets = ", ".join(f"{c} = r.{c}" for c in self.spec.deferred)
            match = " AND ".join(f"x.{c} = r.{c}" for c in self.table.key)
            self._run(f"UPDATE {self.spec.table} x SET {sets} FROM "
                      f"jsonb_populate_recordset(NULL::{self.spec.table}, %s::jsonb) r WHERE {match}",
                      [json.dumps(self.deferred)])
        self._cursor.close()

    def abort(self, exc: BaseException) -> None:
        """The import failed while this kind's COPY was open: end it (the caller's rollback undoes the rest)."""
        if self._copy_cm is not None:
            with contextlib.suppress(psycopg.Error):
                self._end_copy(exc)

    def _end_copy(self, exc: BaseException | None) -> None:
        cm, self._copy_cm, self._copy = self._copy_cm, None, None
        if cm is not None:
            cm.__exit__(type(exc) if exc else None, exc, exc.__traceback__ if exc else None)

    def _insert_shared(self) -> None:
        """A shared row the target holds (its id, or with match also its name under another id) is kept; the
        file's rows the target held under another id (same ``match`` values) map to the target's ids, which
        the ``refs`` of later kinds then take."""
        cols = ", ".join(self.columns)
        keys = "" if self.spec.match else f" ({', '.join(self.table.key)})"
        conflict = f"ON CONFLICT{keys} DO NOTHING"
        self._run(f"INSERT INTO {self.spec.table} ({cols}) SELECT {cols} FROM {self._target} {conflict}")
        if self.spec.match:
            (key,) = self.table.key
            on = " AND ".join(f"t.{c} = r.{c}" for c in self.spec.match)
            # to_jsonb: the ids as the file spells them (the refs of later rows compare equal)
            self._run(f"SELECT to_jsonb(r.{key})::text, to_jsonb(t.{key})::text FROM {self._target} r "
                      f"JOIN {self.spec.table} t ON {on} WHERE t.{key} <> r.{key}")
            self.moved.setdefault(self.spec.table, {}).update(
                (json.loads(old), json.loads(new)) for old, new in self._cursor.fetchall())
        self._run(f"DROP TABLE {self._target}")

    def _run(self, sql: str, params: list | None = None) -> None:
        try:
            self._cursor.execute(sql, params)
        except psycopg.Error as exc:
            raise self._refusal(exc) from None

    def _refusal(self, exc: Exception) -> ImportRefused:
        if isinstance(exc, psycopg.errors.UniqueViolation) and exc.diag.constraint_name == self.table.pkey:
            detail = exc.diag.message_detail or ""  # Key (note_id)=(...) already exists.
            ids = detail.partition("=(")[2].rpartition(")")[0] or detail
            return ImportRefused(clash_message(self.spec.table, ids))
        return ImportRefused(f"{self.spec.table}: {str(exc).strip().splitlines()[0]}")


# --- COPY text -------------------------------------------------------------------------------------------

JSON, ARRAY, PLAIN = "json", "array", "plain"


def _copy_text(value: Any, kind: str) -> str:
    """``value`` (as ``to_jsonb`` wrote it) as one field of COPY's text format."""
    if value is None:
        return "\\N"
    if kind == JSON:
        text = json.dumps(value, ensure_ascii=False)
    elif kind == ARRAY and isinstance(value, list):
        text = _array_literal(value)
    elif isinstance(value, str):
        text = value
    elif isinstance(value, bool):
        return "t" if value else "f"
    elif isinstance(value, (dict, list)):  # a composite or a json value in a text column: as to_jsonb spelled it
        text = json.dumps(value, ensure_ascii=False)
    else:
        return str(value)  # int, float: digits only
    if "\\" in text:
        text = text.replace("\\", "\\\\")
    if "\n" in text or "\r" in text or "\t" in text:
        text = text.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return text


def _array_literal(items: list) -> str:
    """A Postgres array literal of a JSON array (nested for a multidimensional one)."""
    parts = []
    for item in items:
        if item is None:
            parts.append("NULL")
        elif isinstance(item, list):
            parts.append(_array_literal(item))
        elif isinstance(item, bool):
            parts.append("t" if item else "f")
        elif isinstance(item, (int, float)):
            parts.append(str(item))
        else:
            text = item if isinstance(item, str) else json.dumps(item, ensure_ascii=False)
            parts.append('"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"')
    return "{" + ",".join(parts) + "}"


@dataclass(frozen=True)
class Table:
    """What the catalog says about a table: its columns (and how COPY spells each), the ones an insert may
    set, its primary key and that key's constraint, and the generated and identity columns left out of the
    file."""

    columns: tuple[str, ...]
    insertable: tuple[str, ...]
    key: tuple[str, ...]
    skipped: list[str]
    kinds: dict[str, str]
    pkey: str | None

    @property
    def order(self) -> str:
        return ", ".join(f"t.{c}" for c in self.key)

    @classmethod
    def of(cls, table: str) -> Table:
        with connection.cursor() as cur:
            cur.execute(
                """
                SELECT a.attname, a.attgenerated <> '' OR a.attidentity <> '',
                       COALESCE(a.attnum = ANY(i.indkey), false),
                       CASE WHEN ty.typname IN ('json', 'jsonb') THEN 'json'
                            WHEN ty.typcategory = 'A' THEN 'array' ELSE 'plain' END,
                       (SELECT c.conname FROM pg_constraint c WHERE c.conrelid = a.attrelid AND c.contype = 'p')
                FROM pg_attribute a
                JOIN pg_type ty ON ty.oid = a.atttypid
                LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
                WHERE a.attrelid = %s::regclass AND a.attnum > 0 AND NOT a.attisdropped
                ORDER BY a.attnum
                """,
                [table],
            )
            rows = cur.fetchall()
        if not rows:
            raise ImportRefused(f"this database has no table {table}")
        skipped = [name for name, skip, *_ in rows if skip]
        key = tuple(name for name, _, pk, *_ in rows if pk)
        columns = tuple(name for name, *_ in rows)
        return cls(columns, tuple(c for c in columns if c not in skipped), key, skipped,
                   {name: kind for name, _, _, kind, _ in rows}, rows[0][4])
