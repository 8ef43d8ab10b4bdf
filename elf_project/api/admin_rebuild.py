"""POST /v2/admin/qdrant/rebuild (admin bind, spec v2 section 14): restore Qdrant from Postgres vectors, the
notes collection and the doc chunks' collection (composed in elf_project.rebuild).

Synchronous: the response carries the report, the notes' counts at the top level (as before documents
existed) and the documents' under ``docs``. No context headers: the rebuild spans every tenant.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.api.schema_docs import ERROR_RESPONSES
from elf_kernel.runtime import get_config

from ..rebuild import rebuild_all


def _counts() -> dict[str, serializers.Field]:
    return {
        "rebuilt_count": serializers.IntegerField(),
        "missing_vector_count": serializers.IntegerField(),
        "error_count": serializers.IntegerField(),
    }


# The report; the deprecated POST /v1/admin/rebuild_qdrant (v1_adapter.admin_views) answers it too.
REBUILD_REPORT = inline_serializer(
    "QdrantRebuildReport", {**_counts(), "docs": inline_serializer("DocsRebuildReport", _counts())}
)


class QdrantRebuildView(APIView):
    @extend_schema(
        summary="Rebuild the Qdrant notes and doc collections from Postgres chunk vectors",
        description="Upserts a point for every chunk of every active, unexpired note, and of every active "
        "document, from its stored vector. The top-level counts are the notes'; `docs` has the documents'. "
        "Never calls the embedding provider; creates the collections when they are missing.",
        request=None,
        responses={
            200: REBUILD_REPORT,
            500: ERROR_RESPONSES[500],  # the only failure: Postgres or Qdrant unusable
        },
    )
    def post(self, request):
        return Response(rebuild_all(cfg=get_config()).as_dict())
