"""Rows of several tables inserted in one statement: one round trip where ``bulk_create`` makes one per table.

Each model's rows are Django's own INSERT (the SQL ``bulk_create`` would send, defaults and ``db_default``
columns included) as a data-modifying CTE of a single statement. Foreign keys between the tables are
checked at the end of the statement, so a row may reference one inserted beside it. Nothing is read back:
primary keys must be set already (uuid4 defaults are, on instantiation).
"""

from __future__ import annotations

from django.db import connection
from django.db.models import Model
from django.db.models.sql import InsertQuery


def insert_together(batches: list[tuple[type[Model], list[Model]]],
                    also: tuple[list[str], list] = ([], [])) -> None:
    """Insert every ``(model, unsaved rows)`` batch, in one statement; the rows are then saved instances.
    ``also``: further named CTE parts (``name AS (...)``, data-modifying) and their positional parameters, run
    in the same statement after the batches."""
    parts, params = [], []
    for model, objs in batches:
        if not objs:
            continue
        query = InsertQuery(model)
        query.insert_values([f for f in model._meta.concrete_fields if not f.generated], objs)
        ((sql, values),) = query.get_compiler(connection=connection).as_sql()
        parts.append(f"rows_{len(parts)} AS ({sql})")
        params.extend(values)
    parts.extend(also[0])
    params.extend(also[1])
    if not parts:
        return
    with connection.cursor() as cur:
        cur.execute("WITH " + ", ".join(parts) + " SELECT 1", params)
    for _, objs in batches:
        for obj in objs:
            obj._state.adding, obj._state.db = False, connection.alias
