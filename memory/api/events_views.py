"""POST /v2/events/ingest (add_event): validation, the English gate and write policies happen before the
single extractor call, so an invalid request never reaches the extractor."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_infra.providers.factory import build_embedding
from elf_kernel.api.schema_docs import CONTEXT_HEADERS
from elf_kernel.api.validation import validated
from elf_kernel.api.schema_docs import error_responses
from elf_domain.limits import MAX_PROFILE_VERSION
from elf_kernel.context import RequestContext, context_from_request
from elf_kernel.errors import InvalidRequest
from elf_kernel.runtime import get_config

from elf_domain.write_policy import WritePolicyError, apply_write_policy, parse_write_policy
from ..services.events import EventMessage, EventOutcome, ingest_event
from ..services.ingestion_profiles import resolve_profile
from elf_kernel.api.english_fields import IDENTIFIER, NATURAL, require_english
from .note_serializers import SCOPE_ALIASES, NoteResultSerializer
from elf_kernel.api.strict import StrictSerializer

MAX_MESSAGES = 100
# add_event's own error status, beyond ERROR_RESPONSES (the v1 route answers it too).
EVENT_ERRORS = error_responses({502: "The extractor provider failed or answered nothing usable (EXTRACTOR_FAILED)"})
MAX_MESSAGE_CHARS = 16000


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
    messages = EventMessageSerializer(many=True, allow_empty=False, max_length=MAX_MESSAGES)

    def validate_scope(self, value):
        return SCOPE_ALIASES.get(value, value)


class EventResultSerializer(NoteResultSerializer):
    reason = serializers.CharField(allow_null=True)
    write_policy_audits = serializers.ListField(child=serializers.JSONField())


class ProfileUsedSerializer(serializers.Serializer):
    id = serializers.CharField(help_text='the stored profile used, or "builtin" for the built-in profile')
    version = serializers.IntegerField()


class EventIngestResponseSerializer(serializers.Serializer):
    ingestion_profile = ProfileUsedSerializer(help_text="the profile actually used (request, project default or built-in)")
    dry_run = serializers.BooleanField()
    extracted = serializers.JSONField()
    results = EventResultSerializer(many=True)


def add_event_body(ctx: RequestContext, data: dict) -> EventOutcome:
    """add_event from a validated body (messages, scope, dry_run, ingestion_profile): write policies and the
    English gate, then the one extractor call. Shared by POST /v2/events/ingest and the deprecated
    POST /v1/memory/add_event."""
    msgs = data["messages"]
    messages = []
    for i, m in enumerate(msgs):  # write_policy first: nothing else sees excluded or redacted text
        content, audit = m["content"], None
        if "write_policy" in m:
            try:
                policy = parse_write_policy(m["write_policy"], content, f"$.messages[{i}].write_policy")
            except WritePolicyError as exc:
                raise InvalidRequest(exc.message, [exc.path]) from None
            content, audit = apply_write_policy(content, policy)
        messages.append(EventMessage(role=m["role"], original=m["content"], content=content, audit=audit,
                                     ts=m.get("ts"), msg_id=m.get("msg_id")))
    fields = [(f"$.messages[{i}].content", m.content, NATURAL) for i, m in enumerate(messages)]
    fields += [(f"$.messages[{i}].msg_id", m.msg_id, IDENTIFIER) for i, m in enumerate(messages) if m.msg_id]
    if data.get("scope"):
        fields.append(("$.scope", data["scope"], IDENTIFIER))
    require_english(fields)
    cfg = get_config()
    scope = data.get("scope")  # a scope outside scopes.allowed is REJECT_SCOPE_DENIED per note, as in add_note
    profile = resolve_profile(ctx, data.get("ingestion_profile"))
    return ingest_event(cfg=cfg, ctx=ctx, scope=scope, messages=messages, dry_run=data["dry_run"],
                        resolved_profile=profile, embedder=build_embedding(cfg))


class EventsIngestView(APIView):
    @extend_schema(summary="add_event: one extractor call, verbatim evidence for every kept note", operation_id="elf_events_ingest",
                   parameters=CONTEXT_HEADERS, request=EventIngestSerializer,
                   responses={200: EventIngestResponseSerializer, **EVENT_ERRORS})
    def post(self, request):
        ctx = context_from_request(request)
        data = validated(EventIngestSerializer, request.data)
        outcome = add_event_body(ctx, data)
        return Response({"ingestion_profile": outcome.profile, "extracted": outcome.extracted,
                         "results": outcome.results, "dry_run": data["dry_run"]})
