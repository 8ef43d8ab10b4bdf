"""POST /v2/admin/qdrant/rebuild (admin bind, spec v2 section 14): restore Qdrant from Postgres vectors.

Synchronous: the response carries the report. No context headers: the rebuild spans every tenant.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.api.schema_docs import ERROR_RESPONSES
from elf_kernel.runtime import get_config

from ..indexing.rebuild import rebuild_qdrant


class QdrantRebuildView(APIView):
    @extend_schema(
        summary="Rebuild the Qdrant notes index from Postgres chunk vectors",
        description="Upserts a point for every chunk of every active, unexpired note from its stored vector. "
        "Never calls the embedding provider; creates the collection when it is missing.",
        request=None,
        responses={
            200: inline_serializer(
                "QdrantRebuildReport",
                {
                    "rebuilt_count": serializers.IntegerField(),
                    "missing_vector_count": serializers.IntegerField(),
                    "error_count": serializers.IntegerField(),
                },
            ),
            500: ERROR_RESPONSES[500],  # the only failure: Postgres or Qdrant unusable
        },
    )
    def post(self, request):
        return Response(rebuild_qdrant(cfg=get_config()).as_dict())
