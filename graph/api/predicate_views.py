"""Admin predicate registry endpoints (spec v2 section 14), on the admin bind.

The caller's context headers scope everything: its tenant and project see the predicates of three scope
keys (tenant:project, __project__:project, __global__); any other predicate is 404.
"""

from __future__ import annotations

import uuid

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.api.schema_docs import CONTEXT_HEADERS, ERROR_RESPONSES, ErrorBody
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request

from ..selectors.predicates import predicate_aliases, visible_predicate, visible_predicates
from ..services.predicate_admin import add_predicate_alias, update_predicate
from . import predicate_serializers as s

_FORBIDDEN = OpenApiResponse(ErrorBody, description="Global predicates are immutable (FORBIDDEN)")
_CHANGE_RESPONSES = {
    **ERROR_RESPONSES,
    403: _FORBIDDEN,
    404: OpenApiResponse(ErrorBody, description="No such predicate in the caller's scopes (NOT_FOUND)"),
}


def _aliases(predicate_id: uuid.UUID, aliases) -> Response:
    return Response(s.PredicateAliasesOut({"predicate_id": predicate_id, "aliases": aliases}).data)


class PredicatesView(APIView):
    @extend_schema(
        operation_id="elf_admin_graph_predicates_list",
        summary="List the graph predicates visible to the tenant and project",
        description="Ordered by scope precedence (tenant:project, __project__:project, __global__), then "
        "canonical_norm.",
        parameters=CONTEXT_HEADERS + [s.PredicateListQuery],
        responses={200: s.PredicateListOut, **ERROR_RESPONSES},
    )
    def get(self, request):
        ctx = context_from_request(request)
        q = validated(s.PredicateListQuery, request.query_params.dict(), "$.query")
        return Response(s.PredicateListOut({"predicates": visible_predicates(ctx, q["scope"])}).data)


class PredicateView(APIView):
    @extend_schema(
        operation_id="elf_admin_graph_predicate_patch",
        summary="Change a predicate's status and/or cardinality",
        description="At least one of status and cardinality, not null. Allowed status moves: pending->active, "
        "pending->deprecated, active->deprecated (any other is 400 on $.status). Deprecated predicates "
        "cannot be modified (409 PREDICATE_DEPRECATED); global predicates are immutable (403 FORBIDDEN).",
        parameters=CONTEXT_HEADERS, request=s.PredicatePatchBody,
        responses={
            200: s.PredicateOut,
            **_CHANGE_RESPONSES,
            409: OpenApiResponse(ErrorBody, description="The predicate is deprecated (PREDICATE_DEPRECATED)"),
        },
    )
    def patch(self, request, predicate_id: uuid.UUID):
        ctx = context_from_request(request)
        data = validated(s.PredicatePatchBody, request.data)
        predicate = update_predicate(
            ctx=ctx, predicate_id=predicate_id, status=data.get("status"), cardinality=data.get("cardinality")
        )
        return Response(s.PredicateOut(predicate).data)


class PredicateAliasesView(APIView):
    @extend_schema(
        operation_id="elf_admin_graph_predicate_aliases_list",
        summary="List a predicate's aliases, oldest first",
        parameters=CONTEXT_HEADERS, responses={200: s.PredicateAliasesOut, **ERROR_RESPONSES},
    )
    def get(self, request, predicate_id: uuid.UUID):
        ctx = context_from_request(request)
        predicate = visible_predicate(ctx, predicate_id)
        return _aliases(predicate.predicate_id, predicate_aliases(predicate.predicate_id))

    @extend_schema(
        operation_id="elf_admin_graph_predicate_aliases_add",
        summary="Add an alias to a predicate, in the predicate's scope",
        description="Idempotent for an alias the predicate already has (compared normalised). 409 ALIAS_CONFLICT "
        "when another predicate of the scope has that alias or canonical name; 409 PREDICATE_DEPRECATED for a "
        "deprecated predicate; 403 FORBIDDEN for a global one.",
        parameters=CONTEXT_HEADERS, request=s.PredicateAliasBody,
        responses={
            200: s.PredicateAliasesOut,
            **_CHANGE_RESPONSES,
            409: OpenApiResponse(ErrorBody, description="ALIAS_CONFLICT or PREDICATE_DEPRECATED"),
        },
    )
    def post(self, request, predicate_id: uuid.UUID):
        ctx = context_from_request(request)
        data = validated(s.PredicateAliasBody, request.data)
        aliases = add_predicate_alias(ctx=ctx, predicate_id=predicate_id, alias=data["alias"])
        return _aliases(predicate_id, aliases)
