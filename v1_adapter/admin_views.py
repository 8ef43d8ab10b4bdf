"""POST /v1/admin/rebuild_qdrant (admin bind, elf-memory-service-v1.md section 14), deprecated: the rebuild of
POST /v2/admin/qdrant/rebuild (elf_project.rebuild.rebuild_all) and its report. v1's three counts (the notes')
are at the top level; the documents' collection, which v1 did not have, is rebuilt too and counted under
``docs``."""

from __future__ import annotations

from rest_framework.response import Response

from elf_kernel.runtime import get_config

from ..rebuild import rebuild_all
from .admin_rebuild import REBUILD_REPORT
from .v1_deprecation import DeprecatedV1View, v1_schema


class V1RebuildQdrantView(DeprecatedV1View):
    successor = "/v2/admin/qdrant/rebuild"
    takes_input = False

    @v1_schema(operation_id="elf_v1_admin_rebuild_qdrant", summary="rebuild_qdrant (v1): Qdrant from Postgres vectors",
               successor="POST /v2/admin/qdrant/rebuild", response=REBUILD_REPORT)
    def post(self, request):
        return Response(rebuild_all(cfg=get_config()).as_dict())
