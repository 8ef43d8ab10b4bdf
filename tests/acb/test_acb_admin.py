"""Django admin for the event log and context bundles: sessions with their timeline, decisions and tasks; events
with content and chunks; decisions with their supersession chain; tasks; artifacts (a 2 KB preview, never the
whole bytes); bundles with sections, omissions and provenance. Read-only, and every text escaped."""

from __future__ import annotations

import uuid

import pytest

from acb.models import AcbEvent, AcbSession
from acb.selectors import View
from acb.services.bundle import build
from acb.services.event_log import Writer, record_event

pytestmark = pytest.mark.django_db
BASE = "/admin/context/"
SCRIPT = "<script>alert(1)</script>"


@pytest.fixture
def admin_port(test_stack) -> str:
    return test_stack.service.admin_bind.rsplit(":", 1)[1]


@pytest.fixture
def writer() -> Writer:
    return Writer(f"t-acbadm-{uuid.uuid4().hex[:12]}", "p1", "sess-1", "agent-a")


def _event(writer: Writer, kind: str, content: dict, *, actor=("human", "user"), sensitivity="none", refs=()):
    return record_event(writer=writer, channel="private", actor_type=actor[0], actor_id=actor[1], kind=kind,
                        sensitivity=sensitivity, tags=["topic:deploy"], content=content, refs=list(refs))


def _get(client, port: str, url: str) -> str:
    r = client.get(url, SERVER_PORT=port)
    assert r.status_code == 200, (url, r.status_code)
    return r.content.decode()


def _session_page(client, port: str, writer: Writer) -> str:
    sid = AcbSession.objects.get(tenant_id=writer.tenant_id, session_id=writer.session_id).sid
    return _get(client, port, f"{BASE}acbsession/{sid}/change/")


def test_session_list_and_page_show_the_timeline_decisions_and_tasks(admin_client, admin_port, writer):
    msg = _event(writer, "message", {"text": f"How do we deploy? {SCRIPT}"})
    call = _event(writer, "tool_call", {"tool": "fs.read_file", "args": {"path": "README.md"}},
                  actor=("agent", "agent-a"))
    secret = _event(writer, "message", {"text": "the password is hunter2"}, sensitivity="secret")
    dec = _event(writer, "decision", {"decision": "Deploy with the blue/green pipeline", "rationale": ["safer"]},
                 actor=("agent", "agent-a"), refs=[msg.event.event_id])
    task = _event(writer, "task_update", {"title": "Write the <deploy> runbook", "status": "doing"},
                  actor=("agent", "agent-a"))
    listing = _get(admin_client, admin_port, f"{BASE}acbsession/?tenant_id={writer.tenant_id}")
    assert writer.session_id in listing and "agent-a" in listing

    page = _session_page(admin_client, admin_port, writer)
    for e in (msg, call, secret, dec, task):
        assert f"{BASE}acbevent/{e.event.event_id}/change/" in page
    assert "How do we deploy? &lt;script&gt;alert(1)&lt;/script&gt;" in page and SCRIPT not in page
    assert "call fs.read_file" in page and "agent:agent-a" in page and "tool_call" in page
    assert "withheld" in page and "hunter2" not in page
    assert f"{BASE}acbdecision/{dec.decision_id}/change/" in page and "Deploy with the blue/green pipeline" in page
    assert f"{BASE}acbtask/{task.task_id}/change/" in page and "Write the &lt;deploy&gt; runbook" in page


def test_event_list_filters_and_page_shows_content_and_chunks(admin_client, admin_port, writer):
    msg = _event(writer, "message", {"text": f"First paragraph {SCRIPT}.\n\nSecond paragraph about deploys."})
    call = _event(writer, "tool_call", {"tool": "shell", "args": {"cmd": "ls"}}, actor=("agent", "agent-a"))
    listing = _get(admin_client, admin_port, f"{BASE}acbevent/?tenant_id={writer.tenant_id}&kind=message")
    assert msg.event.event_id in listing and call.event.event_id not in listing
    listing = _get(admin_client, admin_port, f"{BASE}acbevent/?tenant_id={writer.tenant_id}&channel=private"
                                             f"&sensitivity=none")
    assert msg.event.event_id in listing and call.event.event_id in listing

    page = _get(admin_client, admin_port, f"{BASE}acbevent/{msg.event.event_id}/change/")
    assert "&quot;text&quot;: &quot;First paragraph &lt;script&gt;" in page and SCRIPT not in page  # pretty JSON
    assert msg.chunk_ids and all(c in page for c in msg.chunk_ids)
    assert "Second paragraph about deploys." in page
    assert f"{BASE}acbsession/" in page  # the session link


