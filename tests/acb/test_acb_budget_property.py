"""Property: for random event streams and budgets from 500 to 65,000 tokens, a bundle never exceeds its budget,
no section exceeds its cap, nothing appears twice, and the same inputs pack the same way. The packer is checked
on 400 random candidate sets in-process, then whole bundles on random streams through the HTTP API."""

from __future__ import annotations

import random

import pytest

from acb.domain.packing import Item, caps_for, content_key, pack
from acb.domain.vocabulary import FILL_ORDER, MAX_BUDGET, MIN_BUDGET
from tests.acb_helpers import build, record, tenant, within_caps

WORDS = [
    "harbour",
    "crane",
    "ferry",
    "tide",
    "schedule",
    "timetable",
    "deploy",
    "billing",
    "postgres",
    "island",
    "board",
    "display",
    "weekly",
    "report",
    "inspection",
    "winter",
    "config",
    "loader",
    "release",
    "notes",
    "migrate",
    "poller",
    "retry",
]


def _text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


@pytest.mark.parametrize("seed", range(400))
def test_packing_stays_within_budget_and_caps(seed):
    rng = random.Random(seed)
    budget = rng.randint(MIN_BUDGET, MAX_BUDGET)
    pool = [_text(rng, rng.randint(1, 30)) for _ in range(40)]
    candidates = {
        name: [
            Item(
                "text",
                rng.choice(pool) if rng.random() < 0.3 else _text(rng, rng.randint(1, 50)),
                (f"ref{name}{i}",),
                rng.randint(1, 6000 if rng.random() < 0.2 else 400),
            )
            for i in range(rng.randint(0, 60))
        ]
        for name in FILL_ORDER
    }
    sections, omissions = pack(budget, candidates)
    caps = caps_for(budget)
    assert sum(s.token_est for s in sections) <= budget
    assert all(s.token_est <= caps[s.name] and s.token_est == sum(i.token_est for i in s.items) for s in sections)
    keys = [content_key(i.text) for s in sections for i in s.items]
    assert len(keys) == len(set(keys))
    assert pack(budget, candidates) == (sections, omissions)


@pytest.fixture(scope="module")
def svc(isolated_services_module):
    s = isolated_services_module("acb_property")
    s.start_api()
    return s


@pytest.mark.parametrize("seed", range(4))
def test_random_streams_build_bundles_within_budget(svc, seed):
    rng = random.Random(1000 + seed)
    t = tenant()
    for i in range(rng.randint(20, 45)):
        kind = rng.choice(("message", "message", "tool_result", "tool_call", "decision", "task_update"))
        channel = rng.choice(("private", "public", "team", "agent"))
        sensitivity = rng.choice(("none", "none", "low", "high"))
        content = {
            "message": lambda: {"text": _text(rng, rng.randint(3, 400))},
            "tool_call": lambda: {"tool": "grep", "args": {"pattern": rng.choice(WORDS)}},
            "tool_result": lambda i=i: {
                "tool": "cat",
                "path": f"f{i}.txt",
                "output": "\n".join(_text(rng, 12) for _ in range(rng.randint(1, 9000))),
            },
            "decision": lambda: {"decision": _text(rng, rng.randint(4, 40))},
            "task_update": lambda: {"title": _text(rng, 5), "status": rng.choice(("open", "doing", "done"))},
        }[kind]()
        record(
            svc,
            t,
            kind,
            content,
            channel=channel,
            sensitivity=sensitivity,
            session=rng.choice(("s1", "s1", "s2")),
            agent=rng.choice(("agentA", "agentB")),
        )
    for _ in range(8):
        bundle = build(
            svc,
            t,
            session=rng.choice(("s1", "s2")),
            agent=rng.choice(("agentA", "agentC")),
            channel=rng.choice(("private", "public", "team", "agent")),
            query=rng.choice((None, _text(rng, 3))),
            max_tokens=rng.randint(MIN_BUDGET, MAX_BUDGET),
        )
        assert within_caps(bundle), bundle["sections"]
