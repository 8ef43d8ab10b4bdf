"""What tests/kernel/test_fuzz_openapi.py feeds schemathesis beyond the documents: real resources seeded on a live
ServiceSet through the API, a generation hook that puts their ids into most draws (so path parameters reach
existing rows instead of answering 404 every time), and OpenAPI links for the stateful scenarios."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import requests
from hypothesis import strategies as st

from tests.notes_helpers import headers, note, wait_indexed

TENANT, PROJECT, AGENT = "t1", "p1", "a1"
CONTEXT = headers(AGENT, TENANT, PROJECT)
READ_PROFILES = ["private_only", "private_plus_project", "all_scopes"]
RUN_ID, ENDED_RUN_ID = "run-fuzz", "run-fuzz-ended"
SESSION_ID = "sess-fuzz"
DOC_TEXT = (
    "Harbour operations handbook. The harbour office opens at nine and closes at five on weekdays. "
    "Boats moor at the east pier after dark. The backup generator is tested every Monday. "
) * 8
DOOMED_TEXTS = [
    "Fact: the archive room keeps invoices from 2019.", "Plan: repaint the lobby walls in green next spring.",
    "Fact: the coffee machine on floor two needs descaling monthly.", "Fact: Bob owns the printer budget.",
    "Plan: migrate the wiki to the new server in June.", "Fact: the car park gate code changes every quarter.",
]


# parameter name -> the seeded pool it draws from (most of the time); destructive operations use their own.
POOLS = {
    "note_id": "note_id", "note_ids": "note_id", "superseded_by": "note_id", "doc_id": "doc_id",
    "search_id": "search_id", "trace_id": "trace_id", "item_id": "item_id", "entity_id": "entity_id",
    "predicate_id": "predicate_id", "profile_id": "profile_id", "artifact_id": "artifact_id", "run_id": "run_id",
    "entry_id": "doomed_entry_id", "key": "key", "tenant_id": "tenant", "project_id": "project",
    "agent_id": "agent", "session_id": "session", "refs": "acb_ref", "supersedes": "acb_ref", "task_id": "acb_ref",
    "X-ELF-Read-Profile": "read_profile",
}
DESTRUCTIVE = {"elf_notes_delete": {"note_id": "doomed_note_id"}, "elf_notes_deprecate": {"note_id": "doomed_note_id"},
               "elf_v1_memory_delete": {"note_id": "doomed_note_id"}, "elf_docs_delete": {"doc_id": "doomed_doc_id"},
               "elf_core_memory_run_end": {"run_id": "doomed_run_id"}}
# OpenAPI links the stateful scenarios follow beside the ones schemathesis infers (the served documents declare
# none): source operationId, status -> {link name: (target operationId, parameters)}.
NOTE_ID, DOC_ID = "$response.body#/results/0/note_id", "$response.body#/doc_id"
NOTE_TARGETS = ["elf_notes_get", "elf_notes_patch", "elf_notes_delete", "elf_notes_deprecate", "elf_notes_publish",
                "elf_notes_unpublish"]
LINKS = {
    ("elf_notes_ingest", "200"): {t: (t, {"note_id": NOTE_ID}) for t in NOTE_TARGETS},
    ("elf_v1_memory_add_note", "200"): {t: (t, {"note_id": NOTE_ID}) for t in NOTE_TARGETS},
    ("elf_docs_put", "200"): {t: (t, {"doc_id": DOC_ID}) for t in
                              ["elf_docs_get", "elf_docs_delete", "elf_docs_publish", "elf_docs_unpublish"]},
    ("elf_searches_create", "200"): {t: (t, {"search_id": "$response.body#/search_id"}) for t in
                                     ["elf_searches_get", "elf_searches_timeline", "elf_searches_notes"]},
    ("elf_core_memory_upsert", "202"): {t: (t, {"run_id": "$request.body#/run_id",
                                                "entry_id": "$response.body#/pending_entry_id"}) for t in
                                        ["elf_core_memory_pending_confirm", "elf_core_memory_pending_reject"]},
    ("elf_core_memory_upsert", "200"): {t: (t, {"run_id": "$request.body#/run_id"}) for t in
                                        ["elf_core_memory_session_get", "elf_core_memory_audit",
                                         "elf_core_memory_run_end"]},
    ("elf_admin_events_ingestion_profiles_create", "200"): {
        t: (t, {"profile_id": "$response.body#/profile_id"}) for t in
        ["elf_admin_events_ingestion_profile_get", "elf_admin_events_ingestion_profile_versions_list"]},
    ("elf_admin_graph_predicates_list", "200"): {
        t: (t, {"predicate_id": "$response.body#/predicates/0/predicate_id"}) for t in
        ["elf_admin_graph_predicate_patch", "elf_admin_graph_predicate_aliases_list",
         "elf_admin_graph_predicate_aliases_add"]},
    ("v2_admin_traces_recent_retrieve", "200"): {
        t: (t, {"trace_id": "$response.body#/traces/0/trace_id"}) for t in
        ["v2_admin_traces_retrieve", "v2_admin_traces_bundle_retrieve", "v2_admin_trajectories_retrieve"]},
}
FIXED_POOLS = {"tenant": [TENANT], "project": [PROJECT], "agent": [AGENT], "session": [SESSION_ID],
               "read_profile": READ_PROFILES}

SEEDED: dict[str, list] = {}  # filled by the test's fixture before any example is drawn


@dataclass
class Seeded:
    """Ids of live resources, by the parameter name the OpenAPI documents give them. ``doomed_*`` ids are
    for the destructive operations (delete, deprecate, end a run, confirm/reject), so reads keep theirs."""

    ids: dict[str, list] = field(default_factory=dict)

    def add(self, name: str, *values) -> None:
        bucket = self.ids.setdefault(name, [])
        bucket.extend(v for v in values if v is not None and v not in bucket)


def _ok(response: requests.Response) -> dict:
    assert response.status_code in (200, 202), (
        f"{response.request.method} {response.url}: {response.status_code} {response.text[:500]}"
    )
    return response.json()


def _post(base: str, path: str, body: dict, hdr: dict | None = None) -> dict:
    return _ok(requests.post(base + path, json=body, headers=hdr or CONTEXT, timeout=60))


def _get(base: str, path: str, hdr: dict | None = None, **params) -> dict:
    return _ok(requests.get(base + path, params=params, headers=hdr or CONTEXT, timeout=60))


def _ingest(s, scope: str, notes: list[dict]) -> list[str]:
    results = _post(s.public, "/v2/notes/ingest", {"scope": scope, "notes": notes})["results"]
    return [r["note_id"] for r in results if r["note_id"]]


def _relation(subject: str, predicate: str, obj: str) -> dict:
    return {
        "subject": {"canonical": subject, "kind": "person"},
        "predicate": predicate,
        "object": {"entity": {"canonical": obj}},
    }


def seed(s) -> Seeded:
    """Notes (private, shared, with graph relations), a document, a search session and its trace, core
    memory (profile, a live run with a pending entry, an ended run), ACB events/decisions/tasks/bundle,
    a grant, an ingestion profile and the predicates the relations registered."""
    out = Seeded()
    p, a = s.public, s.admin
    kept = _ingest(
        s,
        "agent_private",
        [
            note("Preference: the user wants dark mode in every editor.", type="preference", key="editor_theme"),
            note("Fact: the ledger closes on Fridays at noon.", key="ledger_close"),
            note(
                "Alice leads the data team since March.",
                structured={"relations": [_relation("Alice", "leads", "data team")]},
            ),
        ],
    )
    shared = _ingest(s, "project_shared", [note("Fact: the staging cluster is rebuilt every night.")])
    doomed = _ingest(s, "agent_private", [note(text) for text in DOOMED_TEXTS])
    out.add("note_id", *kept, *shared)
    out.add("doomed_note_id", *doomed)
    doc = _post(p, "/v2/docs", {"scope": "agent_private", "title": "Harbour handbook", "content": DOC_TEXT})
    doomed_doc = _post(p, "/v2/docs", {"scope": "agent_private", "title": "Old handbook", "content": DOC_TEXT})
    out.add("doc_id", doc["doc_id"])
    out.add("doomed_doc_id", doomed_doc["doc_id"])
    for note_id in kept + shared:
        wait_indexed(s, note_id, timeout=60)
    hdr = {**CONTEXT, "X-ELF-Read-Profile": "private_plus_project"}
    for query in ("Which editor theme does the user like?", "When does the ledger close?"):
        session = _post(p, "/v2/searches", {"query": query, "mode": "quick_find"}, hdr)
        out.add("search_id", session["search_id"])
        out.add("trace_id", session["trace_id"])
    facts = _get(p, "/v2/graph/facts", state="all")["facts"]
    out.add("entity_id", *[f["subject"]["entity_id"] for f in facts])
    out.add("entity_id", *[(f["object"]["entity"] or {}).get("entity_id") for f in facts])
    out.add("predicate_id", *[f["predicate_id"] for f in facts])
    out.add("predicate_id", *[x["predicate_id"] for x in _get(a, "/v2/admin/graph/predicates")["predicates"]])

    _post(
        p,
        "/v2/core-memory/entries",
        {
            "scope": "profile",
            "kind": "preference",
            "key": "response.tone",
            "value": "friendly",
            "source": "user_explicit",
        },
    )
    for run in (RUN_ID, ENDED_RUN_ID):
        _post(
            p,
            "/v2/core-memory/entries",
            {
                "scope": "session",
                "run_id": run,
                "kind": "fact",
                "key": "task.current_goal",
                "value": "Draft the quarterly report",
                "ttl": "session_end",
                "source": "system",
            },
        )
    for i in range(4):
        staged = _post(
            p,
            "/v2/core-memory/entries",
            {
                "scope": "profile",
                "kind": "preference",
                "key": f"guess.k{i}",
                "value": "dark mode",
                "source": "user_inferred",
                "run_id": RUN_ID,
            },
        )
        out.add("doomed_entry_id", staged["pending_entry_id"])
    _post(p, f"/v2/core-memory/runs/{ENDED_RUN_ID}/end", {})
    out.add("run_id", RUN_ID, ENDED_RUN_ID)
    out.add("doomed_run_id", "run-fuzz-doomed", ENDED_RUN_ID)
    out.add("key", "response.tone", "task.current_goal", "guess.k0")
    _post(
        a,
        "/v2/admin/core-memory/entries",
        {"scope": "policy", "kind": "constraint", "key": "policy.no_secrets", "value": "true"},
    )
    out.add("policy_key", "policy.no_secrets")

    acb = {"tenant_id": TENANT, "project_id": PROJECT, "agent_id": AGENT, "session_id": SESSION_ID}
    event = _post(
        p,
        "/api/v1/events",
        {
            **acb,
            "channel": "private",
            "actor": {"type": "human", "id": "user"},
            "kind": "message",
            "content": {"text": "Please draft the quarterly report."},
        },
    )
    decision = _post(
        p,
        "/api/v1/decisions",
        {**acb, "decision": "Use Postgres for the ledger.", "rationale": ["It is already deployed."]},
    )
    task = _post(p, "/api/v1/tasks", {**acb, "title": "Draft the quarterly report"})
    # A tool output over the excerpt cap is kept whole as an artifact.
    tool = _post(
        p,
        "/api/v1/events",
        {
            **acb,
            "channel": "private",
            "actor": {"type": "tool", "id": "fs"},
            "kind": "tool_result",
            "content": {"tool": "cat", "output": DOC_TEXT * 80},
        },
    )
    _post(p, "/api/v1/acb/build", {**acb, "intent": "report", "query_text": "quarterly report"})
    assert tool["artifact_id"], tool
    out.add("artifact_id", tool["artifact_id"])
    out.add("acb_ref", event["event_id"], decision["decision_id"], task["task_id"])

    _post(p, "/v2/spaces/team_shared/grants", {"grantee_kind": "agent", "grantee_agent_id": "a2"})
    profile = _post(
        a, "/v2/admin/events/ingestion-profiles", {"profile_id": "fuzz-profile", "profile": {"temperature": 0.1}}
    )
    out.add("profile_id", profile["profile_id"])
    out.add(
        "profile_id", *[x["profile_id"] for x in _get(a, "/v2/admin/events/ingestion-profiles").get("profiles", [])]
    )
    _wait_traces(a, out)
    return out


def _wait_traces(admin: str, out: Seeded, timeout: float = 30) -> None:
    """Traces are written through an outbox: wait until the searches' traces read back, then take their items."""
    deadline = time.monotonic() + timeout
    for trace_id in out.ids["trace_id"]:
        while True:
            r = requests.get(f"{admin}/v2/admin/traces/{trace_id}/bundle", headers=CONTEXT, timeout=30)
            if r.status_code == 200:
                out.add("item_id", *[i["item_id"] for i in r.json()["items"]])
                break
            assert time.monotonic() < deadline, f"trace {trace_id} not readable: {r.status_code} {r.text[:300]}"
            time.sleep(0.3)


