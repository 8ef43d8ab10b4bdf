"""Child process: optimize one qdrant-edge shard directory and report whether anything changed.

`EdgeShard.optimize()` holds the GIL for its whole run (seconds to minutes: it builds HNSW graphs), which
would stall every request thread of the server. So the server optimizes a copy of the shard here, in a
separate process at lower CPU priority, and swaps the result in afterwards.

Usage: python -m elf_infra.qdrant_server.optimize_worker SHARD_DIR
Prints one JSON line: {"optimized": true|false, "seconds": float}.
"""

from __future__ import annotations

import json
import os
import sys
import time

import qdrant_edge as qe

NICE_INCREMENT = 10


def main(argv: list[str]) -> int:
    """Optimize the shard at argv[0]; exit 0 with a JSON report, or non-zero with the error on stderr."""
    if len(argv) != 1:
        print("usage: python -m elf_infra.qdrant_server.optimize_worker SHARD_DIR", file=sys.stderr)
        return 2
    os.nice(NICE_INCREMENT)  # query serving in the parent comes first
    started = time.monotonic()
    shard = qe.EdgeShard.load(argv[0])
    try:
        optimized = shard.optimize()
        shard.flush()
    finally:
        shard.close()
    print(json.dumps({"optimized": bool(optimized), "seconds": round(time.monotonic() - started, 3)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
