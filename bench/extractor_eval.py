"""elf-bench extractor: the offline extractor's quality on the v2 labelled set, and on LoCoMo's observations.

    elf-bench extractor                 P/R, key agreement, secrets and verbatim quotes on the dev half, the
                                        held-out half and all, overall and per kind of snippet
    elf-bench extractor --locomo        also the share of LoCoMo observations an extracted note carries
    elf-bench extractor --misses        per-snippet misses and false notes, dev half only (the held-out half is
                                        never shown per snippet: it is the untouched test of the rules)

Pure and offline: no service, no config. The protocol and the numbers are in docs/benchmarks.md
("Extraction"); the scoring rules in bench/extractor_score.py, the LoCoMo criterion in bench/extractor_locomo.py.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from elf_infra.providers.local_extractor import LocalExtractorProvider

from .extractor_locomo import LOCOMO, THRESHOLD, measure
from .extractor_score import Tally, score, split_of

SET_V2 = Path(__file__).resolve().parent.parent / "tests" / "data" / "extractor_set_v2.json"
SPLITS = ("dev", "held-out", "all")


def load_set(path: Path = SET_V2) -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))


def local_extract(max_notes: int = 10, max_note_chars: int = 240):
    extractor = LocalExtractorProvider("local-rules", max_notes=max_notes, max_note_chars=max_note_chars)
    return lambda messages: extractor.extract(messages)["notes"]


def _row(split: str, kind: str, t: Tally) -> str:
    return (f"{split:<9} {kind:<13} {t.snippets:>4} {t.expected:>4} {t.emitted:>4} {t.matched:>4} "
            f"{t.precision:>6.3f} {t.recall:>6.3f} {t.key_match:>6.3f} {t.secrets:>4} {t.not_verbatim:>4}")


def print_table(tallies: dict[str, Tally]) -> None:
    print(f"{'split':<9} {'kind':<13} {'snip':>4} {'lab':>4} {'emit':>4} {'hit':>4} "
          f"{'P':>6} {'R':>6} {'key':>6} {'sec':>4} {'nonv':>4}")
    for split in SPLITS:
        print(_row(split, "(all kinds)", tallies[split]))
    kinds = sorted({name.split("/", 1)[1] for name in tallies if name.startswith("all/")})
    for kind in kinds:
        for split in SPLITS:
            if f"{split}/{kind}" in tallies:
                print(_row(split, kind, tallies[f"{split}/{kind}"]))


def print_misses(tallies: dict[str, Tally]) -> None:
    from .extractor_score import match_notes

    for result in tallies["dev"].cases:
        case, notes = result.case, result.notes
        pairs = match_notes(case["expected"], notes)
        hit_notes, hit_labels = {n for n, _ in pairs}, {lab for _, lab in pairs}
        missed = [e for i, e in enumerate(case["expected"]) if i not in hit_labels]
        false = [n for i, n in enumerate(notes) if i not in hit_notes]
        if missed or false:
            print(f"-- {case['id']}: {' | '.join(m['content'] for m in case['messages'])}")
            for e in missed:
                print(f"   missed {e['type']} [{e['anchor']}]")
            for n in false:
                print(f"   false  {n['type']}: {n['text']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="elf-bench extractor", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", type=Path, default=SET_V2, help="labelled set (default: %(default)s)")
    parser.add_argument("--locomo", action="store_true", help="also LoCoMo's observations")
    parser.add_argument("--locomo-path", type=Path, default=LOCOMO)
    parser.add_argument("--misses", action="store_true", help="per-snippet errors of the dev half")
    args = parser.parse_args(argv)
    extract = local_extract()
    cases = load_set(args.set)
    tallies = score(cases, extract)
    held = sum(split_of(c) == "held-out" for c in cases)
    print(f"extractor set {args.set.name}: {len(cases)} snippets, {len(cases) - held} dev, {held} held-out "
          "(sha256 of the id odd); P = matched/emitted, R = matched/labelled, key = matched with the labelled "
          "key, sec = notes carrying a secret, nonv = notes with a non-verbatim quote")
    print_table(tallies)
    if args.misses:
        print_misses(tallies)
    if args.locomo:
        m = measure(extract, args.locomo_path)
        also = ", ".join(f">= {t}: {m['carried'][t]:.3f} (ceiling {m['ceiling'][t]:.3f})"
                         for t in m["carried"] if t != THRESHOLD)
        print(f"LoCoMo observations: {m['observations']} ({m['missing_turn_ids']} evidence ids not in the dialogue), "
              f"{m['turns']} evidence turns, {m['notes']} notes; observations with any note from their turns "
              f"{m['with_any_note'] / m['observations']:.3f}")
        print(f"LoCoMo observations carried (a note covers >= {THRESHOLD} of the observation's content words): "
              f"{m['carried'][THRESHOLD]:.3f}; the evidence turns themselves reach {m['ceiling'][THRESHOLD]:.3f} "
              f"(ceiling); at {also}")
    return 0
