"""elf_kernel.api.fast_output renders exactly what DRF's own rendering of the same declared fields renders."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta, timezone

from rest_framework import serializers

from core_memory.api.serializers import ResolveOut
from elf_kernel.api.fast_output import FastOutput


def _plain_twin(cls):
    """The same fields on a plain DRF Serializer (nested FastOutputs made plain too)."""
    fields = {}
    for name, f in cls().fields.items():
        if isinstance(f, serializers.ListSerializer) and isinstance(f.child, FastOutput):
            fields[name] = _plain_twin(type(f.child))(many=True)
        elif isinstance(f, FastOutput):
            fields[name] = _plain_twin(type(f))(allow_null=True)
        else:
            fields[name] = f.__class__(*f._args, **f._kwargs)
    return type("Plain" + cls.__name__, (serializers.Serializer,), fields)


def test_resolve_output_renders_like_drf():
    t = datetime(2026, 2, 7, 11, 0, 0, 123456, tzinfo=timezone(timedelta(hours=7)))
    data = {"resolved_at": datetime(2026, 2, 7, tzinfo=UTC), "items": [
        {"key": "a", "found": True, "value": "x", "provenance": {
            "scope": "profile", "kind": "preference", "priority": 70, "updated_at": t, "source": "user_explicit",
            "ttl": "8h", "expires_at": t + timedelta(hours=8)}},
        {"key": "b", "found": True, "value": "y", "provenance": {
            "scope": "policy", "kind": None, "priority": None, "updated_at": None, "source": None, "ttl": None,
            "expires_at": None}},
        {"key": "c", "found": False, "value": None, "provenance": None},
    ]}
    fast = ResolveOut(data).data
    assert fast == _plain_twin(ResolveOut)(data).data
    assert fast["items"][0]["provenance"]["updated_at"] == "2026-02-07T04:00:00.123456Z"


def test_objects_uuids_and_choices_render_like_drf():
    class Out(FastOutput):
        id = serializers.UUIDField()
        mode = serializers.ChoiceField(choices=["a", "b"])
        n = serializers.IntegerField()
        score = serializers.FloatField()
        ok = serializers.BooleanField()
        when = serializers.DateTimeField(allow_null=True)

    class Row:
        id, mode, n, score, ok, when = uuid.uuid4(), "b", 3, 0.25, False, None

    assert Out(Row()).data == _plain_twin(Out)(Row()).data == {
        "id": str(Row.id), "mode": "b", "n": 3, "score": 0.25, "ok": False, "when": None}
