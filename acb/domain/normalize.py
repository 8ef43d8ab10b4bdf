"""Tool result normalisation (agent-memory-acb-prd 7.4): the excerpt kept in the event is at most 64 KB of UTF-8,
cut at a line end where one falls in the last quarter; a longer output keeps its full text for an artifact and is
marked truncated. ``line_range`` is the excerpt's lines of the file (given by the caller, or counted from 1)."""

from __future__ import annotations

from dataclasses import dataclass

from .vocabulary import EXCERPT_MAX_BYTES

OUTPUT_KEYS = ("output", "text", "excerpt_text", "stdout")


@dataclass(frozen=True)
class Normalized:
    content: dict  # what the event stores (excerpt_text, line_range, truncated, ...)
    full_text: str | None  # the whole output when truncated: it goes to an artifact


def _cut(text: str, limit: int) -> str:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    head = data[:limit].decode("utf-8", errors="ignore")  # never split a character
    newline = head.rfind("\n")
    return head[: newline + 1] if newline >= len(head) * 3 // 4 else head


def normalize_tool_result(content: dict, limit: int = EXCERPT_MAX_BYTES) -> Normalized:
    """``content`` holds the tool's name and its output under one of OUTPUT_KEYS (a string)."""
    text = next((content[k] for k in OUTPUT_KEYS if isinstance(content.get(k), str)), "")
    rest = {k: v for k, v in content.items() if k not in OUTPUT_KEYS}
    excerpt = _cut(text, limit)
    truncated = len(excerpt) < len(text)
    lines = excerpt.count("\n") + (0 if excerpt.endswith("\n") or not excerpt else 1)
    given = content.get("line_range")
    start = given[0] if isinstance(given, list) and len(given) == 2 and all(isinstance(x, int) for x in given) else 1
    out = {**rest, "excerpt_text": excerpt, "truncated": truncated}
    if "path" in content or given is not None:
        out["line_range"] = [start, start + max(lines, 1) - 1]
    out["output_bytes"] = len(text.encode("utf-8"))
    return Normalized(out, text if truncated else None)
