"""Minimal TOML writer for configs derived from another (tests and benchmarks that change a few keys of an
elf.toml): strings, numbers, bools, arrays, tables."""

from __future__ import annotations

import json
from typing import Any

# Map-valued keys written as inline tables; every other dict is a [section].
INLINE_MAPS = {"default_headers", "project_descriptions", "scope_descriptions"}


def value(v: Any) -> str:
    """One TOML value: a string, number, bool, array or (inline) table."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def dumps(data: dict, prefix: str = "") -> str:
    is_section = {k: isinstance(v, dict) and k not in INLINE_MAPS for k, v in data.items()}
    lines = [f"[{prefix}]"] if prefix else []
    lines += [f"{json.dumps(k)} = {value(v)}" for k, v in data.items() if not is_section[k]]
    for k, v in data.items():
        if is_section[k]:
            lines.append(dumps(v, f"{prefix}.{json.dumps(k)}" if prefix else json.dumps(k)))
    return "\n".join(lines) + "\n"
