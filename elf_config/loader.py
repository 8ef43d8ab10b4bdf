"""Turn elf.toml into an ``ElfConfig``, reporting every problem at once with its key path."""

from __future__ import annotations

import dataclasses
import math
import sys
import tomllib
import types
import typing
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any, Union

from .rules import check_rules
from .schema import AUTO, AutoInt, ElfConfig


class ConfigError(Exception):
    """Start-up configuration failure; ``problems`` lists one message per key path."""

    def __init__(self, path: str, problems: list[str]):
        self.path = path
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"invalid config {path}:\n{lines}")


def load_config(path: str | Path) -> ElfConfig:
    """Read and validate ``path``. Raises ``ConfigError`` listing every invalid or missing key."""
    p = Path(path)
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(str(p), [f"config file not found: {p}"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(p), [f"config file unreadable: {exc}"]) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(p), [f"not valid TOML: {exc}"]) from None
    problems: list[str] = []
    values = _parse_table(ElfConfig, raw, "", problems, skip={"source_path"})
    if problems:
        raise ConfigError(str(p), problems)
    cfg = ElfConfig(**values, source_path=str(p.resolve()))
    problems = check_rules(cfg)
    if problems:
        raise ConfigError(str(p), problems)
    return cfg


def load_or_exit(path: str | Path) -> ElfConfig:
    """Load the config, or print every problem and exit with status 2 (what every entry point does)."""
    try:
        return load_config(path)
    except ConfigError as exc:
        print(f"elf: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def _unwrap_optional(tp: Any) -> tuple[Any, bool]:
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return tp, False


def _has_default(f: dataclasses.Field) -> bool:
    return f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING


def _parse_table(cls: type, raw: Any, prefix: str, problems: list[str], skip: AbstractSet[str] = frozenset()) -> dict:
    if not isinstance(raw, dict):
        problems.append(f"{prefix} must be a table")
        return {}
    hints = typing.get_type_hints(cls)
    fields = [f for f in dataclasses.fields(cls) if f.name not in skip]
    known = {f.name for f in fields}
    for key in raw:
        if key not in known:
            problems.append(f"{_join(prefix, key)} is not a known key")
    out: dict[str, Any] = {}
    for f in fields:
        key_path = _join(prefix, f.name)
        tp, optional = _unwrap_optional(hints[f.name])
        if f.name not in raw:
            if _has_default(f):
                continue  # a key beyond the spec template: the dataclass default applies
            if not optional:
                problems.append(f"{key_path} is required")
            out[f.name] = None
            continue
        out[f.name] = _parse_value(tp, raw[f.name], key_path, problems)
    return out


def _parse_value(tp: Any, value: Any, key_path: str, problems: list[str]) -> Any:
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        values = _parse_table(tp, value, key_path, problems)
        try:
            return tp(**values)
        except TypeError:
            return None
    origin = typing.get_origin(tp)
    if origin is list:
        (item_tp,) = typing.get_args(tp)
        if not isinstance(value, list):
            problems.append(f"{key_path} must be an array")
            return None
        return [_parse_value(item_tp, v, f"{key_path}[{i}]", problems) for i, v in enumerate(value)]
    if origin is dict:
        _, val_tp = typing.get_args(tp)
        if not isinstance(value, dict):
            problems.append(f"{key_path} must be a table")
            return None
        return {k: _parse_value(val_tp, v, _join(key_path, k), problems) for k, v in value.items()}
    return _parse_scalar(tp, value, key_path, problems)


def _parse_scalar(tp: Any, value: Any, key_path: str, problems: list[str]) -> Any:
    if tp is bool:
        if isinstance(value, bool):
            return value
        problems.append(f"{key_path} must be a boolean")
    elif tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        problems.append(f"{key_path} must be an integer")
    elif tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if math.isfinite(value):
                return float(value)
            problems.append(f"{key_path} must be a finite number")
        else:
            problems.append(f"{key_path} must be a number")
    elif tp is str:
        if isinstance(value, str):
            return value
        problems.append(f"{key_path} must be a string")
    elif tp == AutoInt:
        if value == AUTO or (isinstance(value, int) and not isinstance(value, bool)):
            return value
        problems.append(f'{key_path} must be an integer or "{AUTO}"')
    else:  # pragma: no cover - schema programming error
        raise TypeError(f"unsupported config type {tp!r} at {key_path}")
    return None
