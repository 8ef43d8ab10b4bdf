"""Shapes of the public graph read API (beyond the spec): GET /v2/graph/facts and GET /v2/graph/entities/{id}."""

from __future__ import annotations

from rest_framework import serializers

from elf_kernel.api.strict import StrictSerializer

STATES = ("current", "historical", "future", "all")
MAX_FACTS = 200


class FactQuerySerializer(StrictSerializer):
    subject = serializers.CharField(required=False, max_length=256, help_text="an entity's name or alias")
    predicate = serializers.CharField(required=False, max_length=256, help_text="a predicate's name or alias")
    as_of = serializers.DateTimeField(required=False, help_text="RFC 3339; default now: what was true then")
    state = serializers.ChoiceField(choices=STATES, default="current",
                                    help_text="current (valid at as_of), historical (ended by as_of), future, all")
    limit = serializers.IntegerField(min_value=1, max_value=MAX_FACTS, default=50)


class FactEntitySerializer(serializers.Serializer):
    entity_id = serializers.UUIDField()
    canonical = serializers.CharField()
    kind = serializers.CharField(allow_null=True)


class FactObjectSerializer(serializers.Serializer):
    entity = FactEntitySerializer(allow_null=True)
    value = serializers.CharField(allow_null=True)


class SupersessionLinkSerializer(serializers.Serializer):
    fact_id = serializers.UUIDField()
    note_id = serializers.UUIDField(help_text="the note whose write closed the earlier fact")
    effective_at = serializers.DateTimeField()


class FactSerializer(serializers.Serializer):
    fact_id = serializers.UUIDField()
    scope = serializers.CharField()
    subject = FactEntitySerializer()
    predicate = serializers.CharField()
    predicate_id = serializers.UUIDField()
    object = FactObjectSerializer()
    valid_from = serializers.DateTimeField()
    valid_to = serializers.DateTimeField(allow_null=True)
    state = serializers.ChoiceField(choices=STATES[:3])
    evidence_note_ids = serializers.ListField(child=serializers.UUIDField(),
                                              help_text="evidence notes the caller may read (active, unexpired)")
    supersedes = SupersessionLinkSerializer(many=True)
    superseded_by = SupersessionLinkSerializer(many=True)


class FactListSerializer(serializers.Serializer):
    as_of = serializers.DateTimeField()
    state = serializers.ChoiceField(choices=STATES)
    facts = FactSerializer(many=True)


class EntityDetailSerializer(serializers.Serializer):
    entity_id = serializers.UUIDField()
    canonical = serializers.CharField()
    kind = serializers.CharField(allow_null=True)
    aliases = serializers.ListField(child=serializers.CharField())
    current_facts = FactSerializer(many=True)
    history = FactSerializer(many=True, help_text="facts no longer (or not yet) valid, newest first")
