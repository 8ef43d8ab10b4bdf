"""Event log reads: the one read rule of the event log, beside the notes' ``readable_by``.

Every read is inside the caller's (tenant, project) (PRD 9.3; the key fixes both when keys are on) and under the
channel's rules (PRD 9.1): a read for a channel sees only the channels and sensitivities
vocabulary.VISIBLE_CHANNELS / ALLOWED_SENSITIVITIES allow, and never a secret. A session is named within its
project; the agents of a project share its sessions (the handoff packet). Retrieval is Postgres full-text search
(PRD G5: the complexity stays in Postgres)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models.expressions import RawSQL

from elf_kernel.context import RequestContext

from . import ranking_pool
from .domain.vocabulary import (
    ALLOWED_SENSITIVITIES,
    ANY_DECISION_STATUS,
    CANDIDATE_POOL_MAX,
    OPEN_TASK_STATUSES,
    VISIBLE_CHANNELS,
    DecisionStatus,
)
from .models import AcbArtifact, AcbDecision, AcbEvent, AcbSession, AcbTask


@dataclass(frozen=True)
class Owner:
    """The (tenant, project) an event-log id must belong to for a caller to name it (refs, supersedes, task_id)."""

    tenant_id: str
    project_id: str


class ChannelRules:
    """PRD 9.1 for a read made as a bundle of ``self.channel``: the channels it sees and the sensitivities it loads."""

    channel: str

    @property
    def channels(self) -> list[str]:
        return list(VISIBLE_CHANNELS[self.channel])

    @property
    def sensitivities(self) -> list[str]:
        return list(ALLOWED_SENSITIVITIES[self.channel])


@dataclass(frozen=True)
class Reader(ChannelRules):
    """A direct read (decision ledger, artifacts) of a project's log, as a bundle of ``channel`` would read it."""

    tenant_id: str
    project_id: str
    channel: str


@dataclass(frozen=True)
class View(ChannelRules):
    """What one bundle may read."""

    tenant_id: str
    project_id: str
    session_id: str
    agent_id: str
    channel: str

    @property
    def ctx(self) -> RequestContext:
        """The same caller as the other apps' services and read rules see it."""
        return RequestContext(self.tenant_id, self.project_id, self.agent_id, None)

    def params(self, **more) -> dict:
        return {"t": self.tenant_id, "p": self.project_id, "s": self.session_id, "ch": self.channels,
                "sens": self.sensitivities, **more}


def _rows(sql: str, params: dict) -> list[tuple]:
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchall()


def unknown_refs(owner: Owner, refs: list[str]) -> list[str]:
    """The refs that name no event, chunk, decision, task or artifact of the owner's project."""
    if not refs:
        return []
    found = {r for (r,) in _rows(
        """SELECT event_id FROM acb_events WHERE tenant_id = %(t)s AND project_id = %(p)s AND event_id = ANY(%(r)s)
           UNION ALL SELECT chunk_id FROM acb_chunks
                      WHERE tenant_id = %(t)s AND project_id = %(p)s AND chunk_id = ANY(%(r)s)
           UNION ALL SELECT decision_id FROM acb_decisions
                      WHERE tenant_id = %(t)s AND project_id = %(p)s AND decision_id = ANY(%(r)s)
           UNION ALL SELECT task_id FROM acb_tasks
                      WHERE tenant_id = %(t)s AND project_id = %(p)s AND task_id = ANY(%(r)s)
           UNION ALL SELECT artifact_id FROM acb_artifacts
                      WHERE tenant_id = %(t)s AND project_id = %(p)s AND artifact_id = ANY(%(r)s)""",
        {"t": owner.tenant_id, "p": owner.project_id, "r": refs})}
    return [r for r in refs if r not in found]


def session(view: View) -> AcbSession | None:
    return AcbSession.objects.filter(tenant_id=view.tenant_id, project_id=view.project_id,
                                     session_id=view.session_id).first()


def query_terms(text: str) -> list[str]:
    """The query's lexemes as Postgres' English configuration reads them (stop words dropped), in order."""
    if not text.strip():
        return []
    rows = _rows("SELECT lexeme FROM unnest(to_tsvector('english', %(q)s)) ORDER BY positions[1], lexeme", {"q": text})
    return [r[0] for r in rows]


