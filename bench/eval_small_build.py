"""Build tests/data/eval_small.json (locomo_retrieval/v1) from the dialogue scripts in bench/eval_small_src/.

The scripts were written for ELF (no third-party text). Format of a script:

    # a comment
    conversation ev-a
    speakers Nadia, Tomas
    == session 1 | 2024-03-02T10:15
    Nadia: a dialogue turn, optionally ending with a label @adopt
    ?? single-hop | a query | label, label | its answer

Items get LoCoMo-style ids (``<conversation>:D<session>:<turn>``); a query's labels name its expected items.
Usage: ``python -m bench.eval_small_build`` writes the file; ``--check`` exits 1 when the file is stale.
The output is deterministic, and validated with the loader elf-eval uses (bench.eval_dataset).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from datetime import datetime
from pathlib import Path

from .eval_dataset import FORMAT, parse_dataset

SRC = Path(__file__).resolve().parent / "eval_small_src"
OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "eval_small.json"
CATEGORIES = {"multi-hop": 1, "temporal": 2, "open-domain": 3, "single-hop": 4}
_SESSION = re.compile(r"^== session (\d+) \| (\S+)$")
_TURN = re.compile(r"^([A-Z][A-Za-z]+): (.+?)(?: @([a-z0-9_]+))?$")


class ScriptError(ValueError):
    pass


def _date_time(ts: datetime) -> str:
    """LoCoMo's session_date_time style: '10:15 am on 2 March, 2024'."""
    hour = ts.hour % 12 or 12
    return f"{hour}:{ts.minute:02d} {'am' if ts.hour < 12 else 'pm'} on {ts.day} {ts:%B}, {ts.year}"


def parse_script(text: str, name: str) -> dict:
    conv: dict = {"conversation_id": None, "speakers": [], "items": [], "queries": []}
    labels: dict[str, str] = {}
    session, turn, ts = None, 0, None
    raw_queries = []
    for n, line in enumerate(text.splitlines(), start=1):
        at = f"{name}:{n}"
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("conversation "):
            conv["conversation_id"] = line.split(" ", 1)[1].strip()
        elif line.startswith("speakers "):
            conv["speakers"] = [s.strip() for s in line.split(" ", 1)[1].split(",")]
        elif m := _SESSION.match(line):
            session, turn, ts = int(m.group(1)), 0, datetime.fromisoformat(m.group(2))
        elif line.startswith("??"):
            raw_queries.append((at, [p.strip() for p in line[2:].split("|")]))
        elif m := _TURN.match(line):
            speaker, body, label = m.groups()
            if session is None or speaker not in conv["speakers"]:
                raise ScriptError(f"{at}: a turn needs a session and a listed speaker")
            turn += 1
            item_id = f"{conv['conversation_id']}:D{session}:{turn}"
            if label:
                if label in labels:
                    raise ScriptError(f"{at}: label @{label} is used twice")
                labels[label] = item_id
            conv["items"].append({
                "item_id": item_id, "text": f"{speaker}: {body}", "speaker": speaker, "dia_id": f"D{session}:{turn}",
                "session": session, "session_date_time": _date_time(ts), "session_date": ts.isoformat(),
                "has_image": False,
            })
        else:
            raise ScriptError(f"{at}: cannot read {line[:40]!r}")
    for i, (at, parts) in enumerate(raw_queries):
        if len(parts) != 4 or parts[0] not in CATEGORIES:
            raise ScriptError(f"{at}: a query is '?? <category> | <text> | <labels> | <answer>'")
        category, query, names, answer = parts
        missing = [x.strip() for x in names.split(",") if x.strip() not in labels]
        if missing:
            raise ScriptError(f"{at}: unknown label(s) {missing}")
        conv["queries"].append({
            "query_id": f"{conv['conversation_id']}:q{i}", "text": query,
            "expected_item_ids": [labels[x.strip()] for x in names.split(",")],
            "category": CATEGORIES[category], "category_name": category, "answer": answer,
        })
    return conv


def build() -> bytes:
    convs = [parse_script(p.read_text(), p.name) for p in sorted(SRC.glob("*.txt"))]
    queries = [q for c in convs for q in c["queries"]]
    stats = {"conversations": len(convs), "items_total": sum(len(c["items"]) for c in convs),
             "queries_kept": len(queries)}
    for _name, number in sorted(CATEGORIES.items(), key=lambda kv: kv[1]):
        stats[f"queries_kept_category_{number}"] = sum(q["category"] == number for q in queries)
    data = {
        "format": FORMAT,
        "source": {"dataset": "ELF eval_small: dialogue written for ELF's retrieval CI (bench/eval_small_src)",
                   "license": "same as this repository"},
        "category_names": {str(v): k for k, v in sorted(CATEGORIES.items(), key=lambda kv: kv[1])},
        "excluded_categories": [],
        "stats": stats,
        "conversations": convs,
    }
    raw = (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode()
    parse_dataset(raw, str(OUT))  # the loader elf-eval uses
    return raw


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.eval_small_build", description=__doc__.split("\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 when tests/data/eval_small.json is stale")
    args = p.parse_args(argv)
    raw = build()
    if args.check:
        fresh = OUT.exists() and OUT.read_bytes() == raw
        print(f"{OUT}: {'up to date' if fresh else 'STALE: run python -m bench.eval_small_build'}")
        return 0 if fresh else 1
    OUT.write_bytes(raw)
    print(f"wrote {OUT} ({len(raw)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
