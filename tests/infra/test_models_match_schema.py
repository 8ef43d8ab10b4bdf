"""The unmanaged Django models mirror sql/: every model's columns are exactly its table's columns."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import connection

from elf_project.db_init import expected_tables

OUR_APPS = ("memory", "docs_ext", "graph", "traces", "search", "core_memory", "context")


def _our_models():
    return [m for label in OUR_APPS for m in apps.get_app_config(label).get_models()]


def _table_columns(table: str) -> set[str]:
    with connection.cursor() as cur:
        cur.execute("SELECT column_name FROM information_schema.columns WHERE table_name = %s", [table])
        return {row[0] for row in cur.fetchall()}


def test_every_table_has_a_model():
    assert {m._meta.db_table for m in _our_models()} == set(expected_tables())


@pytest.mark.django_db
@pytest.mark.parametrize("model", _our_models(), ids=lambda m: m._meta.db_table)
def test_model_columns_match_table(model):
    columns = {f.column for f in model._meta.concrete_fields if f.column}
    assert columns == _table_columns(model._meta.db_table)
    assert model.objects.count() >= 0  # the ORM can query the table through the model
