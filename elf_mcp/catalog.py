"""Every tool elf-mcp serves, public then admin (the v1 aliases after the public v2 tools)."""

from __future__ import annotations

from .acb_tools import acb_tools
from .admin_tools import admin_tools
from .core_memory_tools import admin_core_memory_tools, core_memory_tools
from .public_tools import public_tools
from .tool_spec import ToolSpec
from .v1_tools import v1_tools


def all_tools() -> list[ToolSpec]:
    return (public_tools() + v1_tools() + core_memory_tools() + acb_tools() + admin_tools()
            + admin_core_memory_tools())
