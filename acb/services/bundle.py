"""build_acb (agent-memory-acb-prd 7.2, 8): gather each section's candidates, best first, from core memory, the
decision ledger, task state, ELF notes and graph facts, the event chunks (full-text search, PRD 8.2 scoring) and
the session's recent turns; pack them under the budget (domain.packing); keep the bundle for the operators.

Deterministic: every order has a final tie-break on an id, and recency counts back from the newest event of the
session, so the same log and memory give the same bundle (``bundle_hash``) whenever it is built."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime

from django.db import connection
from django.db.models.expressions import RawSQL
from django.utils import timezone

from core_memory.services.resolve import resolve
from graph.selectors.facts import in_state, visible_facts
from memory.selectors import not_expired, readable_notes

from .. import sealing
from .. import selectors as sel
from ..domain.ids import new_id
from ..domain.packing import Item, caps_for, pack
from ..domain.scoring import score, scoring_provenance
from ..domain.tokens import METHOD, estimate_tokens
from ..domain.vocabulary import SCORED_MAX, SHARED_ONLY_CHANNELS, ActorType, SectionName, Sensitivity

ACTOR = {ActorType.HUMAN: "User", ActorType.AGENT: "Agent", ActorType.TOOL: "Tool"}
SHARED_NOTE_SCOPES = ("project_shared", "org_shared")
IDENTITY_PREFIXES = ("identity.", "agent.", "user.")


def _item(type_: str, text: str, refs: list[str], *, covers: tuple[str, ...] = (), key_text: str | None = None,
          **extra) -> Item:
    return Item(type_, text, tuple(refs), max(estimate_tokens(text), 1), extra, covers, key_text)


def _decision_covers(d) -> tuple[str, ...]:
    """A ledger decision renders its own event and that event's chunks."""
    own = "chk_" + d.event_id.removeprefix("evt_") + "_"
    return (d.event_id, *(r for r in d.refs if r.startswith(own)))


def _core_memory(view: sel.View) -> dict[str, list[Item]]:
    ctx = view.ctx
    out: dict[str, list[Item]] = {SectionName.IDENTITY: [_item(
        "text", f"You are agent {view.agent_id} in session {view.session_id} (project {view.project_id}).",
        [f"view:identity.agent.{view.agent_id}"])], SectionName.RULES: [], SectionName.TASK_STATE: []}
    for r in resolve(ctx=ctx, keys=None, run_id=view.session_id):
        p = r.provenance
        kind, scope = p["kind"], p["scope"]
        if view.channel in SHARED_ONLY_CHANNELS and kind == "preference":
            continue  # PRD 9.1: a public bundle leaves preferences out
        item = _item("memory", f"{r.key}: {r.value}", [f"core:{scope}:{r.key}"], scope=scope)
        if scope == "policy" or kind in ("constraint", "instruction"):
            out[SectionName.RULES].append(item)
        elif scope == "session":
            out[SectionName.TASK_STATE].append(item)
        elif r.key.startswith(IDENTITY_PREFIXES) or kind == "preference":
            out[SectionName.IDENTITY].append(item)
        else:
            out[SectionName.RULES].append(item)
    return out


def _facts(view: sel.View, terms: list[str], now: datetime, limit: int = 20) -> list[Item]:
    if not terms or not sel.tenant_has_facts(view.tenant_id):
        return []
    # a public or agent bundle leaves agent_private notes out, and so the facts known only from them
    scopes = SHARED_NOTE_SCOPES if view.channel in SHARED_ONLY_CHANNELS else None
    facts = in_state(visible_facts(view.ctx, scopes), "current", now).select_related("subject_entity", "object_entity")
    scored = []
    for f in facts.order_by("-valid_from", "fact_id")[:500]:
        obj = f.object_entity.canonical if f.object_entity_id else (f.object_value or "")
        text = f"{f.subject_entity.canonical} {f.predicate} {obj}"
        overlap = sum(1 for t in terms if t in text.lower())
        if overlap:
            scored.append((-overlap, f.fact_id, text, f))
    scored.sort(key=lambda s: (s[0], str(s[1])))
    return [_item("fact", f"Fact (current since {f.valid_from.date()}): {text}", [f"fact:{f.fact_id}"])
            for _, _, text, f in scored[:limit]]


