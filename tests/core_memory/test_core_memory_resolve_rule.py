"""Resolve's SQL (core_memory.selectors.winners) decides every key exactly as the pure rule does
(core_memory.domain.precedence.effective): Policy > Profile > Session, then priority, updated_at, the later line.
Random documents with duplicate keys and ties, written through the service into the test stack's database."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from core_memory.domain.markdown import parse
from core_memory.domain.precedence import effective
from core_memory.domain.vocabulary import MemoryScope
from core_memory.selectors import winners
from core_memory.services.documents import candidates
from core_memory.services.entries import put_document
from elf_kernel.context import RequestContext

pytestmark = pytest.mark.django_db
SECTIONS = {MemoryScope.POLICY: "Guardrails", MemoryScope.PROFILE: "Preferences", MemoryScope.SESSION: "Context"}
T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def _document(rng: random.Random, scope: MemoryScope) -> str:
    title = {MemoryScope.POLICY: "POLICY", MemoryScope.PROFILE: "PROFILE", MemoryScope.SESSION: "SESSION"}[scope]
    lines = [f"# {title}", "", f"## {SECTIONS[scope]}"]
    for i in range(rng.randint(0, 25)):
        at = T0 + timedelta(seconds=rng.choice([0, 0, 1, 2]), microseconds=rng.choice([0, 0, 500]))
        stamp = at.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"
        lines.append(f"- key:k{rng.randint(0, 9)} | value:{scope} line {i} | priority:{rng.choice([10, 50, 50, 90])}"
                     f" | updated_at:{stamp}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(12))
def test_sql_winners_equal_the_domain_rule(seed):
    rng = random.Random(seed)
    ctx = RequestContext(f"rule-{uuid.uuid4().hex[:8]}", "p1", "a1", None)
    texts = {scope: _document(rng, scope) for scope in MemoryScope}
    for scope, text in texts.items():
        put_document(ctx=ctx, scope=scope, run_id="r1" if scope is MemoryScope.SESSION else None, text=text,
                     actor="system", reason="test", if_version=None)
    expected = effective(c for scope, text in texts.items() for c in candidates(parse(text, scope), scope, T0))
    got = {w.key: w for w in winners(ctx, run_id="r1", keys=None, now=T0)}
    assert {k: (str(c.scope), c.value) for k, c in expected.items()} == {k: (w.scope, w.value) for k, w in got.items()}
    for key, c in expected.items():
        assert got[key].updated_at == c.updated_at.isoformat().replace("+00:00", "Z")
    without_run = {w.key: w.scope for w in winners(ctx, run_id=None, keys=None, now=T0)}
    assert "session" not in without_run.values()
    some = winners(ctx, run_id="r1", keys=["k1", "k2", "nope"], now=T0)
    assert [w.key for w in some] == sorted(k for k in ("k1", "k2") if k in expected)