def test_decision_pages_show_the_supersession_chain_and_refs(admin_client, admin_port, writer):
    first = _event(writer, "decision", {"decision": "Use MySQL for storage"}, actor=("agent", "agent-a"))
    second = _event(writer, "decision", {"decision": "Use Postgres <16> for storage", "supersedes": first.decision_id},
                    actor=("agent", "agent-a"))
    third = _event(writer, "decision", {"decision": "Use Postgres 17", "supersedes": second.decision_id},
                   actor=("agent", "agent-b"))
    listing = _get(admin_client, admin_port, f"{BASE}acbdecision/?tenant_id={writer.tenant_id}&status=active")
    assert third.decision_id in listing and first.decision_id not in listing and second.decision_id not in listing

    page = _get(admin_client, admin_port, f"{BASE}acbdecision/{second.decision_id}/change/")
    assert "Use Postgres &lt;16&gt; for storage" in page and "<16>" not in page
    for d in (first, second, third):
        assert f"{BASE}acbdecision/{d.decision_id}/change/" in page
    assert "this one" in page and "superseded" in page
    # the chain, oldest first: the decision it replaced, then this one, then the one that replaced it
    chain = page[page.index("Supersession chain"):]
    assert chain.index("Use MySQL for storage") < chain.index("this one") < chain.index("Use Postgres 17")
    assert f"{BASE}acbevent/{second.event.event_id}/change/" in page  # a ref links to its event
    assert second.chunk_ids[0] in page


def test_task_and_artifact_pages_escape_and_never_show_whole_bytes(admin_client, admin_port, writer):
    task = _event(writer, "task_update", {"title": "Fix <b>bold</b> bug", "details": "see & check"},
                  actor=("agent", "agent-a"))
    output = "<i>line</i> of output\n" * 4000 + "TAIL-MARKER\n"  # about 88 KB: past the 64 KB excerpt
    result = _event(writer, "tool_result", {"tool": "fs.read_file", "path": "big.log", "output": output},
                    actor=("tool", "fs"))
    assert result.artifact_id is not None

    listing = _get(admin_client, admin_port, f"{BASE}acbtask/?tenant_id={writer.tenant_id}&status=open")
    assert task.task_id in listing and "Fix &lt;b&gt;bold&lt;/b&gt; bug" in listing
    page = _get(admin_client, admin_port, f"{BASE}acbtask/{task.task_id}/change/")
    assert "Fix &lt;b&gt;bold&lt;/b&gt; bug" in page and "see &amp; check" in page
    assert f"{BASE}acbevent/{task.event.event_id}/change/" in page

    size = len(output.encode())
    listing = _get(admin_client, admin_port, f"{BASE}acbartifact/?tenant_id={writer.tenant_id}")
    assert result.artifact_id in listing and str(size) in listing and "big.log" in listing
    page = _get(admin_client, admin_port, f"{BASE}acbartifact/{result.artifact_id}/change/")
    assert "&lt;i&gt;line&lt;/i&gt; of output" in page and "<i>line</i>" not in page
    assert "TAIL-MARKER" not in page and f"{size - 2048} more bytes not shown" in page
    assert page.count("of output") <= 2048 // len("<i>line</i> of output\n") + 1
    assert "&quot;media_type&quot;" in page and f"{BASE}acbevent/{result.event.event_id}/change/" in page


def test_bundle_list_and_page_show_sections_omissions_and_provenance(admin_client, admin_port, writer):
    msg = _event(writer, "message", {"text": f"Which pipeline deploys the service? {SCRIPT}"})
    _event(writer, "decision", {"decision": "The deploy pipeline is blue/green"}, actor=("agent", "agent-a"))
    view = View(writer.tenant_id, writer.project_id, writer.session_id, writer.agent_id, "private")
    bundle = build(view=view, intent="repo_onboarding", query_text="deploy pipeline", max_tokens=4000)

    listing = _get(admin_client, admin_port, f"{BASE}acbbundle/?tenant_id={writer.tenant_id}&channel=private")
    assert bundle["acb_id"] in listing and f"{bundle['token_used_est']} / 4000" in listing
    page = _get(admin_client, admin_port, f"{BASE}acbbundle/{bundle['acb_id']}/change/")
    for section in bundle["sections"]:
        assert f"<h3>{section['name']}: {section['token_est']} of cap {section['cap']} tokens" in page
    assert "Which pipeline deploys the service? &lt;script&gt;" in page and SCRIPT not in page
    assert f"{BASE}acbevent/{msg.event.event_id}/change/" in page  # an item's refs link to their event
    assert "&quot;query_terms&quot;" in page and "repo_onboarding" in page and "&quot;scoring&quot;" in page
    assert "omissions" in page and bundle["bundle_hash"] in page
    session = _session_page(admin_client, admin_port, writer)
    assert f"{BASE}acbbundle/{bundle['acb_id']}/change/" in session


def test_context_admin_is_read_only(admin_client, admin_port, writer):
    msg = _event(writer, "message", {"text": "Nothing here can be edited."})
    add = admin_client.get(f"{BASE}acbevent/add/", SERVER_PORT=admin_port)
    assert add.status_code == 403
    r = admin_client.post(f"{BASE}acbevent/{msg.event.event_id}/delete/", {"post": "yes"}, SERVER_PORT=admin_port)
    assert r.status_code == 403
    assert AcbEvent.objects.filter(pk=msg.event.event_id).exists()
