"""Every config key is documented in docs/configuration.md, and every documented key exists (issue 34, part 2).

The keys are read from the schema the loader parses with (elf_config/schema.py: each dataclass is one TOML table
and its field names are the keys; ``[[security.auth_keys]]`` entries are written ``security.auth_keys[].key``),
and from elf.toml.example. docs/configuration.md's "Every key" tables name one key per row, its full dotted path
in backticks in the first cell. Pure: no stack needed.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
import types
import typing
from pathlib import Path
from typing import Any, Union

from elf_config.schema import ElfConfig

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "configuration.md"
EXAMPLE = REPO / "elf.toml.example"
# Fields of ElfConfig that are not keys of the file (the loader skips them).
NOT_KEYS = {"source_path"}


def _unwrap(tp: Any) -> Any:
    """Optional[X] -> X; list[X] -> (list, X)."""
    if typing.get_origin(tp) in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            tp = args[0]
    return tp


def schema_keys(cls: type = ElfConfig, prefix: str = "") -> set[str]:
    """Every leaf key path of the schema: a table (dataclass) is walked, anything else is a key (a dict-typed
    field such as ``scopes.read_profiles`` is one key whose entries are free)."""
    keys: set[str] = set()
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if not prefix and f.name in NOT_KEYS:
            continue
        path = f"{prefix}{f.name}"
        tp = _unwrap(hints[f.name])
        if dataclasses.is_dataclass(tp):
            keys |= schema_keys(tp, path + ".")
        elif typing.get_origin(tp) is list and dataclasses.is_dataclass(typing.get_args(tp)[0]):
            keys |= schema_keys(typing.get_args(tp)[0], path + "[].")
        else:
            keys.add(path)
    return keys


def example_keys(table: dict, prefix: str = "") -> set[str]:
    """Every leaf key path of a parsed TOML file (a table's entries, an array of tables' entries as ``[]``)."""
    keys: set[str] = set()
    for name, value in table.items():
        path = f"{prefix}{name}"
        if isinstance(value, dict) and value:
            keys |= example_keys(value, path + ".")
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for entry in value:
                keys |= example_keys(entry, path + "[].")
        else:
            keys.add(path)
    return keys


def documented_keys() -> set[str]:
    """The first-cell keys of every table row under docs/configuration.md's "Every key" heading."""
    text = PAGE.read_text(encoding="utf-8").split("## Every key", 1)[1]
    keys = set()
    for line in text.splitlines():
        m = re.match(r"^\|\s*`([a-z_][\w.\[\]]*)`\s*\|", line)
        if m:
            keys.add(m.group(1))
    return keys


def _covered(key: str, documented: set[str]) -> bool:
    """A key is documented by its own row, or by the row of a dict-typed key above it (scopes.read_profiles
    documents scopes.read_profiles.private_only)."""
    parts = key.split(".")
    return any(".".join(parts[:i]) in documented for i in range(len(parts), 0, -1))


def test_the_schema_walk_finds_the_keys_it_should():
    keys = schema_keys()
    for key in ("service.http_bind", "storage.qdrant.vector_dim", "security.auth_keys[].token",
                "search.graph_context.max_facts_per_item", "scopes.read_profiles", "memory.policy.min_confidence"):
        assert key in keys
    assert "source_path" not in keys and not any(k.endswith(".policy") for k in keys)


def test_every_schema_key_has_a_row_in_docs_configuration():
    missing = sorted(schema_keys() - documented_keys())
    assert not missing, (
        "config keys docs/configuration.md does not document (add a row under 'Every key'): " + ", ".join(missing)
    )


def test_every_documented_key_exists_in_the_schema():
    stale = sorted(documented_keys() - schema_keys())
    assert not stale, "docs/configuration.md documents keys the config does not have: " + ", ".join(stale)


def test_every_key_of_elf_toml_example_is_documented():
    documented = documented_keys()
    keys = example_keys(tomllib.loads(EXAMPLE.read_text(encoding="utf-8")))
    assert keys, "elf.toml.example holds no key"
    missing = sorted(k for k in keys if not _covered(k, documented))
    assert not missing, "keys of elf.toml.example without a row in docs/configuration.md: " + ", ".join(missing)


def test_every_table_of_the_schema_has_a_heading_in_docs_configuration():
    text = PAGE.read_text(encoding="utf-8").split("## Every key", 1)[1]
    headings = " ".join(line for line in text.splitlines() if line.startswith("### "))
    tables = {k.split(".")[0] for k in schema_keys()}
    missing = sorted(t for t in tables if f"`[{t}" not in headings)
    assert not missing, "tables without a '### `[table]`' heading in docs/configuration.md: " + ", ".join(missing)
