"""add_note's step before its transaction: chunk every note the WriteGate passed and embed, in one provider
call, the vectors the request needs (see ``embed_notes``), so no provider call happens under the group locks."""

from __future__ import annotations

from dataclasses import dataclass, replace

from elf_config import ElfConfig
from elf_domain.chunking import Chunk
from elf_infra.providers.errors import ProviderError

from ...domain.note_context import embedding_text
from ...indexing.chunks import note_chunks
from .note_input import NoteInput


@dataclass(frozen=True)
class Embedded:
    """What the request computed for a note before its transaction."""

    chunks: list[Chunk]
    vector: list[float] | None  # the text's vector (the single chunk's, or the resolver's for a key-less note)

    def stored_chunk(self) -> bool:
        """The vector is the note's only chunk's, to be stored with the note."""
        return self.vector is not None and len(self.chunks) == 1


def embed_notes(cfg: ElfConfig, notes: list[NoteInput], verdicts, embedder) -> dict[int, Embedded]:
    """Chunk every note that passed the gate; embed, in one provider call, each one that is a single chunk and
    each key-less one (the resolver's vector). When the provider fails and no note needs a vector to be
    resolved (keyed notes only), the notes are written without one: the worker embeds them later."""
    embedded = {
        i: Embedded(note_chunks(cfg, n.text), None)
        for i, (n, v) in enumerate(zip(notes, verdicts, strict=False))
        if v is None
    }
    to_embed = [i for i, e in embedded.items() if len(e.chunks) == 1 or not notes[i].key]
    if not to_embed:
        return embedded
    try:
        vectors = embedder.embed([embedding_text(notes[i].text, notes[i].context) for i in to_embed])
    except ProviderError:
        if any(not notes[i].key for i in to_embed):
            raise
        return embedded
    for i, vec in zip(to_embed, vectors, strict=True):
        embedded[i] = replace(embedded[i], vector=vec)
    return embedded
