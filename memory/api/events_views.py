"""POST /v2/events/ingest (add_event): the body's shapes are validated here; its use case
(memory.services.events.add_event) applies the write policies and the English gate before the single extractor
call, so an invalid request never reaches the extractor."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_domain.limits import MAX_EVENT_MESSAGES, MAX_MESSAGE_CHARS, MAX_PROFILE_VERSION
from elf_domain.spaces import SCOPE_ALIASES
from elf_kernel.api.schema_docs import CONTEXT_HEADERS, error_responses
from elf_kernel.api.strict import StrictSerializer
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request
from elf_kernel.runtime import get_config

from ..services.events import add_event
from .note_serializers import NoteResultSerializer

# add_event's own error status, beyond ERROR_RESPONSES (the v1 route answers it too).
EVENT_ERRORS = error_responses({502: "The extractor provider failed or answered nothing usable (EXTRACTOR_FAILED)"})


class ProfileRefSerializer(StrictSerializer):
    id = serializers.CharField(max_length=128)
    version = serializers.IntegerField(required=False, min_value=1, max_value=MAX_PROFILE_VERSION)


class EventMessageSerializer(StrictSerializer):
    role = serializers.ChoiceField(choices=["user", "assistant", "tool"])
    content = serializers.CharField(max_length=MAX_MESSAGE_CHARS, allow_blank=True, trim_whitespace=False)
    ts = serializers.CharField(required=False, max_length=64)
    msg_id = serializers.CharField(required=False, max_length=128)
    write_policy = serializers.JSONField(required=False, help_text="supplement section 5: exclusions, redactions")


class EventIngestSerializer(StrictSerializer):
    scope = serializers.CharField(required=False)
    dry_run = serializers.BooleanField(required=False, default=False)
    ingestion_profile = ProfileRefSerializer(required=False)
    messages = EventMessageSerializer(many=True, allow_empty=False, max_length=MAX_EVENT_MESSAGES)

    def validate_scope(self, value):
        return SCOPE_ALIASES.get(value, value)


class EventResultSerializer(NoteResultSerializer):
    reason = serializers.CharField(allow_null=True)
    write_policy_audits = serializers.ListField(child=serializers.JSONField())


class ProfileUsedSerializer(serializers.Serializer):
    id = serializers.CharField(help_text='the stored profile used, or "builtin" for the built-in profile')
    version = serializers.IntegerField()


class EventIngestResponseSerializer(serializers.Serializer):
    ingestion_profile = ProfileUsedSerializer(
        help_text="the profile actually used (request, project default or built-in)"
    )
    dry_run = serializers.BooleanField()
    extracted = serializers.JSONField()
    results = EventResultSerializer(many=True)


class EventsIngestView(APIView):
    @extend_schema(
        summary="add_event: one extractor call, verbatim evidence for every kept note",
        operation_id="elf_events_ingest",
        parameters=CONTEXT_HEADERS,
        request=EventIngestSerializer,
        responses={200: EventIngestResponseSerializer, **EVENT_ERRORS},
    )
    def post(self, request):
        ctx = context_from_request(request)
        data = validated(EventIngestSerializer, request.data)
        outcome = add_event(
            cfg=get_config(),
            ctx=ctx,
            scope=data.get("scope"),
            messages=data["messages"],
            dry_run=data["dry_run"],
            ingestion_profile=data.get("ingestion_profile"),
        )
        return Response(
            {
                "ingestion_profile": outcome.profile,
                "extracted": outcome.extracted,
                "results": outcome.results,
                "dry_run": data["dry_run"],
            }
        )
