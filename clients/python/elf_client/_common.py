"""Helpers both clients share (plain functions: nothing here is async)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class _Unset:
    """The default of an argument where ``None`` means something (e.g. ``ttl_days=None``: no TTL)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Any = _Unset()


def operation(*operation_ids: str) -> Callable[[F], F]:
    """Marks the API operations (operationIds of the OpenAPI document) a client method calls."""

    def mark(fn: F) -> F:
        fn.__elf_operations__ = tuple(operation_ids)  # type: ignore[attr-defined]
        return fn

    return mark


def body(**fields: Any) -> dict[str, Any]:
    """A JSON body of the fields that are given: None (and UNSET) fields are left out."""
    return {k: v for k, v in fields.items() if v is not None and v is not UNSET}


def message(item: Any) -> dict[str, Any]:
    """A message of add_event: a dict as it is, a string as a user message."""
    if isinstance(item, str):
        return {"role": "user", "content": item}
    return dict(item)
