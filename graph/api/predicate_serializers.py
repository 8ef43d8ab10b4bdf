"""Request and response shapes of the predicate admin endpoints (spec v2 section 14).

The response serializers render the model rows, so what the endpoints answer is what the OpenAPI document
(and elf-mcp's tools, built from it) says.
"""

from __future__ import annotations

from rest_framework import serializers

from elf_kernel.api.strict import StrictSerializer

from ..domain.rules import Cardinality, PredicateStatus
from ..selectors.predicates import PredicateScope

# An alias is a short phrase ("works for"); the cap keeps the unique index's keys small.
MAX_ALIAS_CHARS = 256
STATUSES = [s.value for s in PredicateStatus]
CARDINALITIES = [c.value for c in Cardinality]


# --- requests -----------------------------------------------------------------------------------------------


class PredicateListQuery(StrictSerializer):
    scope = serializers.ChoiceField(
        choices=[s.value for s in PredicateScope], default=PredicateScope.ALL.value,
        help_text="tenant_project: this tenant and project (scope_key tenant:project); project: this project "
        "(__project__:project); global (__global__); all: the three.",
    )


class PredicatePatchBody(StrictSerializer):
    status = serializers.ChoiceField(
        choices=STATUSES, required=False, allow_null=True,
        help_text="Allowed moves: pending->active, pending->deprecated, active->deprecated; the current status "
        "is a no-op. Omitted or null: unchanged.",
    )
    cardinality = serializers.ChoiceField(
        choices=CARDINALITIES, required=False, allow_null=True, help_text="Omitted or null: unchanged."
    )

    def validate(self, attrs):
        if attrs.get("status") is None and attrs.get("cardinality") is None:
            raise serializers.ValidationError("Give status or cardinality (at least one not null).")
        return attrs


class PredicateAliasBody(StrictSerializer):
    alias = serializers.CharField(
        max_length=MAX_ALIAS_CHARS,
        help_text="Matched by its normalised form (trimmed, whitespace collapsed, lowercased) within the "
        "predicate's scope.",
    )


# --- responses ----------------------------------------------------------------------------------------------


class PredicateOut(serializers.Serializer):
    predicate_id = serializers.UUIDField()
    scope_key = serializers.CharField(help_text="tenant:project, __project__:project or __global__")
    tenant_id = serializers.CharField(allow_null=True)
    project_id = serializers.CharField(allow_null=True)
    canonical = serializers.CharField()
    canonical_norm = serializers.CharField()
    cardinality = serializers.ChoiceField(choices=CARDINALITIES)
    status = serializers.ChoiceField(choices=STATUSES)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class PredicateListOut(serializers.Serializer):
    predicates = PredicateOut(many=True)


class PredicateAliasOut(serializers.Serializer):
    alias_id = serializers.UUIDField()
    predicate_id = serializers.UUIDField()
    scope_key = serializers.CharField()
    alias = serializers.CharField()
    alias_norm = serializers.CharField()
    created_at = serializers.DateTimeField()


class PredicateAliasesOut(serializers.Serializer):
    predicate_id = serializers.UUIDField()
    aliases = PredicateAliasOut(many=True)
