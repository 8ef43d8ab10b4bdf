"""Public bind (service.http_bind)."""

from django.urls import path

from acb.api.views import ArtifactView, BuildView, DecisionsQueryView, DecisionsView, EventLogView, TasksView
from core_memory.api.document_views import (
    AuditView,
    EndRunView,
    PendingConfirmView,
    PendingRejectView,
    PendingView,
    ProfileView,
    SessionView,
)
from core_memory.api.entry_views import CompactView, EntriesView, EntryDetailView, ResolveView, UtterancesView
from docs_ext.api.views import (
    DocDetailView,
    DocExcerptsView,
    DocPublishView,
    DocSearchL0View,
    DocsView,
    DocUnpublishView,
)
from graph.api.fact_views import GraphEntityView, GraphFactsView
from memory.api.events_views import EventsIngestView
from memory.api.note_lifecycle_views import NoteDeprecateView
from memory.api.notes_views import NoteDetailView, NotesIngestView, NotesListView
from memory.api.sharing_views import NotePublishView, NoteUnpublishView, SpaceGrantRevokeView, SpaceGrantsView
from search.api.views import SearchCreateView, SearchNotesView, SearchSessionView, SearchTimelineView
from v1_adapter import urls as v1_urls

from .api.context_view import ContextView
from .urls_common import common_patterns

urlpatterns = common_patterns(__name__) + [
    path("v2/context", ContextView.as_view(), name="context"),
    path("v2/notes/ingest", NotesIngestView.as_view(), name="notes-ingest"),
    path("v2/events/ingest", EventsIngestView.as_view(), name="events-ingest"),
    path("v2/notes", NotesListView.as_view(), name="notes-list"),
    path("v2/notes/<uuid:note_id>", NoteDetailView.as_view(), name="note-detail"),
    path("v2/notes/<uuid:note_id>/deprecate", NoteDeprecateView.as_view(), name="note-deprecate"),
    path("v2/notes/<uuid:note_id>/publish", NotePublishView.as_view(), name="note-publish"),
    path("v2/notes/<uuid:note_id>/unpublish", NoteUnpublishView.as_view(), name="note-unpublish"),
    path("v2/spaces/<str:space>/grants", SpaceGrantsView.as_view(), name="space-grants"),
    path("v2/spaces/<str:space>/grants/revoke", SpaceGrantRevokeView.as_view(), name="space-grants-revoke"),
    path("v2/searches", SearchCreateView.as_view(), name="searches"),
    path("v2/searches/<uuid:search_id>", SearchSessionView.as_view(), name="search-session"),
    path("v2/searches/<uuid:search_id>/timeline", SearchTimelineView.as_view(), name="search-timeline"),
    path("v2/searches/<uuid:search_id>/notes", SearchNotesView.as_view(), name="search-notes"),
    path("v2/graph/facts", GraphFactsView.as_view(), name="graph-facts"),
    path("v2/docs", DocsView.as_view(), name="docs"),
    path("v2/docs/excerpts", DocExcerptsView.as_view(), name="docs-excerpts"),
    path("v2/docs/search/l0", DocSearchL0View.as_view(), name="docs-search-l0"),
    path("v2/docs/<uuid:doc_id>", DocDetailView.as_view(), name="doc-detail"),
    path("v2/docs/<uuid:doc_id>/publish", DocPublishView.as_view(), name="doc-publish"),
    path("v2/docs/<uuid:doc_id>/unpublish", DocUnpublishView.as_view(), name="doc-unpublish"),
    path("v2/graph/entities/<uuid:entity_id>", GraphEntityView.as_view(), name="graph-entity"),
    path("v2/core-memory/entries", EntriesView.as_view(), name="core-memory-entries"),
    path("v2/core-memory/entries/<str:scope>/<str:key>", EntryDetailView.as_view(), name="core-memory-entry"),
    path("v2/core-memory/resolve", ResolveView.as_view(), name="core-memory-resolve"),
    path("v2/core-memory/compact", CompactView.as_view(), name="core-memory-compact"),
    path("v2/core-memory/utterances", UtterancesView.as_view(), name="core-memory-utterances"),
    path("v2/core-memory/profile.md", ProfileView.as_view(), name="core-memory-profile"),
    path("v2/core-memory/runs/<str:run_id>/session.md", SessionView.as_view(), name="core-memory-session"),
    path("v2/core-memory/runs/<str:run_id>/end", EndRunView.as_view(), name="core-memory-run-end"),
    path("v2/core-memory/runs/<str:run_id>/audit.jsonl", AuditView.as_view(), name="core-memory-audit"),
    path("v2/core-memory/runs/<str:run_id>/memory/pending", PendingView.as_view(), name="core-memory-pending"),
    path("v2/core-memory/runs/<str:run_id>/memory/pending/<uuid:entry_id>/confirm", PendingConfirmView.as_view(),
         name="core-memory-pending-confirm"),
    path("v2/core-memory/runs/<str:run_id>/memory/pending/<uuid:entry_id>/reject", PendingRejectView.as_view(),
         name="core-memory-pending-reject"),
    # The deprecated v1 API (elf-memory-service-v1.md section 15): Deprecation and Link headers to the v2 route.
    # Listed here rather than include()d, so each stays a route of this conf (its place in the OpenAPI document).
    *v1_urls.public_patterns,
    path("api/v1/events", EventLogView.as_view(), name="acb-events"),
    path("api/v1/acb/build", BuildView.as_view(), name="acb-build"),
    path("api/v1/artifacts/<str:artifact_id>", ArtifactView.as_view(), name="acb-artifact"),
    path("api/v1/decisions", DecisionsView.as_view(), name="acb-decisions"),
    path("api/v1/decisions/query", DecisionsQueryView.as_view(), name="acb-decisions-query"),
    path("api/v1/tasks", TasksView.as_view(), name="acb-tasks"),
]

handler400 = "elf_kernel.errors.json_400"
handler404 = "elf_kernel.errors.json_404"
handler500 = "elf_kernel.errors.json_500"
