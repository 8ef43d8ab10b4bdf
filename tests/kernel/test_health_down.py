"""GET /health names what is down: a real elf-api pointed at a Qdrant address where nothing listens."""

from __future__ import annotations

import tomllib

import requests

from elf_config.toml_writer import dumps
from tests.conftest import REPO, TEST_CONFIG, LiveProcess, entry_point, free_port, wait_http


def test_health_503_names_qdrant(test_stack, tmp_path):
    data = tomllib.loads(TEST_CONFIG.read_text())
    http_port, admin_port, mcp_port, dead_port = (free_port() for _ in range(4))
    data["service"].update(
        http_bind=f"127.0.0.1:{http_port}", admin_bind=f"127.0.0.1:{admin_port}", mcp_bind=f"127.0.0.1:{mcp_port}"
    )
    data["storage"]["qdrant"]["url"] = f"http://127.0.0.1:{dead_port}"
    data["stack"]["data_dir"] = str(REPO / "var" / "test-stack")
    cfg = tmp_path / "elf.toml"
    cfg.write_text(dumps(data))
    proc = LiveProcess([entry_point("elf-api"), "-c", str(cfg)], tmp_path / "api.log")
    try:
        wait_http(f"http://127.0.0.1:{http_port}/health", 60, proc.proc)
        r = requests.get(f"http://127.0.0.1:{http_port}/health", timeout=15)
        assert r.status_code == 503, r.text
        body = r.json()
        assert body["status"] == "unavailable"
        assert body["down"] == ["qdrant"]
        assert body["checks"]["postgres"] == "ok" and body["checks"]["broker"] == "ok"
    finally:
        proc.stop()
