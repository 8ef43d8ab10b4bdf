"""elf-stack up|down|status -c elf.toml: the embedded Postgres+pgvector, Redis and Qdrant for one machine.
elf-stack backup --out FILE / restore --in FILE -c elf.toml: the database, with the wheel's pg_dump/pg_restore."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from elf_config import ElfConfig, load_or_exit
from elf_config.postgres_sizing import machine_memory, postgres_memory, postgres_settings
from elf_infra.stack import backup
from elf_infra.stack.postgres import PostgresComponent
from elf_infra.stack.procs import StackError
from elf_infra.stack.qdrant import QdrantComponent
from elf_infra.stack.redis import RedisComponent


def components(cfg: ElfConfig) -> list:
    data_dir = Path(cfg.resolve_path(cfg.stack.data_dir))
    return [
        PostgresComponent(cfg.storage.postgres.dsn, data_dir, postgres_settings(
            postgres_memory(cfg.stack.postgres_memory, machine_memory()), overrides=cfg.stack.postgres_settings)),
        RedisComponent(cfg.worker.broker_url, data_dir),
        QdrantComponent(cfg.storage.qdrant.url, data_dir),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="elf-stack", description=__doc__)
    parser.add_argument("action", choices=["up", "down", "status", "backup", "restore"])
    parser.add_argument("-c", "--config", required=True, help="path to elf.toml")
    parser.add_argument("--out", type=Path, help="backup: the file to write (pg_dump custom format)")
    parser.add_argument("--in", dest="src", type=Path, help="restore: the backup file to read")
    args = parser.parse_args(argv)
    cfg = load_or_exit(args.config)
    if args.action in ("backup", "restore"):
        return _backup_or_restore(parser, args, cfg.storage.postgres.dsn, cfg.encryption_key_path)
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


def _backup_or_restore(parser: argparse.ArgumentParser, args: argparse.Namespace, dsn: str, key_path: str) -> int:
    path = args.out if args.action == "backup" else args.src
    if path is None:
        parser.error(f"{args.action} needs {'--out FILE' if args.action == 'backup' else '--in FILE'}")
    try:
        print(backup.backup(dsn, path) if args.action == "backup" else backup.restore(dsn, path), flush=True)
        if args.action == "backup":  # the dump holds sensitivity-high rows encrypted, never their key
            print(f"keep the encryption key {key_path} with this backup: sensitivity-high rows cannot be read "
                  "without it", flush=True)
    except StackError as exc:
        print(f"ERROR {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
