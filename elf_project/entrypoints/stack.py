"""elf-stack up|down|status -c elf.toml: the embedded Postgres+pgvector, Redis and Qdrant for one machine."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from elf_infra.stack.postgres import PostgresComponent
from elf_infra.stack.procs import StackError
from elf_infra.stack.qdrant import QdrantComponent
from elf_infra.stack.redis import RedisComponent

from elf_config import ElfConfig
from elf_config import load_or_exit


def components(cfg: ElfConfig) -> list:
    data_dir = Path(cfg.resolve_path(cfg.stack.data_dir))
    return [
        PostgresComponent(cfg.storage.postgres.dsn, data_dir),
        RedisComponent(cfg.worker.broker_url, data_dir),
        QdrantComponent(cfg.storage.qdrant.url, data_dir),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="elf-stack", description=__doc__)
    parser.add_argument("action", choices=["up", "down", "status"])
    parser.add_argument("-c", "--config", required=True, help="path to elf.toml")
    args = parser.parse_args(argv)
    cfg = load_or_exit(args.config)
    Path(cfg.resolve_path(cfg.stack.data_dir)).mkdir(parents=True, exist_ok=True)
    comps = components(cfg)
    if args.action == "down":
        comps.reverse()
    failed = False
    lines: list[str] = []
    for comp in comps:
        try:
            line = getattr(comp, args.action)()
        except StackError as exc:
            line, failed = f"ERROR {exc}", True
        lines.append(line)
        print(f"{comp.name:9s} {line}", flush=True)
        if failed and args.action == "up":
            break
    if args.action == "status":
        return 0 if all(line.startswith("running") for line in lines) else 3
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
