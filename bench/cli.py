"""elf-bench <name> [options]: benchmark commands that print numbers."""

from __future__ import annotations

import sys

BENCHES = {
    "embedder": "bench.embedder_bench",
    "qdrant": "bench.qdrant_bench",
    "add-note": "bench.add_note_bench",
    "search": "bench.search_bench",
}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] not in BENCHES:
        print(f"usage: elf-bench {{{'|'.join(BENCHES)}}} [options]  (elf-bench NAME --help for options)", file=sys.stderr)
        return 2
    import importlib

    return importlib.import_module(BENCHES[args[0]]).main(args[1:])


if __name__ == "__main__":
    sys.exit(main())
