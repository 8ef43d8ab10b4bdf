"""What text of an event is retrievable, and its chunks (agent-memory-acb-prd 5.2 "Auto-Chunker"): paragraphs
packed up to CHUNK_MAX_TOKENS, a longer paragraph cut at line, sentence or word ends."""

from __future__ import annotations

import json
import re

from .tokens import estimate_tokens
from .vocabulary import CHUNK_MAX_TOKENS, EventKind

_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def event_text(kind: str, content: dict) -> str:
    """The text a person would read for the event."""
    if kind == EventKind.MESSAGE:
        return str(content.get("text", ""))
    if kind == EventKind.TOOL_CALL:
        args = content.get("args", content.get("arguments", {}))
        return f"call {content.get('tool', '?')} {json.dumps(args, sort_keys=True, ensure_ascii=False)}"
    if kind == EventKind.TOOL_RESULT:
        head = f"{content.get('tool', 'tool')} result" + (f" for {content['path']}" if content.get("path") else "")
        return f"{head}:\n{content.get('excerpt_text', '')}"
    if kind == EventKind.DECISION:
        parts = [f"Decision: {content.get('decision', '')}"]
        parts += [f"Rationale: {r}" for r in content.get("rationale", [])]
        parts += [f"Constraint: {c}" for c in content.get("constraints", [])]
        return "\n".join(parts)
    if kind == EventKind.TASK_UPDATE:
        return f"Task {content.get('title', '')} [{content.get('status', 'open')}]" + (
            f": {content['details']}" if content.get("details") else "")
    return str(content.get("text") or content.get("description") or "")


def _pieces(paragraph: str, limit: int) -> list[str]:
    if estimate_tokens(paragraph) <= limit:
        return [paragraph]
    for splitter in (lambda t: t.split("\n"), _SENTENCE.split, str.split):
        parts = [p for p in splitter(paragraph) if p.strip()]
        if len(parts) > 1:
            return [q for p in parts for q in _pieces(p, limit)]
    out, data = [], paragraph  # one unbroken run (base64, CJK): cut by characters, halving until a piece fits
    while data:
        step = max(limit * 3, 1)
        while step > 1 and estimate_tokens(data[:step]) > limit:
            step //= 2
        out.append(data[:step])
        data = data[step:]
    return out


def chunk_text(text: str, limit: int = CHUNK_MAX_TOKENS) -> list[str]:
    """Chunks of ``text``, each at most ``limit`` estimated tokens, in order; nothing for blank text."""
    chunks: list[str] = []
    current: list[str] = []
    used = 0
    for paragraph in (p for p in re.split(r"\n\s*\n", text) if p.strip()):
        for piece in _pieces(paragraph.strip(), limit):
            cost = estimate_tokens(piece)
            if current and used + cost > limit:
                chunks.append("\n\n".join(current))
                current, used = [], 0
            current.append(piece)
            used += cost
    if current:
        chunks.append("\n\n".join(current))
    return chunks
