"""Child process: optimize one qdrant-edge shard directory and report whether anything changed.

`EdgeShard.optimize()` holds the GIL for its whole run (seconds to minutes: it builds HNSW graphs), which
would stall every request thread of the server. So the server optimizes a copy of the shard here, in a
separate process at lower CPU priority, and swaps the result in afterwards. The server starts it in a session
of its own, so that with the kernel's autogroups its niceness counts against every other process's (a niced
child in the server's session would only yield to the server: measured under 32 agents over a 500k-point
collection, the optimizer's session took a core from the API's, docs/benchmarks.md).

Usage: python -m elf_infra.qdrant_server.optimize_worker SHARD_DIR
Prints one JSON line: {"optimized": true|false, "seconds": float, "nice": int, "own_session": bool,
"autogroup_nice": int|null}.
"""

from __future__ import annotations

import json
import sys
import time

import qdrant_edge as qe

from elf_infra.cpu_priority import autogroup_nice, leads_session, lower_priority

NICE = 10


def main(argv: list[str]) -> int:
    """Optimize the shard at argv[0]; exit 0 with a JSON report, or non-zero with the error on stderr."""
    if len(argv) != 1:
        print("usage: python -m elf_infra.qdrant_server.optimize_worker SHARD_DIR", file=sys.stderr)
        return 2
    # Query serving in the parent, and every request of the service, comes first; reported, so the server's log
    # shows the priority the optimization ran at.
    priority = {"nice": lower_priority(NICE), "own_session": leads_session(),
                "autogroup_nice": autogroup_nice()}
    started = time.monotonic()
    shard = qe.EdgeShard.load(argv[0])
    try:
        optimized = shard.optimize()
        shard.flush()
    finally:
        shard.close()
    print(json.dumps({"optimized": bool(optimized), "seconds": round(time.monotonic() - started, 3), **priority}),
          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
