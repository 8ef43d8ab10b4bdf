"""An output serializer for responses of hundreds of items: the same declared fields (so the OpenAPI document is
still this serializer), rendered without DRF's per-field machinery for plain field types.

Measured on core memory's resolve of 350 keys: DRF's nested rendering took 6.8 ms of a 12.7 ms request; this one
renders the same JSON (tests/kernel/test_fast_output.py compares them) in a fraction of that.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC
from typing import Any

from rest_framework import serializers


def _datetime(value) -> str:
    # DRF's DateTimeField under USE_TZ and UTC: the time in UTC, isoformat, "+00:00" written "Z"; a string is
    # taken as already rendered (as DRF does).
    if isinstance(value, str):
        return value
    text = value.astimezone(UTC).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


_PLAIN: tuple[tuple[type, Callable[[Any], Any]], ...] = (
    (serializers.BooleanField, bool),
    (serializers.IntegerField, int),
    (serializers.FloatField, float),
    (serializers.DateTimeField, _datetime),
    (serializers.UUIDField, str),
    (serializers.ChoiceField, str),
    (serializers.CharField, str),
)


def _converter(field: serializers.Field) -> Callable[[Any], Any]:
    if isinstance(field, FastOutput):
        return field.to_representation
    if isinstance(field, serializers.ListSerializer) and isinstance(field.child, FastOutput):
        child = field.child.to_representation
        return lambda items: [child(item) for item in items]
    for kind, convert in _PLAIN:
        if type(field) is kind or (kind is serializers.ChoiceField and isinstance(field, kind)):
            return convert
    return field.to_representation


class FastOutput(serializers.Serializer):
    """Renders dicts or objects by the declared fields; a None value stays None (fields here are allow_null or
    always set)."""

    def to_representation(self, instance):
        plan = self.__dict__.get("_plan")
        if plan is None:
            plan = self.__dict__["_plan"] = [(name, _converter(f)) for name, f in self.fields.items()]
        if isinstance(instance, dict):
            get = instance.get
        else:
            def get(name):
                return getattr(instance, name)
        out = {}
        for name, convert in plan:
            value = get(name)
            out[name] = None if value is None else convert(value)
        return out
