"""The X-ELF-* request context headers (spec v2 section 15): the API reads them, elf-mcp sends them."""

from __future__ import annotations

TENANT, PROJECT, AGENT, READ_PROFILE = (
    "X-ELF-Tenant-Id",
    "X-ELF-Project-Id",
    "X-ELF-Agent-Id",
    "X-ELF-Read-Profile",
)
