"""elf-mcp: the MCP server agents connect to (spec v2 section 17)."""
