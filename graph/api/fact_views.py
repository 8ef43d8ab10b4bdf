"""The public graph read API (beyond the spec): facts by subject, predicate and time, and one entity with its
current facts and history. Every fact passes the notes' read rule (graph.selectors.facts)."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.api.english_fields import NATURAL, require_english
from elf_kernel.api.schema_docs import CONTEXT_HEADERS, ERROR_RESPONSES
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request
from elf_kernel.errors import NotFound

from ..domain.rules import fact_state
from ..selectors.facts import entity_facts, evidence_note_ids, find_facts, supersession_links
from . import fact_serializers as s


def _entity(entity) -> dict | None:
    if entity is None:
        return None
    return {"entity_id": entity.entity_id, "canonical": entity.canonical, "kind": entity.kind}


def render_facts(ctx, facts, at) -> list[dict]:
    ids = [f.fact_id for f in facts]
    evidence, links = evidence_note_ids(ctx, ids), supersession_links(ctx, ids)
    return [{
        "fact_id": f.fact_id, "scope": f.scope, "subject": _entity(f.subject_entity), "predicate": f.predicate,
        "predicate_id": f.predicate_ref_id, "object": {"entity": _entity(f.object_entity), "value": f.object_value},
        "valid_from": f.valid_from, "valid_to": f.valid_to, "state": fact_state(f.valid_from, f.valid_to, at),
        "evidence_note_ids": evidence.get(f.fact_id, []), **links[f.fact_id],
    } for f in facts]


class GraphFactsView(APIView):
    @extend_schema(summary="Graph facts by subject, predicate and time (as_of: what was true then)",
                   operation_id="elf_graph_facts_list", parameters=CONTEXT_HEADERS + [s.FactQuerySerializer],
                   responses={200: s.FactListSerializer, **ERROR_RESPONSES})
    def get(self, request):
        ctx = context_from_request(request)
        q = validated(s.FactQuerySerializer, request.query_params.dict(), "$.query")
        require_english([(f"$.query.{name}", q[name], NATURAL) for name in ("subject", "predicate") if q.get(name)])
        at = q.get("as_of") or timezone.now()
        facts = find_facts(ctx, subject=q.get("subject"), predicate=q.get("predicate"), state=q["state"], at=at,
                           limit=q["limit"])
        return Response(s.FactListSerializer({"as_of": at, "state": q["state"],
                                              "facts": render_facts(ctx, facts, at)}).data)


class GraphEntityView(APIView):
    @extend_schema(summary="One graph entity: aliases, current facts and history",
                   operation_id="elf_graph_entity_get", parameters=CONTEXT_HEADERS,
                   responses={200: s.EntityDetailSerializer, **ERROR_RESPONSES})
    def get(self, request, entity_id):
        ctx = context_from_request(request)
        found = entity_facts(ctx, entity_id)
        if found is None:
            raise NotFound("No such entity, or no fact about it you may read.", ["$.path.entity_id"])
        entity, aliases, facts = found
        rendered = render_facts(ctx, facts, timezone.now())
        return Response(s.EntityDetailSerializer({
            **_entity(entity), "aliases": aliases,
            "current_facts": [f for f in rendered if f["state"] == "current"],
            "history": [f for f in rendered if f["state"] != "current"],
        }).data)
