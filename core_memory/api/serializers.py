"""Shapes of the core memory endpoints: request bodies (strict) and the output serializers that render answers."""

from __future__ import annotations

from rest_framework import serializers

from elf_kernel.api.fast_output import FastOutput
from elf_kernel.api.strict import StrictSerializer

from ..domain.markdown import KEY_RE
from ..domain.vocabulary import (
    MAX_KEY_CHARS,
    MAX_PRIORITY,
    MAX_VALUE_CHARS,
    MIN_PRIORITY,
    Kind,
    MemoryScope,
    Source,
    UtteranceOp,
)

# Plain values in the enums' order: settings pins the OpenAPI enums (CoreMemoryScopeEnum, UtteranceOpEnum, ...) to
# these tuples by name.
PUBLIC_SCOPES = (MemoryScope.PROFILE.value, MemoryScope.SESSION.value)
POLICY_SCOPES = (MemoryScope.POLICY.value,)
ALL_SCOPES = tuple(s.value for s in MemoryScope)
UTTERANCE_OPS = tuple(o.value for o in UtteranceOp)
WRITE_STATUSES = ("written", "pending")
ADMIN_SOURCES = (Source.ADMIN.value,)
KINDS = tuple(k.value for k in Kind)
PUBLIC_SOURCE_VALUES = (Source.USER_EXPLICIT.value, Source.USER_INFERRED.value, Source.SYSTEM.value)
MAX_RESOLVE_KEYS = 500
RUN_ID_HELP = "the run (session) id: SESSION.md belongs to it; 1-128 visible ASCII characters"


def key_field(**kw):
    return serializers.RegexField(KEY_RE.pattern, max_length=MAX_KEY_CHARS,
                                  help_text="canonical key: A-Z a-z 0-9 _ . - (e.g. response.tone)", **kw)


class OneLine(serializers.CharField):
    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if "\n" in value or "\r" in value:
            raise serializers.ValidationError("A value is one line: no line breaks.")
        return value


class UpsertBody(StrictSerializer):
    scope = serializers.ChoiceField(choices=PUBLIC_SCOPES, help_text="profile (lasting) or session (one run)")
    kind = serializers.ChoiceField(choices=KINDS)
    key = key_field()
    value = OneLine(max_length=MAX_VALUE_CHARS, help_text="English, one line")
    priority = serializers.IntegerField(min_value=MIN_PRIORITY, max_value=MAX_PRIORITY, default=50)
    ttl = serializers.CharField(default="none", max_length=64,
                                help_text="none | a duration (30m, 8h, 7d) | an ISO-8601 time | session_end")
    source = serializers.ChoiceField(choices=PUBLIC_SOURCE_VALUES,
                                     help_text="user_inferred is staged as pending until confirmed")
    run_id = serializers.CharField(required=False, max_length=128, help_text=RUN_ID_HELP + " (required for "
                                   "session and user_inferred; on profile writes it files the audit row under the run)")
    reason = serializers.CharField(required=False, max_length=500, help_text="why, for the audit trail")


class PolicyUpsertBody(StrictSerializer):
    scope = serializers.ChoiceField(choices=POLICY_SCOPES)
    kind = serializers.ChoiceField(choices=KINDS, default=Kind.CONSTRAINT.value)
    key = key_field()
    value = OneLine(max_length=MAX_VALUE_CHARS)
    priority = serializers.IntegerField(min_value=MIN_PRIORITY, max_value=MAX_PRIORITY, default=100)
    ttl = serializers.CharField(default="none", max_length=64)
    source = serializers.ChoiceField(choices=ADMIN_SOURCES, default=Source.ADMIN.value)
    reason = serializers.CharField(required=False, max_length=500)


class WriteOut(serializers.Serializer):
    status = serializers.ChoiceField(choices=WRITE_STATUSES)
    scope = serializers.CharField()
    key = serializers.CharField()
    value = serializers.CharField()
    doc_version = serializers.IntegerField(allow_null=True, help_text="the document version holding the entry")
    audit_id = serializers.IntegerField(help_text="the audit row of this write (proof it was stored or staged)")
    pending_entry_id = serializers.UUIDField(allow_null=True, help_text="set when the entry was staged")


class RunQuery(StrictSerializer):
    run_id = serializers.CharField(required=False, max_length=128, help_text=RUN_ID_HELP)


class DeleteOut(serializers.Serializer):
    scope = serializers.CharField()
    key = serializers.CharField()
    doc_version = serializers.IntegerField()
    audit_id = serializers.IntegerField()


class ResolveBody(StrictSerializer):
    keys = serializers.ListField(child=key_field(), required=False, min_length=1, max_length=MAX_RESOLVE_KEYS,
                                 help_text="omit to load every key your PROFILE.md or this run's SESSION.md "
                                 "has live (what an agent does before each turn); a key only POLICY.md sets is "
                                 "not listed, name it here to resolve it")
    run_id = serializers.CharField(required=False, max_length=128, help_text=RUN_ID_HELP + "; omit for no session")


