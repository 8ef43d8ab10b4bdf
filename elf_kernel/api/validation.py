"""Serializer validation that fails with the spec's error body: every bad field as a JSONPath."""

from __future__ import annotations

from ..errors import InvalidRequest, first_message, jsonpaths


def validated(serializer_cls, data, prefix: str = "$") -> dict:
    """Validate ``data`` (a body, or query parameters with prefix ``$.query``) or raise 400 INVALID_REQUEST."""
    ser = serializer_cls(data=data)
    if not ser.is_valid():
        raise InvalidRequest(f"Invalid request: {first_message(ser.errors)}", jsonpaths(ser.errors, prefix))
    return ser.validated_data
