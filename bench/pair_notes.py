"""Distinct notes for the scale bench, each embedded by the model itself: ``elf-bench pair-notes``.

The copies that ``NoteLoader`` makes by default (each LoCoMo sentence about 85 times at a million notes, its vector
plus noise) are cheap, but they put the true top 10 of a question among near-copies of one sentence: near-ties
that HNSW's neighbour pruning links poorly, so overlap@10 against exact search measures the bench's data more than
the index (docs/benchmarks.md, "One read key per point"). These notes are distinct texts instead: the first are the
LoCoMo sentences themselves, then two sentences of different turns joined ("Caroline: ... Melanie: ..."), drawn
with a fixed seed, at most ``MAX_CHARS`` long (the service's default ``memory.max_note_chars``) and never
repeated. Every one is embedded with the configured local model, once: the vectors are cached in
``var/bench-cache`` (a .npy file, filled in chunks, so an interrupted run goes on where it stopped). 418 texts/s
on the 2-core machine, so 40 minutes for a million.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

import numpy as np

from bench.add_note_bench import sentences
from elf_config import load_config
from elf_infra.providers.local_embedder import EMBEDDING_DIM, LocalEmbedder

MAX_CHARS = 240
SEED = 11
DRAW = 1 << 16  # pairs drawn at a time, a fixed size so that the first N texts never depend on how many are asked
CHUNK = 5_000  # texts embedded between two writes of the cache's progress
CACHE = Path(__file__).resolve().parent.parent / "var" / "bench-cache"


def pair_texts(count: int, base: list[str] | None = None) -> list[str]:
    """The first ``count`` texts: the distinct LoCoMo sentences, then distinct joined pairs (deterministic, and
    the first N of any count are the same)."""
    base = sentences(10**9) if base is None else base
    texts = base[:count]
    seen = set(texts)
    rng = np.random.default_rng(SEED)
    while len(texts) < count:
        for a, b in rng.integers(0, len(base), (DRAW, 2)).tolist():
            text = f"{base[a]} {base[b]}"
            if a == b or len(text) > MAX_CHARS or text in seen:
                continue
            seen.add(text)
            texts.append(text)
            if len(texts) == count:
                break
    return texts


class PairVectors:
    """The cached vectors of the first ``count`` pair texts for ``model``: ``vectors()`` fills what is missing. The
    file's name carries a hash of the texts, so a change to how they are drawn never reuses another's vectors."""

    def __init__(self, model: str, count: int, folder: Path = CACHE):
        self.model, self.count = model, count
        self.texts = pair_texts(count)
        digest = hashlib.sha256("\n".join(self.texts).encode()).hexdigest()[:12]
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / f"pair-notes-{model}-{count}-{digest}.npy"
        self.progress = self.path.with_suffix(".done")

    def done(self) -> int:
        return int(self.progress.read_text()) if self.progress.exists() and self.path.exists() else 0

    def vectors(self) -> np.ndarray:
        """A read-only memory map of all ``count`` vectors, embedding the texts not yet cached first."""
        have, texts = self.done(), self.texts
        if have < self.count:
            mode = "r+" if have else "w+"
            out = np.lib.format.open_memmap(self.path, mode=mode, dtype=np.float32, shape=(self.count, EMBEDDING_DIM))
            embedder = LocalEmbedder(self.model)
            t0, start = time.perf_counter(), have
            for i in range(have, self.count, CHUNK):
                part = texts[i:i + CHUNK]
                out[i:i + len(part)] = np.asarray(embedder.embed(part), dtype=np.float32)
                out.flush()
                self.progress.write_text(str(i + len(part)))
                rate = (i + len(part) - start) / (time.perf_counter() - t0)
                print(f"embedded {i + len(part):,} / {self.count:,} pair notes ({rate:,.0f}/s)", flush=True)
            del out
        return np.load(self.path, mmap_mode="r")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="elf-bench pair-notes", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-c", "--config", required=True, help="elf.toml (its local embedding model is used)")
    ap.add_argument("--count", type=int, default=1_000_000, help="notes to embed (the largest scale size)")
    ap.add_argument("--cache", default=str(CACHE), help="folder of the cached vectors")
    args = ap.parse_args(argv)
    model = load_config(args.config).providers.embedding.model
    t0 = time.perf_counter()
    cache = PairVectors(model, args.count, Path(args.cache))
    vecs = cache.vectors()
    print(f"{cache.path}: {len(vecs):,} vectors ({time.perf_counter() - t0:.0f} s)", flush=True)
    return 0
