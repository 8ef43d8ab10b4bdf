"""The scale bench's distinct notes (bench.pair_notes): what texts they are, and that their cached vectors are the
model's own, filled once and resumed after an interruption."""

from __future__ import annotations

import numpy as np

from bench.add_note_bench import sentences
from bench.pair_notes import MAX_CHARS, PairVectors, pair_texts
from elf_infra.providers.local_embedder import LOCAL_EMBEDDING_MODEL, LocalEmbedder


def test_pair_texts_are_distinct_bounded_and_the_same_prefix_whatever_the_count():
    base = sentences(10**9)
    texts = pair_texts(len(base) + 70_000, base)
    assert len(set(texts)) == len(texts)
    assert texts[:len(base)] == base
    assert all(len(t) <= MAX_CHARS for t in texts)
    pairs = texts[len(base):]
    joined = set(base)
    for t in pairs[:200]:  # each pair is two different sentences of the LoCoMo set, joined by a space
        splits = [t[:i] for i in range(len(t)) if t[i] == " " and t[:i] in joined and t[i + 1:] in joined]
        assert splits and splits[0] != t[len(splits[0]) + 1:]
    assert pair_texts(len(base) + 5_000, base) == texts[:len(base) + 5_000]  # more asked, same first ones
    assert len(pairs) > 65_536  # across more than one fixed-size draw


def test_pair_vectors_are_the_models_cached_and_resumed(tmp_path, monkeypatch):
    import bench.pair_notes as pair_notes

    monkeypatch.setattr(pair_notes, "CHUNK", 7)
    cache = PairVectors(LOCAL_EMBEDDING_MODEL, 20, tmp_path)
    want = np.asarray(LocalEmbedder(LOCAL_EMBEDDING_MODEL).embed(cache.texts), dtype=np.float32)
    got = np.array(cache.vectors())
    assert cache.done() == 20
    np.testing.assert_allclose(got, want, atol=1e-6)

    # An interrupted run: only the first 7 rows were written. A new run embeds the rest and keeps those 7.
    partial = np.lib.format.open_memmap(cache.path, mode="r+")
    partial[7:] = 0
    partial[:7] = 5.0  # a marker the resume must not overwrite
    partial.flush()
    del partial
    cache.progress.write_text("7")
    again = np.array(PairVectors(LOCAL_EMBEDDING_MODEL, 20, tmp_path).vectors())
    assert (again[:7] == 5.0).all()
    np.testing.assert_allclose(again[7:], want[7:], atol=1e-6)

    # Other texts never reuse these vectors: the file's name carries the texts' hash and count.
    assert PairVectors(LOCAL_EMBEDDING_MODEL, 21, tmp_path).path != cache.path
