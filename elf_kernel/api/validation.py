"""Serializer validation that fails with the spec's error body: every bad field as a JSONPath."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from elf_domain.jsonpath import member_path

from ..errors import InvalidRequest, first_message, jsonpaths

NULL_CHARACTER = "\x00"


def null_character_paths(data: Any, path: str = "$") -> Iterator[str]:
    """JSONPaths of the member names and strings holding U+0000, which Postgres stores in neither text nor
    jsonb: a free-form JSON field (a source_ref, an ingestion profile, a tool call's args) would reach the
    database with it and fail there."""
    if isinstance(data, str):
        if NULL_CHARACTER in data:
            yield path
    elif isinstance(data, Mapping):
        for key, value in data.items():
            child = member_path(path, str(key))
            if NULL_CHARACTER in str(key):
                yield child
            else:
                yield from null_character_paths(value, child)
    elif isinstance(data, (list, tuple)):
        for i, value in enumerate(data):
            yield from null_character_paths(value, f"{path}[{i}]")


def validated(serializer_cls, data, prefix: str = "$") -> dict:
    """Validate ``data`` (a body, or query parameters with prefix ``$.query``) or raise 400 INVALID_REQUEST."""
    nul = list(null_character_paths(data, prefix))
    if nul:
        raise InvalidRequest("Invalid request: Null characters are not allowed.", nul)
    ser = serializer_cls(data=data)
    if not ser.is_valid():
        raise InvalidRequest(f"Invalid request: {first_message(ser.errors)}", jsonpaths(ser.errors, prefix))
    return ser.validated_data
