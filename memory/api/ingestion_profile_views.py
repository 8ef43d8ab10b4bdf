"""Admin ingestion profile endpoints (spec v2 section 15, supplement section 6), on the admin bind.

Scoped to the context headers' (tenant, project): another tenant's or project's profile is 404. Thin: validate
the shape, call the route's use case (memory.services.ingestion_profile_admin, memory.services.ingestion_profiles),
render.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.api.schema_docs import CONTEXT_HEADERS, ERROR_RESPONSES, ErrorBody
from elf_kernel.api.validation import validated
from elf_kernel.context import context_from_request

from ..services import ingestion_profile_admin as admin
from ..services import ingestion_profiles as svc
from . import ingestion_profile_serializers as s

PROFILE_ID_PATH = OpenApiParameter("profile_id", str, OpenApiParameter.PATH)


def _summary(row) -> dict:
    return {"profile_id": row.profile_id, "version": row.version, "created_at": row.created_at.isoformat(),
            "created_by": row.created_by}


def _full(row) -> dict:
    return {"profile_id": row.profile_id, "version": row.version, "profile": row.profile,
            "created_at": row.created_at.isoformat(), "created_by": row.created_by}


def _default(d: svc.ProfileDefault) -> dict:
    return {"profile_id": d.profile_id, "version": d.version, "updated_at": d.updated_at.isoformat()}


class IngestionProfilesView(APIView):
    @extend_schema(
        operation_id="elf_admin_events_ingestion_profiles_list",
        summary="List add_event ingestion profiles (latest version of each profile_id)",
        parameters=CONTEXT_HEADERS, responses={200: s.ProfileListSerializer, **ERROR_RESPONSES},
    )
    def get(self, request):
        ctx = context_from_request(request)
        return Response({"profiles": [_summary(r) for r in svc.list_latest_profiles(ctx)]})

    @extend_schema(
        operation_id="elf_admin_events_ingestion_profiles_create",
        summary="Create an immutable ingestion profile version",
        parameters=CONTEXT_HEADERS, request=s.CreateProfileSerializer,
        responses={
            200: s.ProfileSerializer,
            409: OpenApiResponse(ErrorBody, description="(profile_id, version) already exists (CONFLICT)"),
            **ERROR_RESPONSES,
        },
    )
    def post(self, request):
        ctx = context_from_request(request)
        data = validated(s.CreateProfileSerializer, request.data)
        row = admin.create_profile_version(ctx=ctx, profile_id=data["profile_id"], version=data.get("version"),
                                           profile=data["profile"], created_by=data.get("created_by"))
        return Response(_full(row))


class IngestionProfileView(APIView):
    @extend_schema(
        operation_id="elf_admin_events_ingestion_profile_get",
        summary="Get an ingestion profile: the given version, else the latest",
        parameters=CONTEXT_HEADERS + [PROFILE_ID_PATH, s.ProfileQuerySerializer],
        responses={200: s.ProfileSerializer, **ERROR_RESPONSES},
    )
    def get(self, request, profile_id: str):
        ctx = context_from_request(request)
        q = validated(s.ProfileQuerySerializer, request.query_params.dict(), "$.query")
        row = admin.read_profile(ctx=ctx, profile_id=profile_id, version=q.get("version"))
        return Response(_full(row))


class IngestionProfileVersionsView(APIView):
    @extend_schema(
        operation_id="elf_admin_events_ingestion_profile_versions_list",
        summary="List every version of an ingestion profile, oldest first",
        parameters=CONTEXT_HEADERS + [PROFILE_ID_PATH],
        responses={200: s.ProfileListSerializer, **ERROR_RESPONSES},
    )
    def get(self, request, profile_id: str):
        ctx = context_from_request(request)
        return Response({"profiles": [_summary(r) for r in admin.read_versions(ctx=ctx, profile_id=profile_id)]})


class IngestionProfileDefaultView(APIView):
    @extend_schema(
        operation_id="elf_admin_events_ingestion_profile_default_get",
        summary="Get the project's default add_event ingestion profile",
        description="404 when the project has no default (add_event then uses the built-in profile).",
        parameters=CONTEXT_HEADERS, responses={200: s.ProfileDefaultSerializer, **ERROR_RESPONSES},
    )
    def get(self, request):
        ctx = context_from_request(request)
        return Response(_default(admin.read_default(ctx=ctx)))

    @extend_schema(
        operation_id="elf_admin_events_ingestion_profile_default_set",
        summary="Set the project's default add_event ingestion profile",
        description="The profile (and the version, when given) must exist: 404 NOT_FOUND naming "
        "$.profile_id or $.version otherwise. A null or omitted version means the latest at each request.",
        parameters=CONTEXT_HEADERS, request=s.SetDefaultSerializer,
        responses={200: s.ProfileDefaultSerializer, **ERROR_RESPONSES},
    )
    def post(self, request):
        ctx = context_from_request(request)
        data = validated(s.SetDefaultSerializer, request.data)
        default = svc.set_default(ctx, profile_id=data["profile_id"], version=data.get("version"))
        return Response(_default(default))
