"""A note's context (issue 32), pure: optional text embedded with the note but not part of it.

An agent that stores a conversation turn as a note passes the turns around it as ``context``. The note's text
stays what it was; its dense vector is computed from the text followed by the context in parentheses, so "Yes,
last Friday!" is found by what it answers. (On LoCoMo's dev split the parentheses gave MiniLM MRR@10 0.529
against 0.517 for a "Context:" heading, recall@10 alike: docs/benchmarks.md, "Note context".) BM25 indexes the text
alone (on LoCoMo, neighbouring turns in the lexical index
cost recall: docs/benchmarks.md, "Note context"). The context is judged by the same English and secret rules
as the text, and is at most ``MAX_CONTEXT_CHARS`` characters of its NFKC form.
"""

from __future__ import annotations

from elf_domain.limits import MAX_CONTEXT_CHARS

__all__ = ["MAX_CONTEXT_CHARS", "embedding_text"]


def embedding_text(text: str, context: str) -> str:
    """The text the embedding provider gets for a note's chunk ``text`` with the note's ``context``."""
    return f"{text} ({context})" if context else text
