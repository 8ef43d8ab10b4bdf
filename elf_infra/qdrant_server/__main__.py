"""python -m elf_infra.qdrant_server --host H --port P --data-dir DIR [--log-level LEVEL]"""

from __future__ import annotations

import argparse
import fcntl
import logging
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from .app import QDRANT_API_VERSION, QdrantHTTPServer
from .optimizer import Maintenance, OptimizePolicy
from .registry import CollectionRegistry
from .term_stats import IdfStatsPolicy

log = logging.getLogger("elf_infra.qdrant_server")


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Command-line options."""
    defaults = OptimizePolicy()
    p = argparse.ArgumentParser(prog="python -m elf_infra.qdrant_server",
                                description="Embedded Qdrant server: qdrant-edge shards behind Qdrant's REST API.")
    p.add_argument("--host", required=True, help="address to listen on, e.g. 127.0.0.1")
    p.add_argument("--port", required=True, type=int, help="TCP port to listen on")
    p.add_argument("--data-dir", required=True, type=Path, help="directory holding the collections")
    p.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    p.add_argument("--optimize-idle-seconds", type=float, default=defaults.idle_seconds,
                   help="optimize a collection once writes have paused this long (default %(default)s)")
    p.add_argument("--optimize-min-changes", type=int, default=defaults.min_changes,
                   help="points written or deleted since the last optimization before one is tried "
                        "(default %(default)s)")
    p.add_argument("--optimize-journal-max-points", type=int, default=defaults.journal_max_points,
                   help="points written while an optimization runs (kept in memory until its copy is swapped in) "
                        "beyond which it is cancelled and tried again once writes pause (default %(default)s)")
    idf = IdfStatsPolicy()
    p.add_argument("--idf-stats-min-points", type=int, default=idf.min_points,
                   help="keep BM25 document frequencies for an IDF corpus (one keyword value) of at least this many "
                        "points, instead of counting them per query (default %(default)s)")
    p.add_argument("--idf-stats-max-terms", type=int, default=idf.max_terms,
                   help="document frequencies kept per collection, over all corpora (default %(default)s)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Load the collections, serve until SIGTERM/SIGINT, then flush and close every shard."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    policy = OptimizePolicy(idle_seconds=args.optimize_idle_seconds, min_changes=args.optimize_min_changes,
                            journal_max_points=args.optimize_journal_max_points)

    data_dir = args.data_dir.resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    # held (and the lock with it) until the process exits
    lock = open(data_dir / "server.lock", "w")  # noqa: SIM115 - the flock must outlive this function
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        log.error("data dir %s is in use by another qdrant server process", data_dir)
        return 1
    registry = CollectionRegistry(data_dir, grey_after=policy.min_changes,
                                  idf_policy=IdfStatsPolicy(min_points=args.idf_stats_min_points,
                                                            max_terms=args.idf_stats_max_terms))
    registry.load_all()
    server = QdrantHTTPServer((args.host, args.port), registry)
    maintenance = Maintenance(registry, policy)

    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    serving = threading.Thread(target=server.serve_forever, name="qdrant-http", daemon=True)
    serving.start()
    maintenance.start()
    host, port = server.server_address[:2]
    log.info("qdrant-edge server (REST API %s) listening on http://%s:%d, data dir %s",
             QDRANT_API_VERSION, host, port, data_dir)
    stop.wait()

    log.info("shutting down")
    server.shutdown()
    server.server_close()
    maintenance.stop()
    registry.close_all()
    log.info("all shards flushed and closed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
