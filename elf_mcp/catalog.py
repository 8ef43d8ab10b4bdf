"""Every tool elf-mcp serves, public then admin."""

from __future__ import annotations

from .admin_tools import admin_tools
from .public_tools import public_tools
from .tool_spec import ToolSpec


def all_tools() -> list[ToolSpec]:
    return public_tools() + admin_tools()
