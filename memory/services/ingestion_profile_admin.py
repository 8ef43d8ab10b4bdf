"""The admin ingestion-profile routes' use cases (spec v2 section 15, supplement section 6), one entry point per
route that has a rule of its own: a profile id is an identifier (the English gate's script check, what creating
one required), and an omitted created_by is the caller's agent. Storage and resolution are ingestion_profiles'."""

from __future__ import annotations

from typing import Any

from elf_kernel.api.english_fields import IDENTIFIER, require_english
from elf_kernel.context import RequestContext
from elf_kernel.errors import NotFound

from ..models import MemoryIngestionProfile
from .ingestion_profiles import ProfileDefault, create_profile, get_default, get_profile, list_versions

PATH_ID = "$.path.profile_id"


def create_profile_version(*, ctx: RequestContext, profile_id: str, version: int | None, profile: dict[str, Any],
                           created_by: str | None) -> MemoryIngestionProfile:
    """Store a new immutable version (``version`` None: the next one), created by ``created_by`` or else the
    caller's agent."""
    created_by = created_by if created_by is not None else ctx.agent_id
    require_english([("$.profile_id", profile_id, IDENTIFIER), ("$.created_by", created_by, IDENTIFIER)])
    return create_profile(ctx, profile_id=profile_id, version=version, profile=profile, created_by=created_by)


def read_profile(*, ctx: RequestContext, profile_id: str, version: int | None) -> MemoryIngestionProfile:
    """The given version of the profile named in the path, else its latest."""
    require_english([(PATH_ID, profile_id, IDENTIFIER)])
    return get_profile(ctx, profile_id, version, id_path=PATH_ID, version_path="$.query.version")


def read_versions(*, ctx: RequestContext, profile_id: str) -> list[MemoryIngestionProfile]:
    """Every version of the profile named in the path, oldest first."""
    require_english([(PATH_ID, profile_id, IDENTIFIER)])
    return list_versions(ctx, profile_id)


def read_default(*, ctx: RequestContext) -> ProfileDefault:
    """The project's default profile; 404 when it has none (add_event then uses the built-in profile)."""
    default = get_default(ctx)
    if default is None:
        raise NotFound("No default ingestion profile is set for this project.", [])
    return default
