"""POST /v1/admin/rebuild_qdrant (admin bind, elf-memory-service-v1.md section 14), deprecated: the rebuild of
POST /v2/admin/qdrant/rebuild and its report. v1's three counts (the notes') are at the top level; the documents'
collection, which v1 did not have, is rebuilt too and counted under ``docs``.

The rebuild of every derived collection is composed in the composition root (elf_project.rebuild.rebuild_all:
notes and documents are sibling apps), which sits above this adapter: its URL conf hands the function over
(``urls.admin_patterns``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rest_framework.response import Response

from elf_kernel.runtime import get_config

from .deprecation import DeprecatedV1View, v1_schema
from .serializers import REBUILD_REPORT


class V1RebuildQdrantView(DeprecatedV1View):
    successor = "/v2/admin/qdrant/rebuild"
    takes_input = False
    rebuild: Callable[..., Any] | None = None  # rebuild(cfg=...) -> a report with as_dict(), from the URL conf

    @v1_schema(operation_id="elf_v1_admin_rebuild_qdrant", summary="rebuild_qdrant (v1): Qdrant from Postgres vectors",
               successor="POST /v2/admin/qdrant/rebuild", response=REBUILD_REPORT)
    def post(self, request):
        return Response(self.rebuild(cfg=get_config()).as_dict())