def _pool(operation, name: str) -> list:
    key = DESTRUCTIVE.get(operation.definition.raw.get("operationId"), {}).get(name) or POOLS.get(name)
    return FIXED_POOLS.get(key) or SEEDED.get(key) or []


def seeded_case(context, case):
    """flatmap_case hook: each id-like field is replaced by a seeded id in 9 draws out of 10."""
    slots = []
    for attr in ("path_parameters", "query", "headers", "body"):
        container = getattr(case, attr)
        if not isinstance(container, dict):
            continue
        for name, value in container.items():
            pool = _pool(context.operation, name)
            if pool:
                slots.append((container, name, pool, isinstance(value, list)))
    if not slots:
        return st.just(case)

    def draw_one(pool: list, as_list: bool):
        value = st.lists(st.sampled_from(pool), min_size=1, max_size=3) if as_list else st.sampled_from(pool)
        return st.integers(0, 9).flatmap(lambda n: st.none() if n == 0 else value)

    def apply(values):
        for (container, name, _, _), value in zip(slots, values, strict=False):
            if value is not None:
                container[name] = value
        return case

    return st.tuples(*(draw_one(pool, as_list) for _, _, pool, as_list in slots)).map(apply)


def with_links(document: dict) -> dict:
    """The document with LINKS added to the responses of their source operations."""
    for item in document["paths"].values():
        for op in item.values():
            for status, response in op.get("responses", {}).items() if isinstance(op, dict) else ():
                links = LINKS.get((op.get("operationId"), status), {})
                response.setdefault("links", {}).update(
                    {name: {"operationId": target, "parameters": params} for name, (target, params) in links.items()}
                )
                if not response["links"]:
                    del response["links"]
    return document
