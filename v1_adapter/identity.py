"""The request context of a v1 call, from its body or query string instead of the X-ELF-* headers.

The same rules as the headers (elf_kernel.context): English identifiers of at most 128 characters, not the
reserved org project id, a read profile the config defines; every bad field reported at once as its JSONPath.
Being body fields, ids that fail the English identifier gate are 422 NON_ENGLISH_INPUT (v1 invariant I4), as
the body's other identifiers are; a header failing it is 400.
With static API keys each id given must be the key's (403 FORBIDDEN naming the fields that differ).
"""

from __future__ import annotations

from elf_domain.context_headers import AGENT, PROJECT, READ_PROFILE, TENANT
from elf_kernel.api.english_fields import IDENTIFIER, require_english
from elf_kernel.auth import Forbidden, matched_key
from elf_kernel.context import RequestContext, context_problems, key_conflicts
from elf_kernel.errors import InvalidRequest

HEADER_OF = {"tenant_id": TENANT, "project_id": PROJECT, "agent_id": AGENT, "read_profile": READ_PROFILE}
FIELD_OF = {header: field for field, header in HEADER_OF.items()}
# GET /v1/memory/list may omit agent_id (v1: only scope agent_private needs it). Without a key that is no
# agent at all: no note is the caller's own, and another agent's shared note is listed only through a grant to
# every agent of the project (the one read rule, memory.selectors.readable_notes, decides as for anyone else).
NO_AGENT = ""


def v1_context(request, data: dict, *, prefix: str = "$", with_read_profile: bool = False) -> RequestContext:
    """The context of validated v1 fields (``data``); ``prefix`` is where they sit ($, or $.query for a query
    string). An omitted agent_id is the key's agent with static keys, else ``NO_AGENT``."""
    names = ["tenant_id", "project_id"] + (["agent_id"] if data.get("agent_id") is not None else [])
    names += ["read_profile"] if with_read_profile else []
    # Body fields, so the English gate's 422 as for the body's other identifiers (scope, type, key; v1 I4)
    require_english([(f"{prefix}.{n}", data[n], IDENTIFIER) for n in names if isinstance(data.get(n), str)])
    values = {HEADER_OF[n]: data.get(n) for n in names}
    bad = context_problems(values)
    if bad:
        message = "; ".join(f"{FIELD_OF[h]} {why}" for h, why in bad.items())
        raise InvalidRequest(f"Invalid request context: {message}.", [f"{prefix}.{FIELD_OF[h]}" for h in bad])
    key = matched_key(request)
    if key is not None:
        conflicts = [FIELD_OF[h] for h in key_conflicts(key, values)]
        if conflicts:
            raise Forbidden(f"{', '.join(conflicts)} differ{'s' if len(conflicts) == 1 else ''} from the context of "
                            "this API key.", [f"{prefix}.{n}" for n in conflicts])
    agent = data.get("agent_id") or (key.agent_id if key is not None else NO_AGENT)
    return RequestContext(tenant_id=data["tenant_id"], project_id=data["project_id"], agent_id=agent,
                          read_profile=data.get("read_profile") if with_read_profile else None)
