"""Property: a bundle whose ranking pool was kept and brought up to date (acb.ranking_pool) is the bundle a build
ranking everything from nothing gives for the same log: the same bundle_hash, so the same items in the same
sections, the same omissions and provenance. Random streams interleave writes (messages, tool results, decisions
that supersede earlier ones, tasks, secret and high events, four channels, two sessions, three agents) with
bundles of random agents, channels, sessions, queries and budgets. The pool is made small (12 chunks, the best 5
read) so that new chunks push old ones out of it and into the best ones, as 2,000 / 200 do in a large tenant.
Deleting or changing a chunk (rebuild_chunks, an UPDATE) and writing in the same transaction as the bundle rank
again in full."""

from __future__ import annotations

import random
import uuid

import pytest
from django.db import connection, transaction

from acb import ranking_pool
from acb import selectors as sel
from acb.services import bundle as bundle_service
from acb.services.bundle import build
from acb.services.event_log import Writer, record_event
from acb.services.rebuild import rebuild_chunks

pytestmark = pytest.mark.django_db(transaction=True)

WORDS = ("billing", "timeout", "index", "search", "deploy", "rollback", "cache", "queue", "schema", "review",
         "export", "webhook", "limiter", "retry", "postgres", "release")
QUERIES = ("billing timeout under load", "search index rollback", "cache the queue", "review the schema release",
           "webhook retry limiter", "postgres export")
CHANNELS = ("private", "team", "agent", "public")
SENSITIVITIES = ("none", "none", "none", "low", "high", "secret")


@pytest.fixture(autouse=True)
def small_pool(monkeypatch):
    monkeypatch.setattr(sel, "CANDIDATE_POOL_MAX", 12)
    monkeypatch.setattr(bundle_service, "SCORED_MAX", 5)
    ranking_pool.forget()
    yield
    ranking_pool.forget()


def _sentence(rng: random.Random) -> str:
    return "We looked at the " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 9))) + "."


class Log:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.tenant = f"acb-pool-{uuid.uuid4().hex[:8]}"
        self.decisions: list[str] = []

    def write(self) -> None:
        rng = self.rng
        session, agent = rng.choice(("s1", "s1", "s2")), rng.choice(("planner", "coder", "reviewer"))
        kind = rng.choice(("message", "message", "message", "tool_result", "decision", "task_update"))
        sensitivity = rng.choice(SENSITIVITIES)
        content: dict
        if kind == "message":
            content = {"text": _sentence(rng)}
        elif kind == "tool_result":
            content = {"tool": "shell.run", "output": "\n".join(_sentence(rng) for _ in range(3)), "path": "log.txt"}
        elif kind == "decision":
            content = {"decision": _sentence(rng), "rationale": [_sentence(rng)]}
            if self.decisions and rng.random() < 0.5:
                content["supersedes"] = self.decisions.pop(rng.randrange(len(self.decisions)))
        else:
            content = {"title": _sentence(rng), "status": rng.choice(("open", "doing", "done"))}
        out = record_event(writer=Writer(self.tenant, "p1", session, agent), channel=rng.choice(CHANNELS),
                           actor_type="agent", actor_id=agent, kind=kind, sensitivity=sensitivity, tags=[],
                           content=content, refs=[])
        if out.decision_id:
            self.decisions.append(out.decision_id)

    def view(self) -> tuple[sel.View, str | None, int]:
        rng = self.rng
        view = sel.View(self.tenant, "p1", rng.choice(("s1", "s2")), rng.choice(("planner", "coder", "newcomer")),
                        rng.choice(CHANNELS))
        return view, rng.choice((*QUERIES, None)), rng.choice((65_000, 4_000, 800))


def _both(view: sel.View, query: str | None, max_tokens: int) -> tuple[dict, dict]:
    kept = build(view=view, intent=None, query_text=query, max_tokens=max_tokens)
    with ranking_pool.fresh():
        full = build(view=view, intent=None, query_text=query, max_tokens=max_tokens)
    return kept, full


def _same(kept: dict, full: dict) -> None:
    assert kept["bundle_hash"] == full["bundle_hash"]
    assert kept["sections"] == full["sections"]
    assert kept["provenance"] == full["provenance"]


@pytest.mark.parametrize("seed", range(6))
def test_kept_pool_gives_the_full_rebuilds_bundle(seed):
    log = Log(seed)
    before = ranking_pool.paths.copy()
    for _ in range(25):
        log.write()
    for _ in range(40):
        for _ in range(log.rng.choice((0, 0, 1, 1, 2, 5))):
            log.write()
        view, query, max_tokens = log.view()
        _same(*_both(view, query, max_tokens))
    used = ranking_pool.paths - before
    assert used["delta"] and used["kept"], used  # the kept pools were brought up to date, not only ranked anew


def test_a_deleted_or_changed_chunk_ranks_the_pool_again():
    log = Log(100)
    for _ in range(30):
        log.write()
    view = sel.View(log.tenant, "p1", "s1", "coder", "private")
    query = QUERIES[0]
    _same(*_both(view, query, 65_000))
    rebuild_chunks(tenant_id=log.tenant)  # deletes and writes every chunk again: the epoch moves
    before = ranking_pool.paths.copy()
    _same(*_both(view, query, 65_000))
    assert (ranking_pool.paths - before)["full"] == 2
    with connection.cursor() as cur:  # an edit (the admin could make one) that takes a chunk out of every pool
        cur.execute("UPDATE acb_chunks SET channel = 'elsewhere' WHERE chunk_id = ("
                    "SELECT chunk_id FROM acb_chunks WHERE tenant_id = %s AND tsv @@ to_tsquery('english', 'billing')"
                    " ORDER BY ts DESC LIMIT 1)", [log.tenant])
        assert cur.rowcount == 1
    before = ranking_pool.paths.copy()
    _same(*_both(view, query, 65_000))
    assert (ranking_pool.paths - before)["full"] == 2


def test_a_bundle_built_in_the_writing_transaction_is_not_kept():
    log = Log(200)
    for _ in range(20):
        log.write()
    view = sel.View(log.tenant, "p1", "s1", "coder", "private")
    query = QUERIES[0]
    _same(*_both(view, query, 65_000))
    with transaction.atomic():
        record_event(writer=Writer(log.tenant, "p1", "s1", "planner"), channel="private", actor_type="agent",
                     actor_id="planner", kind="message", sensitivity="none", tags=[],
                     content={"text": "The billing timeout under load came back."}, refs=[])
        inside, reference = _both(view, query, 65_000)
        _same(inside, reference)
        assert "The billing timeout under load came back." in str(inside["sections"])
        transaction.set_rollback(True)  # the event never happened
    after, reference = _both(view, query, 65_000)
    _same(after, reference)
    assert "The billing timeout under load came back." not in str(after["sections"])
