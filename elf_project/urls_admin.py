"""Admin bind (service.admin_bind): the admin API and the Django admin. Never served on the public bind."""

from django.contrib import admin
from django.urls import path

from core_memory.api.policy_views import PolicyEntriesView, PolicyEntryDetailView, PolicyView
from graph.api.predicate_views import PredicateAliasesView, PredicatesView, PredicateView
from memory.api.ingestion_profile_views import (
    IngestionProfileDefaultView,
    IngestionProfilesView,
    IngestionProfileVersionsView,
    IngestionProfileView,
)
from search.api.views import RawSearchView
from traces.api.views import RecentTracesView, TraceBundleView, TraceItemView, TraceView, TrajectoryView
from v1_adapter.urls import admin_patterns as v1_admin_patterns

from .api.admin_rebuild import QdrantRebuildView
from .api.context_view import ContextView
from .api.metrics_view import metrics_view
from .rebuild import rebuild_all
from .urls_common import common_patterns

urlpatterns = common_patterns(__name__) + [
    path("admin/", admin.site.urls),
    path("metrics", metrics_view, name="metrics"),  # Prometheus; never on the public bind
    path("v2/context", ContextView.as_view(), name="context"),
    path("v2/admin/qdrant/rebuild", QdrantRebuildView.as_view()),
    *v1_admin_patterns(rebuild=rebuild_all),  # the deprecated v1 route (v1 section 14)
    path("v2/admin/traces/recent", RecentTracesView.as_view()),
    path("v2/admin/traces/<uuid:trace_id>", TraceView.as_view()),
    path("v2/admin/traces/<uuid:trace_id>/bundle", TraceBundleView.as_view()),
    path("v2/admin/trajectories/<uuid:trace_id>", TrajectoryView.as_view()),
    path("v2/admin/trace-items/<uuid:item_id>", TraceItemView.as_view()),
    path("v2/admin/searches/raw", RawSearchView.as_view(), name="searches-raw"),
    path("v2/admin/events/ingestion-profiles", IngestionProfilesView.as_view()),
    # Before <profile_id>: "default" is the project default, not a profile named "default".
    path("v2/admin/events/ingestion-profiles/default", IngestionProfileDefaultView.as_view()),
    path("v2/admin/events/ingestion-profiles/<str:profile_id>", IngestionProfileView.as_view()),
    path("v2/admin/events/ingestion-profiles/<str:profile_id>/versions", IngestionProfileVersionsView.as_view()),
    path("v2/admin/graph/predicates", PredicatesView.as_view()),
    path("v2/admin/graph/predicates/<uuid:predicate_id>", PredicateView.as_view()),
    path("v2/admin/graph/predicates/<uuid:predicate_id>/aliases", PredicateAliasesView.as_view()),
    path("v2/admin/core-memory/policy.md", PolicyView.as_view()),
    path("v2/admin/core-memory/entries", PolicyEntriesView.as_view()),
    path("v2/admin/core-memory/entries/<str:scope>/<str:key>", PolicyEntryDetailView.as_view()),
]

handler400 = "elf_kernel.errors.json_400"
handler404 = "elf_kernel.errors.json_404"
handler500 = "elf_kernel.errors.json_500"
