"""The public graph read API (beyond the spec): facts by subject, predicate and time, and one entity with its
current facts and history. Thin: validate the shape, call the route's use case (graph.services.fact_reads: the
English gate, the as_of default and the notes' read rule over every fact), render."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.api.schema_docs import CONTEXT_HEADERS, ERROR_RESPONSES
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request

from ..services.fact_reads import entity_facts_of, list_facts
from . import fact_serializers as s


class GraphFactsView(APIView):
    @extend_schema(summary="Graph facts by subject, predicate and time (as_of: what was true then)",
                   operation_id="elf_graph_facts_list", parameters=CONTEXT_HEADERS + [s.FactQuerySerializer],
                   responses={200: s.FactListSerializer, **ERROR_RESPONSES})
    def get(self, request):
        ctx = context_from_request(request)
        q = validated(s.FactQuerySerializer, request.query_params.dict(), "$.query")
        page = list_facts(ctx=ctx, subject=q.get("subject"), predicate=q.get("predicate"), as_of=q.get("as_of"),
                          state=q["state"], limit=q["limit"])
        return Response(s.FactListSerializer({"as_of": page.as_of, "state": page.state, "facts": page.facts}).data)


class GraphEntityView(APIView):
    @extend_schema(summary="One graph entity: aliases, current facts and history",
                   operation_id="elf_graph_entity_get", parameters=CONTEXT_HEADERS,
                   responses={200: s.EntityDetailSerializer, **ERROR_RESPONSES})
    def get(self, request, entity_id):
        ctx = context_from_request(request)
        found = entity_facts_of(ctx=ctx, entity_id=entity_id)
        return Response(s.EntityDetailSerializer({
            **found.entity, "aliases": found.aliases, "current_facts": found.current_facts, "history": found.history,
        }).data)
