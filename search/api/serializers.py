"""Request and response shapes of the search endpoints (spec v2 sections 14, 15)."""

from __future__ import annotations

from rest_framework import serializers

from elf_domain.limits import MAX_CANDIDATE_K, MAX_QUERY_CHARS, MAX_TOP_K
from elf_domain.vocabulary import SEARCH_MODES
from elf_kernel.api.strict import StrictSerializer


class SearchBodySerializer(StrictSerializer):
    query = serializers.CharField(max_length=MAX_QUERY_CHARS)
    top_k = serializers.IntegerField(required=False, min_value=1, max_value=MAX_TOP_K)
    candidate_k = serializers.IntegerField(required=False, min_value=1, max_value=MAX_CANDIDATE_K)
    filter = serializers.JSONField(required=False, help_text="search_filter_expr/v1 envelope")
    mode = serializers.ChoiceField(
        choices=list(SEARCH_MODES),
        required=False,
        help_text="quick_find (no expansion, no rerank) or planned_search; default from config",
    )
    as_of = serializers.DateTimeField(
        required=False,
        help_text="RFC 3339: the search asks about that time, so notes whose graph facts were all "
        "superseded are not ranked below the others (as with a time phrase in the query); default now",
    )


class RawSearchBodySerializer(SearchBodySerializer):
    record_hits = serializers.BooleanField(required=False, default=False)


class ScoredNoteFields(serializers.Serializer):
    """The note fields every search result carries."""

    note_id = serializers.UUIDField()
    type = serializers.CharField()
    key = serializers.CharField(allow_null=True)
    scope = serializers.CharField()
    importance = serializers.FloatField()
    confidence = serializers.FloatField()
    updated_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    final_score = serializers.FloatField()


class IndexItemSerializer(ScoredNoteFields):
    summary = serializers.CharField()


class SearchSessionSerializer(serializers.Serializer):
    trace_id = serializers.UUIDField()
    search_id = serializers.UUIDField()
    expires_at = serializers.DateTimeField()
    items = IndexItemSerializer(many=True)


class TimelineGroupSerializer(serializers.Serializer):
    date = serializers.CharField()
    items = IndexItemSerializer(many=True)


class TimelineSerializer(serializers.Serializer):
    search_id = serializers.UUIDField()
    expires_at = serializers.DateTimeField()
    groups = TimelineGroupSerializer(many=True)


class SessionNotesBodySerializer(StrictSerializer):
    note_ids = serializers.ListField(child=serializers.UUIDField(), allow_empty=False, max_length=MAX_TOP_K)
    record_hits = serializers.BooleanField(required=False, default=True)
    include_source_excerpts = serializers.BooleanField(
        required=False,
        default=False,
        help_text="also hydrate each note's document pointer (source_ref resolver elf_doc_ext/v1) as a verified "
        "L1 excerpt, under source_excerpt",
    )


class SessionNotesResponseSerializer(serializers.Serializer):
    search_id = serializers.UUIDField()
    expires_at = serializers.DateTimeField()
    results = serializers.ListField(child=serializers.JSONField())


class SessionQuerySerializer(StrictSerializer):
    top_k = serializers.IntegerField(required=False, min_value=1, max_value=MAX_TOP_K)
    touch = serializers.BooleanField(required=False, default=True)


class TimelineQuerySerializer(StrictSerializer):
    group_by = serializers.ChoiceField(choices=["day", "none"], required=False, default="day")


class RawItemSerializer(ScoredNoteFields):
    result_handle = serializers.UUIDField()
    chunk_id = serializers.UUIDField()
    chunk_index = serializers.IntegerField()
    start_offset = serializers.IntegerField()
    end_offset = serializers.IntegerField()
    snippet = serializers.CharField()
    source_ref = serializers.JSONField()
    explain = serializers.JSONField()


class RawSearchResponseSerializer(serializers.Serializer):
    trace_id = serializers.UUIDField()
    items = RawItemSerializer(many=True)
