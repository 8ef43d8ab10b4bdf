"""LoCoMo's per-session observations as a second, public extraction set (CC BY-NC 4.0: read in place from
shared/benchmarks/locomo beside the repository, never copied into it).

Each observation ("Caroline attended an LGBTQ support group recently ...") names the dialogue turns it rests
on ("D1:3"). Every evidence turn is given to the extractor alone, as one user message (the speaker talks in
the first person, so the extractor's "the user" is that turn's speaker, and is read as the speaker's name).

Criterion: an observation is *carried* when one note extracted from its evidence turn(s) covers at least
``THRESHOLD`` of the observation's content words. Content words are the BM25 index's terms (Qdrant's tokenizer,
NLTK's English stopwords dropped, Snowball-stemmed; ``local_rerank.content_terms``), less the observed
speaker's name, which the note says as "the user". A note's words are its text and its evidence quote. The
same criterion applied to the whole evidence turn text is reported as the ceiling: a note can only carry
words its turn holds, and observations paraphrase ("yesterday" becomes "recently").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from elf_infra.providers.local_rerank import content_terms

from .extractor_score import Extract

LOCOMO = Path(__file__).resolve().parent.parent.parent / "shared" / "benchmarks" / "locomo" / "locomo10.json"
THRESHOLD = 0.5
ALSO_AT = (0.3, 0.7)
_USER = re.compile(r"\bthe user\b", re.IGNORECASE)


@dataclass
class Observation:
    speaker: str
    text: str
    turns: list[tuple[str, str]]  # (speaker, text) of each evidence turn found in the conversation


def observations(path: Path = LOCOMO) -> tuple[list[Observation], int]:
    """Every observation with its evidence turns; also the count of evidence ids not found in the dialogue."""
    found, missing = [], 0
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conversation = sample["conversation"]
        turns = {t["dia_id"]: (t["speaker"], t["text"]) for key, session in conversation.items()
                 if key.startswith("session_") and isinstance(session, list) for t in session}
        for session in sample["observation"].values():
            for speaker, items in session.items():
                for text, evidence in items:
                    ids = evidence if isinstance(evidence, list) else re.split(r"[,;\s]+", evidence)
                    ids = [i.strip() for i in ids if i.strip()]
                    missing += sum(1 for i in ids if i not in turns)
                    found.append(Observation(speaker, text, [turns[i] for i in ids if i in turns]))
    return found, missing


def coverage(observation: Observation, words: str) -> float:
    wanted = content_terms(observation.text) - content_terms(observation.speaker)
    return len(wanted & content_terms(words)) / len(wanted) if wanted else 0.0


def measure(extract: Extract, path: Path = LOCOMO) -> dict[str, Any]:
    items, missing = observations(path)
    cache: dict[tuple[str, str], list[str]] = {}
    best_note, best_turn, with_notes = [], [], 0
    for item in items:
        note_words = []
        for speaker, text in item.turns:
            if (speaker, text) not in cache:
                notes = extract([{"role": "user", "content": text}])
                cache[(speaker, text)] = [
                    _USER.sub(speaker, n.get("text", "")) + " " + " ".join(e["quote"] for e in n["evidence"])
                    for n in notes]
            note_words.extend(cache[(speaker, text)])
        with_notes += bool(note_words)
        best_note.append(max((coverage(item, w) for w in note_words), default=0.0))
        best_turn.append(max((coverage(item, t) for _, t in item.turns), default=0.0))
    total = len(items)
    return {
        "observations": total, "missing_turn_ids": missing, "turns": len(cache), "with_any_note": with_notes,
        "carried": {t: sum(b >= t for b in best_note) / total for t in (THRESHOLD, *ALSO_AT)},
        "ceiling": {t: sum(b >= t for b in best_turn) / total for t in (THRESHOLD, *ALSO_AT)},
        "notes": sum(len(v) for v in cache.values()),
    }
