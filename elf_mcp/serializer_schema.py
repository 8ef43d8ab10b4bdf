"""JSON Schema (2020-12 subset) of a DRF request serializer: the tool input schemas come from the very
serializers elf-api validates with, so a field added to the API shows up in the tools without a second copy.

Only shape and documentation are carried over (types, required, enums, bounds, help texts). Cross-field
rules written in ``validate()`` stay in the API, which is the only place anything is enforced.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.fields import empty

from elf_kernel.api.strict import StrictSerializer


def serializer_schema(serializer: type[serializers.Serializer] | serializers.Serializer) -> dict[str, Any]:
    """The object schema of a serializer class (or instance): one property per writable field."""
    instance = serializer() if isinstance(serializer, type) else serializer
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, field in instance.fields.items():
        if field.read_only:
            continue
        properties[name] = field_schema(field)
        if field.required:
            required.append(name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if isinstance(instance, StrictSerializer):
        schema["additionalProperties"] = False  # the API answers 400 "Unknown field." for any other key
    return schema


def field_schema(field: serializers.Field) -> dict[str, Any]:
    schema = _typed(field)
    if field.allow_null:
        schema = _nullable(schema)
    if field.help_text:
        schema["description"] = str(field.help_text)
    default = getattr(field, "default", empty)
    if default is not empty and not callable(default):
        schema["default"] = default
    return schema


def _typed(field: serializers.Field) -> dict[str, Any]:
    # Order matters: ListSerializer and Serializer are Fields too, ChoiceField is not a CharField.
    if isinstance(field, serializers.ListSerializer):
        return _array(serializer_schema(field.child), field)
    if isinstance(field, serializers.Serializer):
        return serializer_schema(field)
    if isinstance(field, serializers.ListField):
        return _array(field_schema(field.child), field)
    if isinstance(field, serializers.DictField):
        return {"type": "object", "additionalProperties": field_schema(field.child)}
    if isinstance(field, serializers.JSONField):
        return {}  # any JSON value; the help text says what the API expects
    if isinstance(field, serializers.ChoiceField):
        choices = list(field.choices)
        return {"type": "string", "enum": choices} if all(isinstance(c, str) for c in choices) else {"enum": choices}
    if isinstance(field, serializers.BooleanField):
        return {"type": "boolean"}
    if isinstance(field, serializers.IntegerField):
        return _bounded({"type": "integer"}, field)
    if isinstance(field, serializers.FloatField):
        return _bounded({"type": "number"}, field)
    if isinstance(field, serializers.UUIDField):
        return {"type": "string", "format": "uuid"}
    if isinstance(field, serializers.DateTimeField):
        return {"type": "string", "format": "date-time"}
    if isinstance(field, serializers.DateField):
        return {"type": "string", "format": "date"}
    if isinstance(field, serializers.CharField):
        schema: dict[str, Any] = {"type": "string"}
        if field.max_length is not None:
            schema["maxLength"] = field.max_length
        if field.min_length is not None:
            schema["minLength"] = field.min_length
        return schema
    raise TypeError(f"no JSON Schema mapping for {type(field).__name__} ({field.field_name})")


def _array(items: dict[str, Any], field: serializers.Field) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "array", "items": items}
    min_items = getattr(field, "min_length", None)
    if not getattr(field, "allow_empty", True):
        min_items = max(min_items or 0, 1)
    if min_items is not None:
        schema["minItems"] = min_items
    if getattr(field, "max_length", None) is not None:
        schema["maxItems"] = field.max_length
    return schema


def _bounded(schema: dict[str, Any], field: serializers.Field) -> dict[str, Any]:
    if field.min_value is not None:
        schema["minimum"] = field.min_value
    if field.max_value is not None:
        schema["maximum"] = field.max_value
    return schema


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """Every mapped schema is either empty (any JSON value, null included) or has a single type name."""
    out = dict(schema)
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    if "type" in out:
        out["type"] = [out["type"], "null"]
    return out
