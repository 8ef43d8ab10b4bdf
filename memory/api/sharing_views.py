"""Publish/unpublish and space grants (spec v2 section 15). Thin: validate the shape, call the route's use case
(memory.services.sharing, memory.services.space_grants: the write rule, the owner and the grantee rules), render."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_domain.spaces import AGENT_PRIVATE, SCOPE_SPACES
from elf_kernel.api.schema_docs import CONTEXT_HEADERS, ERROR_RESPONSES
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request
from elf_kernel.errors import InvalidRequest
from elf_kernel.runtime import get_config

from ..services.sharing import publish, unpublish
from ..services.space_grants import grant_space, list_space_grants, revoke_space_grant
from . import sharing_serializers as s
from .note_serializers import NOTE_MOVE_ERRORS

SPACE_PARAM = OpenApiParameter("space", str, OpenApiParameter.PATH, enum=list(s.SPACES))


def _path_space(space: str) -> str:
    """The {space} of a grants route: a public space name."""
    if space not in s.SPACES:
        raise InvalidRequest(f"Unknown space {space!r}; use one of {', '.join(s.SPACES)}.", ["$.path.space"])
    return space


def _grantee(request) -> dict:
    data = validated(s.GranteeSerializer, request.data)
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
        note = publish(cfg=get_config(), ctx=ctx, note_id=note_id, space=space)
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
        note = unpublish(cfg=get_config(), ctx=ctx, note_id=note_id, space=space)
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
        space = _path_space(space)
        flag = request.query_params.get("include_revoked", "false").lower()
        if flag not in ("true", "false"):
            raise InvalidRequest("include_revoked must be true or false.", ["$.query.include_revoked"])
        grants = list_space_grants(ctx=ctx, space=space, include_revoked=flag == "true")
        return Response({"grants": [grant_to_dict(g) for g in grants]})

    @extend_schema(
        summary="Grant the caller's space to its whole project or to one agent (idempotent)",
        operation_id="elf_space_grant_upsert", parameters=CONTEXT_HEADERS + [SPACE_PARAM],
        request=s.GranteeSerializer, responses={200: s.GrantCreatedResponseSerializer, **ERROR_RESPONSES},
    )
    def post(self, request, space):
        ctx = context_from_request(request)
        space = _path_space(space)
        g = grant_space(ctx=ctx, space=space, **_grantee(request))
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
        space = _path_space(space)
        return Response({"revoked": revoke_space_grant(ctx=ctx, space=space, **_grantee(request))})
