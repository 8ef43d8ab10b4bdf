"""Packing a bundle under its budget (agent-memory-acb-prd 8.1), pure and deterministic.

Every section's cap is its PRD 8.1 cap scaled by max_tokens / 65,000 (rounded down); the content sections' caps
sum to at most 56,200/65,000 of the budget, the rest is the reserve, so the bundle can never exceed it. Sections
are filled in FILL_ORDER (the recent window before retrieved evidence); within a section candidates come best first and
each is taken when it still fits (a
smaller later one may fill what a large one could not). Content already in the bundle is never taken twice (an
omission with reason ``duplicate``): the same text once spaces and case are folded (an item compares its source
text, ``key_text``, not its label), or a source an item already taken ``covers`` (a decision and its own chunk).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from .vocabulary import DEFAULT_BUDGET, FILL_ORDER, SECTION_CAPS

MAX_LISTED = 50  # refs named per omission


@dataclass(frozen=True)
class Item:
    type: str  # text | decision | task | fact | note | memory
    text: str
    refs: tuple[str, ...]
    token_est: int
    extra: dict = field(default_factory=dict, compare=False, hash=False)
    covers: tuple[str, ...] = ()  # ids of what this item renders (its event, its chunks)
    key_text: str | None = None  # the source text compared for duplicates (default: text)

    def render(self) -> dict:
        return {
            "type": self.type,
            "text": self.text,
            "refs": list(self.refs),
            "token_est": self.token_est,
            **self.extra,
        }


@dataclass
class Section:
    name: str
    cap: int
    items: list[Item] = field(default_factory=list)
    token_est: int = 0


def caps_for(budget: int) -> dict[str, int]:
    return {name: cap * budget // DEFAULT_BUDGET for name, cap in SECTION_CAPS.items()}


def content_key(text: str) -> str:
    return hashlib.blake2b(" ".join(text.lower().split()).encode("utf-8"), digest_size=16).hexdigest()


def pack(budget: int, candidates: dict[str, list[Item]]) -> tuple[list[Section], list[dict]]:
    """(sections in FILL_ORDER, omissions)."""
    caps = caps_for(budget)
    seen: set[str] = set()
    sections: list[Section] = []
    duplicates: list[str] = []
    omissions: list[dict] = []
    for name in FILL_ORDER:
        section = Section(name, caps[name])
        dropped: list[str] = []
        for item in candidates.get(name, []):
            keys = {content_key(item.key_text or item.text), *item.covers}
            if keys & seen:
                duplicates.extend(item.refs[:1])
                continue
            if section.token_est + item.token_est > section.cap:
                dropped.extend(item.refs[:1])
                continue
            seen |= keys
            section.items.append(item)
            section.token_est += item.token_est
        if dropped:
            omissions.append(
                {
                    "reason": "over_section_cap",
                    "section": name,
                    "count": len(dropped),
                    "candidates": dropped[:MAX_LISTED],
                }
            )
        sections.append(section)
    if duplicates:
        listed = list(dict.fromkeys(duplicates))
        omissions.append({"reason": "duplicate", "count": len(duplicates), "candidates": listed[:MAX_LISTED]})
    return sections, omissions
