"""A request field that must be a JSON object (a dict after parsing) of bounded size, documented as such.

``serializers.JSONField`` accepts any JSON value and drf-spectacular documents it as "any"; columns that hold
objects (``source_ref`` of notes and documents) would then refuse a list or a string in Postgres, as a 500.
"""

from __future__ import annotations

import json

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers


@extend_schema_field({"type": "object", "additionalProperties": {}})
class JSONObjectField(serializers.JSONField):
    default_error_messages = {
        "not_object": "Must be a JSON object.",
        "too_large": "Must be at most {max_bytes} bytes as JSON.",
    }

    def __init__(self, *, max_bytes: int, **kwargs):
        self.max_bytes = max_bytes
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not isinstance(value, dict):
            self.fail("not_object")
        if len(json.dumps(value, ensure_ascii=False).encode()) > self.max_bytes:
            self.fail("too_large", max_bytes=self.max_bytes)
        return value
