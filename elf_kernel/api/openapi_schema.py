"""drf-spectacular's AutoSchema, told three rules the API enforces that it does not see by itself, so that
the OpenAPI document (and elf-mcp's tool schemas, which are built from it) says what a request may hold:

- a StrictSerializer request body answers 400 "Unknown field." for any other key: ``additionalProperties:
  false`` on its schema;
- a nested ``many=True`` serializer checks ``allow_empty``, ``min_length`` and ``max_length`` itself (not
  through validators, which is all drf-spectacular reads), and so does a ListField's ``allow_empty``:
  ``minItems``/``maxItems``;
- an operation whose query serializer is a StrictSerializer rejects unknown query parameters, which
  OpenAPI 3.0 cannot express: the vendor extension ``x-elf-strict-query: true`` on the operation.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import force_instance, is_list_serializer
from rest_framework import serializers

from .strict import StrictSerializer

# elf_mcp.openapi_doc reads this key (elf-mcp imports no Django, so the spelling is repeated there).
STRICT_QUERY = "x-elf-strict-query"


class ElfAutoSchema(AutoSchema):
    def get_operation(self, path, path_regex, path_prefix, method, registry) -> dict[str, Any] | None:
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is not None and any(_is_strict(p) for p in self.get_override_parameters()):
            operation[STRICT_QUERY] = True
        return operation

    def _map_serializer(self, serializer, direction, bypass_extensions=False) -> dict[str, Any]:
        schema = super()._map_serializer(serializer, direction, bypass_extensions)
        if direction == "request" and _is_strict(serializer) and schema.get("type") == "object":
            schema["additionalProperties"] = False
        return schema

    def _map_serializer_field(self, field, direction, bypass_extensions=False) -> dict[str, Any] | None:
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if schema is not None and _is_list(field):
            _array_bounds(schema, field)
        return schema


def _is_strict(obj: Any) -> bool:
    return isinstance(obj, StrictSerializer) or (isinstance(obj, type) and issubclass(obj, StrictSerializer))


def _is_list(field: Any) -> bool:
    return is_list_serializer(field) or isinstance(force_instance(field), serializers.ListField)


def _array_bounds(schema: dict[str, Any], field: Any) -> None:
    """minItems/maxItems from the field's own checks, kept when drf-spectacular already set them tighter."""
    low = getattr(field, "min_length", None)
    if not getattr(field, "allow_empty", True):
        low = max(low or 0, 1)
    if low is not None:
        schema["minItems"] = max(schema.get("minItems", 0), low)
    high = getattr(field, "max_length", None)
    if high is not None:
        schema["maxItems"] = min(schema.get("maxItems", high), high)
