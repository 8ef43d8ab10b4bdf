"""Where elf-mcp forwards to and what it attaches, read once from elf.toml at start-up.

elf-mcp refuses to start (``StartupError``) when it could only fail: no ``[mcp]`` section, or
``security.auth_mode = "static_keys"`` without a usable key. What is "disabled" rather than fatal: with
static keys and a key that is not an admin key, the admin tools stay listed but every call to one fails
closed with ``ELF_MCP_TOOL_DISABLED`` (the admin API would refuse that key anyway).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from elf_config import ElfConfig
from elf_config.schema import AuthMode, AuthRole
from elf_domain.context_headers import AGENT, PROJECT, READ_PROFILE, TENANT


class StartupError(Exception):
    """elf-mcp cannot run with this configuration; the message says what to change."""


@dataclass(frozen=True)
class Upstream:
    public_url: str
    admin_url: str
    tenant_id: str
    project_id: str
    agent_id: str
    read_profile: str
    bearer_token: str | None = field(default=None, repr=False)
    admin_disabled_reason: str | None = None

    def headers(self, read_profile: Any = None) -> dict[str, str]:
        """The headers every forwarded call carries; ``read_profile`` is a per-call override, sent as given."""
        out = {TENANT: self.tenant_id, PROJECT: self.project_id, AGENT: self.agent_id,
               READ_PROFILE: self.read_profile if read_profile is None else str(read_profile)}
        if self.bearer_token is not None:
            out["Authorization"] = f"Bearer {self.bearer_token}"
        return out

    def base_url(self, bind: str) -> str:
        return self.admin_url if bind == "admin" else self.public_url


def upstream_from_config(cfg: ElfConfig) -> Upstream:
    m = cfg.mcp
    if m is None:
        raise StartupError(
            f"elf-mcp needs an [mcp] section in {cfg.source_path}: tenant_id, project_id and agent_id (the "
            "context it acts in) and optionally read_profile (default private_plus_project)."
        )
    read_profile = m.read_profile  # private_plus_project when the config omits it (elf_config.schema)
    token, admin_reason = _auth(cfg, read_profile)
    return Upstream(
        public_url=f"http://{cfg.service.http_bind}", admin_url=f"http://{cfg.service.admin_bind}",
        tenant_id=m.tenant_id, project_id=m.project_id, agent_id=m.agent_id, read_profile=read_profile,
        bearer_token=token, admin_disabled_reason=admin_reason,
    )


def _auth(cfg: ElfConfig, read_profile: str) -> tuple[str | None, str | None]:
    """(bearer token or None, why the admin tools are disabled or None)."""
    security = cfg.security
    mode = security.auth_mode  # off when the config omits it (elf_config.schema)
    token_id = getattr(cfg.mcp, "auth_token_id", None)
    if mode == AuthMode.OFF:
        return None, None
    if mode != AuthMode.STATIC_KEYS:
        raise StartupError(f"elf-mcp does not know security.auth_mode = {mode!r}; it supports off and static_keys.")
    keys = list(getattr(security, "auth_keys", None) or [])
    known = ", ".join(repr(k.token_id) for k in keys) or "none"
    if not token_id:
        raise StartupError(
            'security.auth_mode = "static_keys": set mcp.auth_token_id to the token_id of the '
            f"[[security.auth_keys]] entry elf-mcp should send (configured token_ids: {known})."
        )
    key = next((k for k in keys if k.token_id == token_id), None)
    if key is None or not key.token:
        raise StartupError(f"mcp.auth_token_id = {token_id!r} names no [[security.auth_keys]] entry with a token "
                           f"(configured token_ids: {known}).")
    wanted = {"tenant_id": cfg.mcp.tenant_id, "project_id": cfg.mcp.project_id, "agent_id": cfg.mcp.agent_id}
    if getattr(key, "read_profile", None) is not None:
        wanted["read_profile"] = read_profile
    clashes = [f"mcp.{k} = {v!r} but the key's {k} = {getattr(key, k)!r}" for k, v in wanted.items()
               if getattr(key, k) != v]
    if clashes:
        # elf-api answers 403 to every call whose context headers differ from the key's context.
        raise StartupError(f"mcp.auth_token_id = {token_id!r} is bound to another context: {'; '.join(clashes)}.")
    admin_reason = None if _is_admin(key) else f"API key {token_id!r} is not an admin key"
    return key.token, admin_reason


def _is_admin(key: Any) -> bool:
    if hasattr(key, "is_admin"):
        return bool(key.is_admin)
    return getattr(key, "role", None) == AuthRole.ADMIN or getattr(key, "admin", None) is True