def _notes(view: sel.View, terms: list[str], limit: int = 10) -> list[Item]:
    if not terms or not sel.tenant_has_notes(view.tenant_id):
        return []
    ctx = view.ctx
    scopes = SHARED_NOTE_SCOPES if view.channel in SHARED_ONLY_CHANNELS else None
    q = sel.or_query(terms)
    notes = (not_expired(readable_notes(ctx, scopes=scopes).filter(status="active"))
             .extra(where=["to_tsvector('english', memory_notes.text) @@ %s::tsquery"], params=[q])
             .annotate(rank=RawSQL("ts_rank_cd(to_tsvector('english', memory_notes.text), "
                                   "%s::tsquery)", [q]))
             .order_by("-rank", "note_id")[:limit])
    return [_item("note", n.text, [f"note:{n.note_id}"]) for n in notes]


def _evidence(view: sel.View, terms: list[str], ref_ts: datetime) -> tuple[list[Item], int]:
    top, pool_size = sel.evidence_pool(view, terms, SCORED_MAX)  # PRD 8.2: at most 200 of the pool are scored
    ranked = sorted(top, key=lambda h: (-score(h.rank, (ref_ts - h.ts).total_seconds() / 3600, h.importance),
                                        h.chunk_id))
    items = [Item("text", h.text, (h.chunk_id, h.event_id), h.token_est,
                  {"score": round(score(h.rank, (ref_ts - h.ts).total_seconds() / 3600, h.importance), 6)},
                  covers=(h.chunk_id,)) for h in ranked]
    return items, pool_size


def _label(actor_type: str, actor_id: str) -> str:
    return "User" if actor_type == ActorType.HUMAN else f"{ACTOR[actor_type]} {actor_id}"


