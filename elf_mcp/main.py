"""elf-mcp -c elf.toml: the Streamable HTTP MCP server on service.mcp_bind (path /mcp) that forwards every
tool call to elf-api with the [mcp] context headers."""

from __future__ import annotations

import argparse
import sys

GRACEFUL_SHUTDOWN_S = 5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="elf-mcp", description=__doc__)
    parser.add_argument("-c", "--config", required=True, help="path to elf.toml")
    args = parser.parse_args(argv)

    # No Django and no API code: the tool schemas come from the checked-in OpenAPI documents.
    from elf_config import load_or_exit
    from elf_config.rules import parse_bind

    cfg = load_or_exit(args.config)

    from .catalog import all_tools
    from .server import MCP_PATH, build_app
    from .upstream import StartupError, upstream_from_config

    try:
        upstream = upstream_from_config(cfg)
    except StartupError as exc:
        print(f"elf-mcp: {exc}", file=sys.stderr)
        return 2
    host, port = parse_bind(cfg.service.mcp_bind)  # the config rules already checked the form
    tools = all_tools()
    app = build_app(upstream, tools, host)
    print(f"elf-mcp: {len(tools)} tools at http://{cfg.service.mcp_bind}{MCP_PATH} -> public API "
          f"{upstream.public_url}, admin API {upstream.admin_url}"
          + (f" (admin tools disabled: {upstream.admin_disabled_reason})" if upstream.admin_disabled_reason else ""),
          file=sys.stderr, flush=True)

    import uvicorn

    uvicorn.run(
        app, host=host, port=port, log_level=cfg.service.log_level.lower(), proxy_headers=False,
        forwarded_allow_ips="", timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S, env_file=None,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
