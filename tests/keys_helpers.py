"""Static API keys for a test service: ``Keys`` makes one random token per named key and writes them into a
config (``security.auth_mode = "static_keys"``); ``bearer(name)`` is that key's Authorization header."""

from __future__ import annotations

import secrets


class Keys:
    def __init__(self, *specs: tuple[str, str, str, str] | tuple[str, str, str, str, str]):
        """Each spec: (name, tenant, project, agent[, role]); the name is the key's token_id."""
        self.keys = {}
        for name, tenant, project, agent, *role in specs:
            self.keys[name] = {"token_id": name, "token": secrets.token_urlsafe(24), "tenant_id": tenant,
                               "project_id": project, "agent_id": agent, "role": role[0] if role else "user"}

    def configure(self, data: dict) -> None:
        """A ServiceFactory ``mutate`` (or part of one): keys on, these keys."""
        data["security"].update(auth_mode="static_keys", auth_keys=list(self.keys.values()))

    def bearer(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.keys[name]['token']}"}

    def __getitem__(self, name: str) -> dict:
        return self.keys[name]