def or_query(terms: list[str]) -> str:
    """A tsquery matching any of the terms (quoted, so no term is read as an operator). The terms are lexemes
    already (``query_terms``): SQL casts this text with ``::tsquery``, never ``to_tsquery('english', ...)``, which
    would stem them a second time ("release" -> "releas" -> "relea", which no chunk holds)."""
    return " | ".join("'" + t.replace("'", "''") + "'" for t in terms)


@dataclass(frozen=True)
class Hit:
    chunk_id: str
    event_id: str
    session_id: str
    ts: datetime
    kind: str
    token_est: int
    importance: float
    text: str
    rank: float


def evidence_pool(view: View, terms: list[str], scored: int) -> tuple[list[Hit], int]:
    """(the ``scored`` best-ranked of the newest CANDIDATE_POOL_MAX matching chunks the view may read, with their
    text; the pool's size). The pool is the newest CANDIDATE_POOL_MAX matches of the project (recency is part of
    the score, and this bounds the ranking work whatever the tenant's size), kept up to date between bundles by
    ``ranking_pool``."""
    if not terms:
        return [], 0
    q = or_query(terms)
    ranked = ranking_pool.rank((view.tenant_id, view.project_id, tuple(view.channels), tuple(view.sensitivities), q),
                               view.params(q=q), CANDIDATE_POOL_MAX, scored)
    return [Hit(*ranked.rows[cid], rank) for _ts, cid, rank in ranked.best if cid in ranked.rows], ranked.pool_size


RecentRow = tuple  # (chunk_id, event_id, ts, kind, actor_type, actor_id, token_est, text, artifact_id)
RECENT_PAGE = 200


def recent_chunks(view: View, tokens: int) -> list[RecentRow]:
    """The session's newest readable chunks, newest first, until they hold ``tokens`` estimated tokens (read a
    page at a time along the session index, so a long session costs no more than a short one)."""
    out: list[RecentRow] = []
    held = 0
    after = None
    while held < tokens:
        page = _rows(
            """SELECT chunk_id, event_id, ts, kind, actor_type, actor_id, token_est, text, artifact_id
                 FROM acb_chunks
                WHERE tenant_id = %(t)s AND project_id = %(p)s AND session_id = %(s)s AND channel = ANY(%(ch)s)
                  AND sensitivity = ANY(%(sens)s)
                  AND (%(after_ts)s::timestamptz IS NULL OR (ts, chunk_id) < (%(after_ts)s, %(after_id)s))
                ORDER BY ts DESC, chunk_id DESC
                LIMIT %(n)s""",
            view.params(after_ts=after[2] if after else None, after_id=after[0] if after else None, n=RECENT_PAGE))
        out.extend(page)
        held += sum(r[6] for r in page)
        if len(page) < RECENT_PAGE:
            break
        after = page[-1]
    return out


def newest_ts(view: View) -> datetime | None:
    rows = _rows("SELECT max(ts) FROM acb_events WHERE tenant_id = %(t)s AND project_id = %(p)s AND session_id = %(s)s",
                 view.params())
    return rows[0][0]


def hidden_counts(view: View) -> dict[str, int]:
    """How many of the session's events the view may not load: secret ones and those of other channels or
    sensitivities."""
    (secret, filtered), = _rows(
        """SELECT count(*) FILTER (WHERE sensitivity = 'secret'),
                  count(*) FILTER (WHERE sensitivity <> 'secret'
                                     AND NOT (channel = ANY(%(ch)s) AND sensitivity = ANY(%(sens)s)))
             FROM acb_events WHERE tenant_id = %(t)s AND project_id = %(p)s AND session_id = %(s)s""", view.params())
    return {"secret": secret, "filtered": filtered}


def decisions(view: View, terms: list[str], limit: int) -> list[AcbDecision]:
    """Active decisions the view may read: matching the query first (by rank), then the newest."""
    qs = AcbDecision.objects.filter(tenant_id=view.tenant_id, project_id=view.project_id,
                                    status=DecisionStatus.ACTIVE, channel__in=view.channels,
                                    sensitivity__in=view.sensitivities)
    if not terms:
        return list(qs.order_by("-ts", "decision_id")[:limit])
    q = or_query(terms)
    ranked = list(qs.extra(where=["tsv @@ %s::tsquery"], params=[q])
                  .annotate(rank=RawSQL("ts_rank_cd(tsv, %s::tsquery)", [q]))
                  .order_by("-rank", "-ts", "decision_id")[:limit])
    if len(ranked) == limit:
        return ranked
    ids = [d.decision_id for d in ranked]
    return ranked + list(qs.exclude(decision_id__in=ids).order_by("-ts", "decision_id")[: limit - len(ranked)])


