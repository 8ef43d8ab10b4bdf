"""add_event ingestion profiles (supplement section 6): validation and merging with the built-in prompt.

A profile is a JSON object (``schema_version`` 1) that may override ``prompt_schema``,
``prompt_system_template``, ``prompt_user_template``, ``model``, ``temperature`` and ``timeout_ms``; every
field it leaves out falls back to the built-in profile (spec section 18 prompt, provider config for the rest).
Pure: no Django, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from elf_domain.extractor_prompt import BUILTIN_EXTRACTOR_PROMPT, ExtractorPrompt

SCHEMA_VERSION = 1
TEMPLATE_KEYS = ("prompt_system_template", "prompt_user_template")
ALLOWED_KEYS = frozenset({"schema_version", "prompt_schema", *TEMPLATE_KEYS, "model", "temperature", "timeout_ms"})
# Every placeholder must appear in the system or the user template (after merging with the built-in ones):
# without them the model would never see the schema, the limits or the messages.
REQUIRED_PLACEHOLDERS = ("<SCHEMA_JSON>", "<MAX_NOTES>", "<MAX_NOTE_CHARS>", "<MESSAGES_JSON>")
MAX_TEMPERATURE = 2.0


@dataclass(frozen=True)
class ResolvedProfile:
    """What one add_event extraction uses. ``None`` model/temperature/timeout_ms: the provider config's value.

    ``profile_id``/``version`` name the profile used: a stored one, or ``BUILTIN_PROFILE_ID`` version
    ``BUILTIN_PROFILE_VERSION`` for the built-in profile (the spec's extractor prompt, section 18).
    """

    prompt: ExtractorPrompt
    model: str | None
    temperature: float | None
    timeout_ms: int | None
    profile_id: str | None
    version: int | None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def profile_problems(profile: Any, path: str = "$.profile") -> list[tuple[str, str]]:
    """Every problem of ``profile`` as ``(JSONPath, message)``; empty when the profile is valid."""
    if not isinstance(profile, dict):
        return [(path, "must be a JSON object")]
    problems = [(f"{path}.{key}", "is not an allowed profile field") for key in sorted(set(profile) - ALLOWED_KEYS)]

    if "schema_version" in profile and not (
        _is_int(profile["schema_version"]) and profile["schema_version"] == SCHEMA_VERSION
    ):
        problems.append((f"{path}.schema_version", f"must be {SCHEMA_VERSION}"))

    if "prompt_schema" in profile:
        schema = profile["prompt_schema"]
        if not isinstance(schema, dict) or not schema:
            problems.append((f"{path}.prompt_schema", "must be a non-empty JSON object"))

    bad_templates = False
    for key in TEMPLATE_KEYS:
        if key in profile:
            value = profile[key]
            if not isinstance(value, str) or not value.strip():
                problems.append((f"{path}.{key}", "must be a non-empty string"))
                bad_templates = True
    if not bad_templates and any(key in profile for key in TEMPLATE_KEYS):
        system = profile.get("prompt_system_template", BUILTIN_EXTRACTOR_PROMPT.system_template)
        user = profile.get("prompt_user_template", BUILTIN_EXTRACTOR_PROMPT.user_template)
        missing = [p for p in REQUIRED_PLACEHOLDERS if p not in system and p not in user]
        if missing:
            # Blame the overridden template(s): the built-in ones are complete together.
            message = "templates must contain the placeholder(s) " + ", ".join(missing)
            problems.extend((f"{path}.{key}", message) for key in TEMPLATE_KEYS if key in profile)

    if "model" in profile:
        model = profile["model"]
        if not isinstance(model, str) or not model.strip():
            problems.append((f"{path}.model", "must be a non-empty string"))

    if "temperature" in profile:
        t = profile["temperature"]
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or not (
            0 <= t <= MAX_TEMPERATURE
        ):
            problems.append((f"{path}.temperature", f"must be a number from 0 to {MAX_TEMPERATURE:g}"))

    if "timeout_ms" in profile:
        timeout = profile["timeout_ms"]
        if not _is_int(timeout) or timeout <= 0:
            problems.append((f"{path}.timeout_ms", "must be a positive integer"))
    return problems


BUILTIN_PROFILE_ID = "builtin"  # reserved: no stored profile may take this id
BUILTIN_PROFILE_VERSION = 1


def merge_with_builtin(
    profile: dict[str, Any] | None, *, profile_id: str | None = None, version: int | None = None
) -> ResolvedProfile:
    """The resolved profile for a valid ``profile`` (None: the built-in profile, named by its reserved id).

    A profile that replaces ``prompt_schema`` drops the built-in ``response_format`` JSON Schema, which
    describes the built-in schema only; the extractor then relies on the prompt alone.
    """
    profile = profile or {}
    prompt = BUILTIN_EXTRACTOR_PROMPT
    if "prompt_schema" in profile:
        prompt = replace(prompt, prompt_schema=profile["prompt_schema"], response_schema=None)
    if "prompt_system_template" in profile:
        prompt = replace(prompt, system_template=profile["prompt_system_template"])
    if "prompt_user_template" in profile:
        prompt = replace(prompt, user_template=profile["prompt_user_template"])
    temperature = profile.get("temperature")
    return ResolvedProfile(
        prompt=prompt,
        model=profile.get("model"),
        temperature=None if temperature is None else float(temperature),
        timeout_ms=profile.get("timeout_ms"),
        profile_id=profile_id if profile_id is not None else BUILTIN_PROFILE_ID,
        version=version if profile_id is not None else BUILTIN_PROFILE_VERSION,
    )
