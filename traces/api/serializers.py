"""Query validation and response shapes of the admin trace endpoints (spec v2 section 14).

The response serializers render model rows and document the responses in OpenAPI; ``explain``,
``stage_payload``, ``metrics`` and candidate snapshots are JSON returned exactly as stored.
"""

from __future__ import annotations

from rest_framework import serializers

RECENT_TRACES_SCHEMA = "elf.recent_traces/v1"
TRACE_BUNDLE_SCHEMA = "elf.trace_bundle/v1"
TRAJECTORY_SCHEMA = "search_retrieval_trajectory/v1"

RECENT_LIMIT_DEFAULT, RECENT_LIMIT_MAX = 50, 200
BUNDLE_STAGE_ITEMS = {"bounded": 64, "full": 256}
BUNDLE_STAGE_ITEMS_MAX = 256
BUNDLE_CANDIDATES = {"bounded": 0, "full": 200}
BUNDLE_CANDIDATES_MAX = 1000


# --- queries ------------------------------------------------------------------------------------------------


class RecentTracesQuery(serializers.Serializer):
    limit = serializers.IntegerField(min_value=1, max_value=RECENT_LIMIT_MAX, default=RECENT_LIMIT_DEFAULT)
    cursor_created_at = serializers.DateTimeField(required=False, help_text="RFC 3339; with cursor_trace_id")
    cursor_trace_id = serializers.UUIDField(required=False, help_text="with cursor_created_at")
    agent_id = serializers.CharField(required=False, help_text="only traces created by this agent")
    read_profile = serializers.CharField(required=False)
    created_after = serializers.DateTimeField(required=False, help_text="RFC 3339, strict lower bound")
    created_before = serializers.DateTimeField(required=False, help_text="RFC 3339, strict upper bound")

    def validate(self, attrs):
        if ("cursor_created_at" in attrs) != ("cursor_trace_id" in attrs):
            why = "cursor_created_at and cursor_trace_id must be given together or not at all."
            raise serializers.ValidationError({"cursor_created_at": [why], "cursor_trace_id": [why]})
        return attrs


class TraceBundleQuery(serializers.Serializer):
    mode = serializers.ChoiceField(choices=["bounded", "full"], default="bounded")
    stage_items_limit = serializers.IntegerField(min_value=0, max_value=BUNDLE_STAGE_ITEMS_MAX, required=False)
    candidates_limit = serializers.IntegerField(min_value=0, max_value=BUNDLE_CANDIDATES_MAX, required=False)


# --- responses ----------------------------------------------------------------------------------------------


class RecentTraceHeader(serializers.Serializer):
    trace_id = serializers.UUIDField()
    tenant_id = serializers.CharField()
    project_id = serializers.CharField()
    agent_id = serializers.CharField()
    read_profile = serializers.CharField()
    query = serializers.CharField()
    created_at = serializers.DateTimeField()


class RecentCursorOut(serializers.Serializer):
    created_at = serializers.DateTimeField()
    trace_id = serializers.UUIDField()


class RecentTracesResponse(serializers.Serializer):
    schema = serializers.CharField(help_text=RECENT_TRACES_SCHEMA)
    traces = RecentTraceHeader(many=True)
    next_cursor = RecentCursorOut(allow_null=True)


class TraceOut(RecentTraceHeader):
    expansion_mode = serializers.CharField()
    expanded_queries = serializers.JSONField()
    allowed_scopes = serializers.JSONField()
    candidate_count = serializers.IntegerField()
    top_k = serializers.IntegerField()
    config_snapshot = serializers.JSONField()
    trace_version = serializers.IntegerField()
    expires_at = serializers.DateTimeField()


class TraceItemOut(serializers.Serializer):
    item_id = serializers.UUIDField()
    note_id = serializers.UUIDField()
    chunk_id = serializers.UUIDField(allow_null=True)
    rank = serializers.IntegerField()
    final_score = serializers.FloatField()
    explain = serializers.JSONField(help_text="SearchExplain, as stored")


class StageItemOut(serializers.Serializer):
    item_id = serializers.UUIDField(allow_null=True)
    note_id = serializers.UUIDField(allow_null=True)
    chunk_id = serializers.UUIDField(allow_null=True)
    metrics = serializers.JSONField()


class SummaryStageOut(serializers.Serializer):
    stage_order = serializers.IntegerField()
    stage_name = serializers.CharField()
    item_count = serializers.IntegerField()
    stats = serializers.JSONField(help_text="the stage's payload")


class TrajectorySummaryOut(serializers.Serializer):
    schema = serializers.CharField(help_text=TRAJECTORY_SCHEMA)
    stages = SummaryStageOut(many=True)


class StageOut(serializers.Serializer):
    stage_order = serializers.IntegerField()
    stage_name = serializers.CharField()
    stage_payload = serializers.JSONField()
    items = StageItemOut(many=True)


class TraceResponse(serializers.Serializer):
    trace = TraceOut()
    items = TraceItemOut(many=True)
    trajectory_summary = TrajectorySummaryOut()


class TraceBundleResponse(serializers.Serializer):
    schema = serializers.CharField(help_text=TRACE_BUNDLE_SCHEMA)
    generated_at = serializers.DateTimeField()
    trace = TraceOut()
    items = TraceItemOut(many=True)
    trajectory_summary = TrajectorySummaryOut(allow_null=True)
    stages = StageOut(many=True)
    candidates = serializers.ListField(child=serializers.JSONField(), allow_null=True,
                                       help_text="TraceReplayCandidate snapshots by rank; null when not requested")


class TrajectoryResponse(serializers.Serializer):
    trace = TraceOut()
    trajectory = TrajectorySummaryOut()
    stages = StageOut(many=True)


class ItemTrajectoryStageOut(serializers.Serializer):
    stage_order = serializers.IntegerField()
    stage_name = serializers.CharField()
    stage_payload = serializers.JSONField()
    metrics = serializers.JSONField()


class ItemTrajectoryOut(serializers.Serializer):
    schema = serializers.CharField(help_text=TRAJECTORY_SCHEMA)
    stages = ItemTrajectoryStageOut(many=True)


class TraceItemResponse(serializers.Serializer):
    trace = TraceOut()
    item = TraceItemOut()
    trajectory = ItemTrajectoryOut()
