"""Admin bind (service.admin_bind): the admin API and the Django admin. Never served on the public bind."""

from django.contrib import admin
from django.urls import path

from memory.api.admin_rebuild import QdrantRebuildView

from .api.context_view import ContextView
from .urls_common import common_patterns

urlpatterns = common_patterns(__name__) + [
    path("admin/", admin.site.urls),
    path("v2/context", ContextView.as_view(), name="context"),
    path("v2/admin/qdrant/rebuild", QdrantRebuildView.as_view()),
]

handler400 = "elf_project.errors.json_400"
handler404 = "elf_project.errors.json_404"
handler500 = "elf_project.errors.json_500"