class ProvenanceOut(FastOutput):
    scope = serializers.ChoiceField(choices=ALL_SCOPES)
    kind = serializers.CharField(allow_null=True)
    priority = serializers.IntegerField(allow_null=True)
    updated_at = serializers.DateTimeField(allow_null=True)
    source = serializers.CharField(allow_null=True)
    ttl = serializers.CharField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True)


class ResolvedOut(FastOutput):
    key = serializers.CharField()
    found = serializers.BooleanField()
    value = serializers.CharField(allow_null=True)
    provenance = ProvenanceOut(allow_null=True, help_text="null when no live entry has the key; for a "
                               "policy-decided key only scope=policy")


class ResolveOut(FastOutput):
    items = ResolvedOut(many=True)
    resolved_at = serializers.DateTimeField()


class CompactBody(StrictSerializer):
    scope = serializers.ChoiceField(choices=PUBLIC_SCOPES)
    run_id = serializers.CharField(required=False, max_length=128, help_text=RUN_ID_HELP)


class RemovedLineOut(serializers.Serializer):
    line = serializers.IntegerField()
    key = serializers.CharField()
    reason = serializers.CharField()


class CompactOut(serializers.Serializer):
    scope = serializers.CharField()
    doc_version = serializers.IntegerField(allow_null=True, help_text="null when nothing was removed")
    removed = RemovedLineOut(many=True)
    audit_ids = serializers.ListField(child=serializers.IntegerField())


class MarkdownBody(StrictSerializer):
    markdown = serializers.CharField(trim_whitespace=False, allow_blank=True,
                                     help_text="the whole document (or send it raw as text/markdown)")
    if_version = serializers.IntegerField(required=False, min_value=0, help_text="the version you edited (from a "
                                          "GET with format=json); 412 VERSION_CONFLICT when it moved on")


class DocumentQuery(StrictSerializer):
    format = serializers.ChoiceField(choices=("markdown", "json"), default="markdown",
                                     help_text="json: {markdown, version, run_ended} instead of the raw text")


class DocumentOut(serializers.Serializer):
    scope = serializers.CharField()
    run_id = serializers.CharField(allow_null=True)
    markdown = serializers.CharField(trim_whitespace=False)
    version = serializers.IntegerField(help_text="0 for a document never written (its empty form)")
    run_ended = serializers.BooleanField()


class DocumentWriteOut(serializers.Serializer):
    scope = serializers.CharField()
    run_id = serializers.CharField(allow_null=True)
    doc_version = serializers.IntegerField()
    changed = serializers.BooleanField()
    entries = serializers.IntegerField()
    audit_ids = serializers.ListField(child=serializers.IntegerField())


class EndRunOut(serializers.Serializer):
    run_id = serializers.CharField()
    already_ended = serializers.BooleanField()
    expired = serializers.IntegerField(help_text="session_end entries that expired now")
    doc_version = serializers.IntegerField(allow_null=True)
    audit_ids = serializers.ListField(child=serializers.IntegerField())


class PendingOut(serializers.Serializer):
    entry_id = serializers.UUIDField()
    scope = serializers.CharField()
    kind = serializers.CharField()
    key = serializers.CharField()
    value = serializers.CharField()
    priority = serializers.IntegerField()
    ttl = serializers.CharField()
    source = serializers.CharField()
    confidence = serializers.FloatField(allow_null=True)
    reason = serializers.CharField()
    status = serializers.CharField()
    created_at = serializers.DateTimeField()


class PendingListOut(serializers.Serializer):
    items = PendingOut(many=True)


class DecisionOut(serializers.Serializer):
    entry_id = serializers.UUIDField()
    status = serializers.CharField()
    doc_version = serializers.IntegerField(allow_null=True, help_text="set when confirmed: the version holding it")
    audit_id = serializers.IntegerField()


class UtteranceBody(StrictSerializer):
    text = serializers.CharField(max_length=2000, help_text="the user's words, in English")
    run_id = serializers.CharField(max_length=128, help_text=RUN_ID_HELP)


class DeletionOut(serializers.Serializer):
    scope = serializers.CharField()
    doc_version = serializers.IntegerField()
    audit_id = serializers.IntegerField()


class UtteranceOut(serializers.Serializer):
    op = serializers.ChoiceField(choices=UTTERANCE_OPS)
    trigger = serializers.CharField(allow_null=True)
    confidence = serializers.FloatField()
    explanation = serializers.CharField()
    scope = serializers.CharField(allow_null=True)
    kind = serializers.CharField(allow_null=True)
    key = serializers.CharField(allow_null=True)
    value = serializers.CharField(allow_null=True)
    ttl = serializers.CharField(allow_null=True)
    acknowledgement = serializers.CharField()
    doc_version = serializers.IntegerField(allow_null=True)
    audit_id = serializers.IntegerField(allow_null=True)
    pending_entry_id = serializers.UUIDField(allow_null=True)
    deleted = DeletionOut(many=True)
    verified = serializers.BooleanField(help_text="resolve was checked after the write: the value is stored (or, "
                                        "for forget, the key no longer resolves from profile or session)")