def session_decisions(view: View, limit: int) -> list[AcbDecision]:
    return list(
        AcbDecision.objects.filter(
            tenant_id=view.tenant_id,
            project_id=view.project_id,
            session_id=view.session_id,
            status=DecisionStatus.ACTIVE,
            channel__in=view.channels,
            sensitivity__in=view.sensitivities,
        ).order_by("-ts", "decision_id")[:limit]
    )


def open_tasks(view: View, limit: int) -> list[AcbTask]:
    """Open and doing tasks: the session's first, then the project's, newest first."""
    qs = AcbTask.objects.filter(tenant_id=view.tenant_id, project_id=view.project_id, status__in=OPEN_TASK_STATUSES)
    mine = list(qs.filter(session_id=view.session_id).order_by("-ts", "task_id")[:limit])
    rest = list(qs.exclude(session_id=view.session_id).order_by("-ts", "task_id")[: max(limit - len(mine), 0)])
    return mine + rest


def other_agents_messages(view: View, limit: int) -> list[tuple]:
    """The session's newest messages and decisions written by other agents (for a handoff), newest first."""
    return _rows(
        """SELECT chunk_id, event_id, actor_type, actor_id, token_est, text
             FROM acb_chunks
            WHERE tenant_id = %(t)s AND project_id = %(p)s AND session_id = %(s)s AND kind IN ('message', 'decision')
              AND agent_id <> %(a)s AND channel = ANY(%(ch)s) AND sensitivity = ANY(%(sens)s)
            ORDER BY ts DESC, chunk_id DESC LIMIT %(n)s""",
        view.params(a=view.agent_id, n=limit),
    )


def readable_artifact(reader: Reader, artifact_id: str) -> AcbArtifact | None:
    """An artifact of the reader's project whose event a read of the reader's channel may load."""
    found = AcbArtifact.objects.filter(
        tenant_id=reader.tenant_id, project_id=reader.project_id, artifact_id=artifact_id
    ).first()
    if (
        found is None
        or not AcbEvent.objects.filter(
            tenant_id=reader.tenant_id,
            event_id__in=found.refs[:1],
            channel__in=reader.channels,
            sensitivity__in=reader.sensitivities,
        ).exists()
    ):
        return None
    return found


def task_exists(owner: Owner, task_id: str) -> bool:
    return AcbTask.objects.filter(tenant_id=owner.tenant_id, project_id=owner.project_id, task_id=task_id).exists()


def query_decisions(
    reader: Reader, *, text: str | None, status: str, session_id: str | None, limit: int
) -> list[AcbDecision]:
    """The ledger of the reader's project as its channel may read it: full-text matches first when ``text`` is
    given, then newest first."""
    qs = AcbDecision.objects.filter(
        tenant_id=reader.tenant_id,
        project_id=reader.project_id,
        channel__in=reader.channels,
        sensitivity__in=reader.sensitivities,
    )
    if status != ANY_DECISION_STATUS:
        qs = qs.filter(status=status)
    if session_id:
        qs = qs.filter(session_id=session_id)
    terms = query_terms(text or "")
    if not terms:
        return list(qs.order_by("-ts", "decision_id")[:limit])
    return list(
        qs.extra(where=["tsv @@ %s::tsquery"], params=[or_query(terms)])
        .extra(select={"rank": "ts_rank_cd(tsv, %s::tsquery)"}, select_params=[or_query(terms)])
        .order_by("-rank", "-ts", "decision_id")[:limit]
    )


def decision_status(owner: Owner, decision_id: str) -> str | None:
    return (
        AcbDecision.objects.filter(tenant_id=owner.tenant_id, project_id=owner.project_id, decision_id=decision_id)
        .values_list("status", flat=True)
        .first()
    )


def tenant_has_facts(tenant_id: str) -> bool:
    """A cheap look before building the facts' read-rule query (most event-log tenants have none)."""
    return bool(_rows("SELECT EXISTS (SELECT 1 FROM graph_facts WHERE tenant_id = %(t)s)", {"t": tenant_id})[0][0])


def tenant_has_notes(tenant_id: str) -> bool:
    return bool(_rows("SELECT EXISTS (SELECT 1 FROM memory_notes WHERE tenant_id = %(t)s)", {"t": tenant_id})[0][0])
