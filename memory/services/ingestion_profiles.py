"""add_event ingestion profiles (supplement section 6): immutable versions, the project default, resolution.

Everything is scoped to the request's (tenant, project); another tenant's or project's profile is not found.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Max

from elf_kernel.context import RequestContext
from elf_kernel.errors import ElfError, InvalidRequest, NotFound

from ..domain.ingestion_profile import (
    BUILTIN_PROFILE_ID,
    BUILTIN_PROFILE_VERSION,
    ResolvedProfile,
    merge_with_builtin,
    profile_problems,
)
from ..models import MemoryIngestionProfile, MemoryIngestionProfileDefault

PIPELINE = "add_event"


class ProfileConflict(ElfError):
    status, error_code = 409, "CONFLICT"


@dataclass(frozen=True)
class ProfileDefault:
    profile_id: str
    version: int | None  # None: the latest version
    updated_at: datetime


def _profiles(ctx: RequestContext):
    return MemoryIngestionProfile.objects.filter(tenant_id=ctx.tenant_id, project_id=ctx.project_id, pipeline=PIPELINE)


def validate_profile(profile: Any, path: str = "$.profile") -> None:
    problems = profile_problems(profile, path)
    if problems:
        message = "; ".join(f"{p} {why}" for p, why in problems)
        raise InvalidRequest(f"Invalid ingestion profile: {message}.", [p for p, _ in problems])


def create_profile(
    ctx: RequestContext, *, profile_id: str, version: int | None, profile: dict[str, Any], created_by: str
) -> MemoryIngestionProfile:
    """Store a new immutable version; ``version`` None takes the next one (1 for a new id).

    Raises ProfileConflict (409) when (profile_id, version) already exists.
    """
    validate_profile(profile)
    if profile_id == BUILTIN_PROFILE_ID:
        raise InvalidRequest(f"The profile id {BUILTIN_PROFILE_ID!r} is reserved for the built-in profile.",
                             ["$.profile_id"])
    try:
        with transaction.atomic():
            if version is None:
                latest = _profiles(ctx).filter(profile_id=profile_id).aggregate(v=Max("version"))["v"]
                version = (latest or 0) + 1
            row = MemoryIngestionProfile.objects.create(
                tenant_id=ctx.tenant_id, project_id=ctx.project_id, pipeline=PIPELINE, profile_id=profile_id,
                version=version, profile=profile, created_by=created_by,
            )
    except IntegrityError:  # the unique (tenant, project, pipeline, profile_id, version) index
        raise ProfileConflict(
            f"Ingestion profile {profile_id!r} version {version} already exists; versions are immutable.",
            ["$.profile_id", "$.version"],
        ) from None
    return row  # created_at comes back from the INSERT (db_default, RETURNING)


def get_profile(
    ctx: RequestContext,
    profile_id: str,
    version: int | None = None,
    *,
    id_path: str = "$.profile_id",
    version_path: str = "$.version",
) -> MemoryIngestionProfile:
    """The given version, or the latest when ``version`` is None; NotFound names ``id_path`` when the id has
    no version at all, else ``version_path``."""
    rows = _profiles(ctx).filter(profile_id=profile_id)
    if version is None:
        row = rows.order_by("-version").first()
        if row is None:
            raise NotFound(f"Ingestion profile {profile_id!r} not found.", [id_path])
        return row
    row = rows.filter(version=version).first()
    if row is None:
        fields = [version_path] if rows.exists() else [id_path]
        raise NotFound(f"Ingestion profile {profile_id!r} version {version} not found.", fields)
    return row


def list_latest_profiles(ctx: RequestContext) -> list[MemoryIngestionProfile]:
    """One row per profile_id, its latest version, ordered by profile_id."""
    return list(_profiles(ctx).order_by("profile_id", "-version").distinct("profile_id"))


def list_versions(ctx: RequestContext, profile_id: str) -> list[MemoryIngestionProfile]:
    """Every version of ``profile_id``, oldest first; NotFound when there is none."""
    rows = list(_profiles(ctx).filter(profile_id=profile_id).order_by("version"))
    if not rows:
        raise NotFound(f"Ingestion profile {profile_id!r} not found.", ["$.path.profile_id"])
    return rows


def get_default(ctx: RequestContext) -> ProfileDefault | None:
    row = MemoryIngestionProfileDefault.objects.filter(
        tenant_id=ctx.tenant_id, project_id=ctx.project_id, pipeline=PIPELINE
    ).first()
    return None if row is None else ProfileDefault(row.profile_id, row.version, row.updated_at)


def set_default(ctx: RequestContext, *, profile_id: str, version: int | None) -> ProfileDefault:
    """Make (profile_id, version) the project's default; the profile (and version, if given) must exist."""
    get_profile(ctx, profile_id, version)
    with connection.cursor() as cur:
        cur.execute(
            """
            INSERT INTO memory_ingestion_profile_defaults (tenant_id, project_id, pipeline, profile_id, version)
            VALUES (%s, %s, %s, %s, %s)
            ON CONFLICT (tenant_id, project_id, pipeline)
            DO UPDATE SET profile_id = EXCLUDED.profile_id, version = EXCLUDED.version, updated_at = now()
            RETURNING updated_at
            """,
            [ctx.tenant_id, ctx.project_id, PIPELINE, profile_id, version],
        )
        (updated_at,) = cur.fetchone()
    return ProfileDefault(profile_id, version, updated_at)


def resolve_profile(ctx: RequestContext, requested: dict[str, Any] | None) -> ResolvedProfile:
    """The profile an add_event request uses: ``requested`` (``{"id", "version"?}``, the request's
    ``ingestion_profile``), else the project's default, else the built-in profile (which a request may also
    name: ``{"id": "builtin"}``).

    A requested profile or version that does not exist is NotFound on ``$.ingestion_profile.id`` /
    ``$.ingestion_profile.version``.
    """
    if requested is not None and requested["id"] == BUILTIN_PROFILE_ID:
        if requested.get("version", BUILTIN_PROFILE_VERSION) != BUILTIN_PROFILE_VERSION:
            raise NotFound(f"The built-in profile has only version {BUILTIN_PROFILE_VERSION}.",
                           ["$.ingestion_profile.version"])
        return merge_with_builtin(None)
    if requested is not None:
        row = get_profile(
            ctx, requested["id"], requested.get("version"),
            id_path="$.ingestion_profile.id", version_path="$.ingestion_profile.version",
        )
    else:
        default = get_default(ctx)
        if default is None:
            return merge_with_builtin(None)
        row = get_profile(ctx, default.profile_id, default.version)
    return merge_with_builtin(row.profile, profile_id=row.profile_id, version=row.version)
