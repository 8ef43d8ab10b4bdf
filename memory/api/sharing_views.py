"""Publish/unpublish and space grants (spec v2 section 15). Thin: validate, call memory.services.sharing."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.api.schema_docs import CONTEXT_HEADERS
from elf_kernel.api.schema_docs import ERROR_RESPONSES
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request
from elf_kernel.errors import InvalidRequest
from elf_kernel.runtime import get_config

from elf_domain.spaces import AGENT_PRIVATE, SCOPE_SPACES, scope_of_space
from ..services import sharing
from . import sharing_serializers as s
from .note_serializers import NOTE_MOVE_ERRORS
from elf_kernel.api.english_fields import IDENTIFIER, require_english

SPACE_PARAM = OpenApiParameter("space", str, OpenApiParameter.PATH, enum=list(s.SPACES))


def _space_scope(space: str) -> str:
    scope = scope_of_space(space)
    if scope is None:
        raise InvalidRequest(f"Unknown space {space!r}; use one of {', '.join(s.SPACES)}.", ["$.path.space"])
    return scope


def _grantee(request, ctx) -> dict:
    data = validated(s.GranteeSerializer, request.data)
    if data.get("grantee_agent_id"):
        require_english([("$.grantee_agent_id", data["grantee_agent_id"], IDENTIFIER)])
        if data["grantee_agent_id"] == ctx.agent_id:
            raise InvalidRequest("The space's owner always reads its own notes; grant another agent.",
                                 ["$.grantee_agent_id"])
    return {"grantee_kind": data["grantee_kind"], "grantee_agent_id": data.get("grantee_agent_id")}


def grant_to_dict(g) -> dict:
    return {
        "space": SCOPE_SPACES[g.scope], "grantee_kind": g.grantee_kind, "grantee_agent_id": g.grantee_agent_id,
        "granted_by_agent_id": g.granted_by_agent_id, "granted_at": g.granted_at.isoformat(),
        "revoked_by_agent_id": g.revoked_by_agent_id,
        "revoked_at": g.revoked_at.isoformat() if g.revoked_at else None,
    }


class NotePublishView(APIView):
    @extend_schema(
        summary="Publish an owned note to team_shared or org_shared (creates the space's project grant)",
        operation_id="elf_notes_publish", parameters=CONTEXT_HEADERS, request=s.PublishSerializer,
        responses={200: s.PublishResponseSerializer, **NOTE_MOVE_ERRORS},
    )
    def post(self, request, note_id):
        ctx = context_from_request(request)
        space = validated(s.PublishSerializer, request.data)["space"]
        note = sharing.publish(get_config(), ctx, note_id, _space_scope(space))
        return Response({"note_id": str(note.note_id), "space": space})


class NoteUnpublishView(APIView):
    @extend_schema(
        summary="Return a published note to agent_private", operation_id="elf_notes_unpublish",
        parameters=CONTEXT_HEADERS, request=s.PublishSerializer,
        responses={200: s.PublishResponseSerializer, **NOTE_MOVE_ERRORS},
    )
    def post(self, request, note_id):
        ctx = context_from_request(request)
        space = validated(s.PublishSerializer, request.data)["space"]
        note = sharing.unpublish(get_config(), ctx, note_id, _space_scope(space))
        return Response({"note_id": str(note.note_id), "space": AGENT_PRIVATE})


class SpaceGrantsView(APIView):
    @extend_schema(
        summary="List the grants of the caller's space", operation_id="elf_space_grants_list",
        parameters=CONTEXT_HEADERS + [SPACE_PARAM, OpenApiParameter(
            "include_revoked", bool, default=False,
            description="Also list revoked grants, with revoked_by_agent_id and revoked_at.")],
        responses={200: s.GrantListResponseSerializer, **ERROR_RESPONSES},
    )
    def get(self, request, space):
        ctx = context_from_request(request)
        scope = _space_scope(space)
        flag = request.query_params.get("include_revoked", "false").lower()
        if flag not in ("true", "false"):
            raise InvalidRequest("include_revoked must be true or false.", ["$.query.include_revoked"])
        grants = sharing.list_grants(ctx, scope, include_revoked=flag == "true")
        return Response({"grants": [grant_to_dict(g) for g in grants]})

    @extend_schema(
        summary="Grant the caller's space to its whole project or to one agent (idempotent)",
        operation_id="elf_space_grant_upsert", parameters=CONTEXT_HEADERS + [SPACE_PARAM],
        request=s.GranteeSerializer, responses={200: s.GrantCreatedResponseSerializer, **ERROR_RESPONSES},
    )
    def post(self, request, space):
        ctx = context_from_request(request)
        scope = _space_scope(space)
        g = sharing.grant(ctx, scope, **_grantee(request, ctx))
        return Response({"space": space, "grantee_kind": g.grantee_kind, "grantee_agent_id": g.grantee_agent_id,
                         "granted": True})


class SpaceGrantRevokeView(APIView):
    @extend_schema(
        summary="Revoke a grant of the caller's space (history kept)", operation_id="elf_space_grant_revoke",
        parameters=CONTEXT_HEADERS + [SPACE_PARAM], request=s.GranteeSerializer,
        responses={200: s.GrantRevokedResponseSerializer, **ERROR_RESPONSES},
    )
    def post(self, request, space):
        ctx = context_from_request(request)
        scope = _space_scope(space)
        return Response({"revoked": sharing.revoke(ctx, scope, **_grantee(request, ctx))})
