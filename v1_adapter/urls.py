"""The v1 routes, which the composition root's URL confs list among their own (elf_project.urls_public and
urls_admin): each keeps its path and name there, and its place in the listener's OpenAPI document."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.urls import path

from .admin_views import V1RebuildQdrantView
from .memory_views import V1AddEventView, V1AddNoteView, V1DeleteView, V1ListView, V1SearchView, V1UpdateView

# The public bind's v1 routes (elf-memory-service-v1.md section 15).
public_patterns = [
    path("v1/memory/add_note", V1AddNoteView.as_view(), name="v1-add-note"),
    path("v1/memory/add_event", V1AddEventView.as_view(), name="v1-add-event"),
    path("v1/memory/search", V1SearchView.as_view(), name="v1-search"),
    path("v1/memory/list", V1ListView.as_view(), name="v1-list"),
    path("v1/memory/update", V1UpdateView.as_view(), name="v1-update"),
    path("v1/memory/delete", V1DeleteView.as_view(), name="v1-delete"),
]


def admin_patterns(*, rebuild: Callable[..., Any]) -> list:
    """The admin bind's v1 route (v1 section 14), over ``rebuild``: the composition root's rebuild of every
    derived Qdrant collection (``rebuild(cfg=...)``, a report with ``as_dict()``)."""
    return [path("v1/admin/rebuild_qdrant", V1RebuildQdrantView.as_view(rebuild=rebuild))]