def _recent(view: sel.View, cap: int) -> tuple[list[Item], list[dict]]:
    # a quarter more than the cap: room for turns a section filled before already holds (duplicates)
    rows = sel.recent_chunks(view, tokens=cap + cap // 4)
    items, truncated, label_cost = [], [], {}
    for chunk_id, event_id, _ts, kind, actor_type, actor_id, token_est, text, artifact_id in rows:
        text = sealing.open_chunk_text(view.tenant_id, chunk_id, text)
        label = _label(actor_type, actor_id)
        if label not in label_cost:  # the chunk's own estimate plus its label's (estimated once per label)
            label_cost[label] = estimate_tokens(label + ": ")
        items.append(Item("text", f"{label}: {text}", (chunk_id, event_id), token_est + label_cost[label],
                          {"kind": kind}, (chunk_id,), text))
        if artifact_id:
            truncated.append({"reason": "truncated_tool_output", "candidates": [event_id], "artifact_id": artifact_id})
    return items, truncated


def _ledger(view: sel.View, terms: list[str]) -> list[Item]:
    out = []
    for d in sel.decisions(view, terms, limit=60):
        text = f"Decision ({d.scope}, {d.ts.date()}): {d.decision}" + "".join(f" Rationale: {r}" for r in d.rationale)
        out.append(_item("decision", text, list(d.refs[:20]), covers=_decision_covers(d), decision_id=d.decision_id,
                         supersedes=d.supersedes_id))
    return out


def _tasks(view: sel.View) -> list[Item]:
    with sealing.reveal(Sensitivity.HIGH in view.sensitivities):  # a task a high event wrote: PRD 9.2's channels only
        tasks = [t for t in sel.open_tasks(view, 40) if not t.sealed or Sensitivity.HIGH in view.sensitivities]
    return [_item("task", f"Task [{t.status}] {t.title}" + (f": {t.details}" if t.details else ""),
                  [t.task_id, *t.refs[-3:]], task_id=t.task_id, status=t.status) for t in tasks]


def _handoff(view: sel.View) -> list[Item]:
    s = sel.session(view)
    if s is None or view.agent_id in s.agents or not s.agents:
        return []
    items = [_item("text", f"Handoff: session {view.session_id} was worked by {', '.join(s.agents)}: "
                   f"{s.event_count} events from {s.first_ts.isoformat()} to {s.last_ts.isoformat()}.",
                   [f"session:{view.session_id}"])]
    for d in sel.session_decisions(view, 20):
        items.append(_item("decision", f"Decided by {d.agent_id}: {d.decision}", list(d.refs[:20]),
                           covers=_decision_covers(d), decision_id=d.decision_id))
    for chunk_id, event_id, actor_type, actor_id, _t, text in sel.other_agents_messages(view, 30):
        text = sealing.open_chunk_text(view.tenant_id, chunk_id, text)
        label = _label(actor_type, actor_id)
        items.append(_item("text", f"{label}: {text}", [chunk_id, event_id], covers=(chunk_id,), key_text=text))
    return items


@sealing.counting
def build(*, view: sel.View, intent: str | None, query_text: str | None, max_tokens: int) -> dict:
    """The bundle as the API answers it (and as it is kept in acb_bundles)."""
    now = timezone.now()
    ref_ts = sel.newest_ts(view) or now
    terms = sel.query_terms(query_text or "")
    core = _core_memory(view)
    evidence, pool_size = _evidence(view, terms, ref_ts)
    recent, truncated = _recent(view, caps_for(max_tokens)[SectionName.RECENT_WINDOW])
    candidates = {
        SectionName.IDENTITY: core[SectionName.IDENTITY], SectionName.RULES: core[SectionName.RULES],
        SectionName.TASK_STATE: core[SectionName.TASK_STATE] + _tasks(view),
        SectionName.DECISION_LEDGER: _ledger(view, terms) + _facts(view, terms, now),
        SectionName.HANDOFF_PACKET: _handoff(view),
        SectionName.RETRIEVED_EVIDENCE: _notes(view, terms) + evidence,
        SectionName.RECENT_WINDOW: recent,
    }
    sections, omissions = pack(max_tokens, candidates)
    for s in sections:
        if s.name == SectionName.RECENT_WINDOW:
            s.items.reverse()  # packed newest first, read oldest first
    hidden = sel.hidden_counts(view)
    if hidden["secret"]:
        omissions.append({"reason": "secret_never_loaded", "count": hidden["secret"], "candidates": []})
    if hidden["filtered"]:
        omissions.append({"reason": "channel_filtered", "count": hidden["filtered"], "candidates": []})
    if not terms:
        omissions.append({"reason": "no_query", "count": 0, "candidates": [],
                          "detail": "no query_text: retrieved_evidence left empty (fast path)"})
    kept = {r for s in sections for i in s.items for r in i.refs}
    seen_artifacts = set()
    for t in truncated:  # one omission per truncated output, however many of its chunks were kept
        if t["candidates"][0] in kept and t["artifact_id"] not in seen_artifacts:
            seen_artifacts.add(t["artifact_id"])
            omissions.append(t)
    rendered = [{"name": s.name, "cap": s.cap, "token_est": s.token_est, "items": [i.render() for i in s.items]}
                for s in sections]
    used = sum(s.token_est for s in sections)
    body = {
        "budget_tokens": max_tokens,
        "token_used_est": used,
        "reserve_tokens": max_tokens - sum(s.cap for s in sections),
        "sections": rendered,
        "omissions": omissions,
        "provenance": {
            "intent": intent,
            "query_terms": terms,
            "candidate_pool_size": pool_size,
            "scored": min(pool_size, SCORED_MAX),
            "as_of": ref_ts.isoformat(),
            "filters": {
                "channel": view.channel,
                "channels_loaded": view.channels,
                "sensitivity_allowed": view.sensitivities,
            },
            "scoring": scoring_provenance(),
            "token_estimate": METHOD,
        },
    }
    text = json.dumps(body, sort_keys=True, default=str)
    body["bundle_hash"] = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
    stored = text[:-1] + f', "bundle_hash": "{body["bundle_hash"]}"}}'  # the body with its hash, serialised once
    acb_id = new_id("acb")
    if sealing.opened_any():  # it quotes sensitivity-high content: kept encrypted at rest too
        stored = sealing.seal_kept_body(view.tenant_id, acb_id, stored)
    with connection.cursor() as cur:  # the body serialised once, not again by the ORM
        cur.execute(
            "INSERT INTO acb_bundles (acb_id, tenant_id, session_id, agent_id, channel, created_at, "
            "budget_tokens, token_used_est, bundle_hash, body) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, "
            "%s::jsonb)",
            [
                acb_id,
                view.tenant_id,
                view.session_id,
                view.agent_id,
                view.channel,
                now,
                max_tokens,
                used,
                body["bundle_hash"],
                stored,
            ],
        )
    return {"acb_id": acb_id, **body}
