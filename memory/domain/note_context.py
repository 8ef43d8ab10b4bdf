"""A note's context (issue 32), pure: optional text embedded with the note but not part of it.

An agent that stores a conversation turn as a note passes the turns around it as ``context``. The note's text
stays what it was; its dense vector is computed from the text followed by the context, so "Yes, last Friday!"
is found by what it answers. BM25 indexes the text alone (on LoCoMo, neighbouring turns in the lexical index
cost recall: docs/benchmarks.md, "Note context"). The context is judged by the same English and secret rules
as the text, and is at most ``MAX_CONTEXT_CHARS`` characters of its NFKC form.
"""

from __future__ import annotations

from elf_domain.limits import MAX_CONTEXT_CHARS

__all__ = ["CONTEXT_SEPARATOR", "MAX_CONTEXT_CHARS", "embedding_text"]
CONTEXT_SEPARATOR = "\n\nContext:\n"


def embedding_text(text: str, context: str) -> str:
    """The text the embedding provider gets for a note's chunk ``text`` with the note's ``context``."""
    return f"{text}{CONTEXT_SEPARATOR}{context}" if context else text
