"""The Django admin (admin bind, /admin/) in a real browser: Debian's headless chromium driven by selenium.

One isolated service set (elf-api + elf-worker) is filled through the HTTP API (notes, a keyed update, a
published note with grants, a graph fact, a search whose trace the worker persisted, a document, core memory)
plus one FAILED indexing outbox row; then one browser session logs in through the login form and reads every
operator page, and runs the outbox's "Retry now" action. Each page is screenshotted into this module's output
directory (printed) and asserted on its content. A missing chromium fails the module: CI installs it.
"""

from __future__ import annotations

import uuid

import pytest
import requests

from tests.browser_helpers import AdminBrowser, browser_problem
from tests.indexing_helpers import execute, outbox, rows, wait_done, wait_for
from tests.notes_helpers import headers, ingest, note, wait_indexed
from traces.domain.trace_payload import STAGE_NAMES

ADMIN_USER, ADMIN_PASSWORD = "browser-operator", uuid.uuid4().hex
KEYED_V1 = "Fact: the deploy window opens on Tuesdays at nine."
KEYED_V2 = "Fact: the deploy window opens on Thursdays at ten."
SHARED_TEXT = "Decision: the billing service moves to the new cluster in March."
GRAPH_TEXT = "Alice sponsors the data team."  # "sponsors" is no shipped predicate: t1:p1 registers it
DOC_TITLE = "Harbour handbook"
DOC_TEXT = "".join(f"Section {i}. The harbour office opens at nine and closes at five on weekdays. Boats moor at "
                   f"the north pier after six. The backup generator is tested every Monday.\n" for i in range(40))
RUN_ID = "run-browser"
POLICY = "# POLICY\n\n## Guardrails\n- key:policy.prohibit.secrets_exfiltration | value:true | priority:100\n"
PAGES = ("login", "login-refused", "dashboard", "notes", "note-keyed", "notes-shared", "note-shared", "traces", "trace",
         "grants", "predicates", "predicate", "fact", "documents", "document", "core-memory", "core-memory-profile",
         "core-memory-diff", "core-memory-audit", "outbox-failed", "outbox-retried", "outbox-done")
OUTBOX_ERROR = "embedding provider timed out (row set up by the browser test)"


def _ok(r: requests.Response, status: int = 200) -> dict:
    assert r.status_code == status, f"{r.request.method} {r.url}: {r.status_code} {r.text[:1000]}"
    return r.json()


def _post(s, path: str, body: dict) -> dict:
    return _ok(requests.post(s.public + path, json=body, headers=headers(), timeout=60))


def _add(s, text: str, scope: str = "agent_private", **fields) -> dict:
    """add_note of one note; its result."""
    return _ok(ingest(s, [note(text, **fields)], scope=scope))["results"][0]


def _create_superuser(s) -> None:
    """The operator's account in the set's database (``manage.py createsuperuser`` writes the same row; that
    command is tested in test_admin_login.py), its password hashed by Django's default hasher."""
    from django.contrib.auth.hashers import make_password

    execute(s, "INSERT INTO auth_user (password, is_superuser, username, first_name, last_name, email, is_staff, "
               "is_active, date_joined) VALUES (%s, true, %s, '', '', 'operator@example.com', true, true, now())",
            (make_password(ADMIN_PASSWORD), ADMIN_USER))


def _notes(s) -> dict:
    ids = {}
    first, again = _add(s, KEYED_V1, key="deploy_window"), _add(s, KEYED_V2, key="deploy_window")
    assert (first["op"], again["op"], again["note_id"]) == ("ADD", "UPDATE", first["note_id"]), (first, again)
    ids["keyed"] = first["note_id"]
    ids["shared"] = _add(s, SHARED_TEXT, type="decision")["note_id"]
    _post(s, f"/v2/notes/{ids['shared']}/publish", {"space": "team_shared"})
    _post(s, "/v2/spaces/team_shared/grants", {"grantee_kind": "agent", "grantee_agent_id": "a2"})
    relation = {"subject": {"canonical": "Alice", "kind": "person"}, "predicate": "sponsors",
                "object": {"entity": {"canonical": "data team"}}}
    ids["graph"] = _add(s, GRAPH_TEXT, scope="project_shared", structured={"relations": [relation]})["note_id"]
    return ids


def _search(s) -> str:
    body = _ok(requests.post(s.public + "/v2/searches", json={"query": "When does the deploy window open?",
                                                                "mode": "quick_find"},
                             headers={**headers(), "X-ELF-Read-Profile": "private_plus_project"}, timeout=60))
    assert body["items"], body
    trace_id = body["trace_id"]
    wait_for(lambda: rows(s, "SELECT 1 FROM search_trace_items WHERE trace_id = %s", (trace_id,)), 30,
             f"the worker to persist trace {trace_id}")
    return trace_id


def _core_memory(s) -> None:
    entry = {"scope": "profile", "kind": "preference", "key": "response.tone", "source": "user_explicit"}
    _post(s, "/v2/core-memory/entries", {**entry, "value": "formal"})
    _post(s, "/v2/core-memory/entries", {**entry, "value": "professional-friendly"})  # version 2: a diff
    _post(s, "/v2/core-memory/entries", {"scope": "session", "run_id": RUN_ID, "kind": "fact",
                                         "key": "task.current_goal", "value": "Draft the quarterly report",
                                         "ttl": "session_end", "source": "system"})
    r = requests.put(s.admin + "/v2/admin/core-memory/policy.md", data=POLICY.encode(),
                     headers={**headers(), "Content-Type": "text/markdown"}, timeout=30)
    _ok(r)


def _failed_outbox_row(s, note_id: str) -> uuid.UUID:
    """A FAILED UPSERT of a real note, next tried in an hour: only "Retry now" makes it due sooner."""
    outbox_id = uuid.uuid4()
    execute(s, "INSERT INTO indexing_outbox (outbox_id, note_id, op, embedding_version, status, attempts, last_error, "
               "available_at) VALUES (%s, %s, 'UPSERT', %s, 'FAILED', 3, %s, now() + interval '1 hour')",
            (outbox_id, note_id, s.cfg.embedding_version, OUTBOX_ERROR))
    return outbox_id


@pytest.fixture(scope="module")
def world(isolated_services_module):
    problem = browser_problem()
    if problem:  # fail, never skip: CI installs the browser (scripts/install.sh)
        pytest.fail(problem, pytrace=False)
    s = isolated_services_module("admin_browser")
    s.start_api()  # applies the schema and Django's migrations
    _create_superuser(s)
    s.start_worker()
    s.ids = _notes(s)
    s.doc = _post(s, "/v2/docs", {"scope": "agent_private", "title": DOC_TITLE, "content": DOC_TEXT})
    _core_memory(s)
    for nid in s.ids.values():
        wait_indexed(s, nid)
    s.trace_id = _search(s)
    s.outbox_id = _failed_outbox_row(s, s.ids["keyed"])
    ((doc_outbox,),) = rows(s, "SELECT outbox_id FROM doc_indexing_outbox WHERE doc_id = %s", (s.doc["doc_id"],))
    wait_done(s, doc_outbox, table="doc_indexing_outbox")
    return s


@pytest.fixture(scope="module")
def browser(world, tmp_path_factory):
    shots = tmp_path_factory.mktemp("admin-browser")
    print(f"\nadmin browser screenshots: {shots}")
    b = AdminBrowser(world.admin, shots)
    yield b
    b.quit()
    print(f"\nadmin pages visited in the browser: {len(b.pages)} (screenshots in {shots}): {', '.join(b.pages)}")


def _list_link(browser: AdminBrowser, list_path: str, name: str, link_text: str, page_name: str) -> str:
    """Open a change list and follow the row link ``link_text`` to its page."""
    browser.open(list_path, name)
    return browser.follow(browser.link(link_text), page_name)


def test_login_through_the_form(browser):
    text = browser.open("/admin/", "login")
    assert browser.path.startswith("/admin/login/") and "Log in" in browser.title, browser.path
    assert "Username" in text and "Password" in text
    browser.one("#id_username").send_keys(ADMIN_USER)
    browser.one("#id_password").send_keys("wrong password")
    text = browser.follow(browser.one("input[type=submit]"), "login-refused")
    assert "Please enter the correct username and password" in text
    browser.one("#id_password").send_keys(ADMIN_PASSWORD)  # Django keeps the username, empties the password
    text = browser.follow(browser.one("input[type=submit]"), "dashboard")
    assert browser.path == "/admin/" and "Site administration" in text
    assert ADMIN_USER.upper() in text.upper() and "Log out".upper() in text.upper()
    for section in ("Memory notes", "Search traces", "Graph predicates", "Core memory documents"):
        assert section.upper() in text.upper(), section
    # The app sidebar folded away, as its toggle button leaves it: wider pages in the screenshots.
    browser.driver.execute_script("localStorage.setItem('django.admin.navSidebarIsOpen', 'false')")


def test_notes_list_and_a_keyed_notes_versions(browser, world):
    text = browser.open("/admin/memory/memorynote/", "notes")
    assert "Select memory note to view" in browser.title
    assert "3 memory notes" in text and "deploy_window" in text
    text = browser.follow(browser.link(world.ids["keyed"]), "note-keyed")
    assert "View memory note" in browser.title and KEYED_V2 in text
    versions = browser.rows(".field-versions table")
    assert [v[1] for v in versions] == ["UPDATE", "ADD"], versions  # newest first
    assert versions[0][4:6] == [KEYED_V1, KEYED_V2] and versions[1][5] == KEYED_V1
    assert browser.rows(".field-who_can_read table") == [["agent a1", "owner"]]
    decisions = browser.rows(".field-ingest_decisions table")
    assert [d[4] for d in decisions] == ["UPDATE", "ADD"], decisions


def test_a_published_notes_readers(browser, world):
    text = _list_link(browser, "/admin/memory/memorynote/?scope__exact=project_shared", "notes-shared",
                      world.ids["shared"], "note-shared")
    assert SHARED_TEXT in text
    readers = browser.rows(".field-who_can_read table")
    assert [r[0] for r in readers] == ["agent a1", "agent a2 of project p1", "every agent of project p1"], readers
    assert readers[1][1].startswith("agent grant by a1") and readers[2][1].startswith("project grant by a1")
    assert "publish:team_shared" in browser.text(".field-versions")


def test_a_trace_with_its_explain_table(browser, world):
    text = _list_link(browser, "/admin/traces/searchtrace/", "traces", world.trace_id, "trace")
    assert "When does the deploy window open?" in text and "View search trace" in browser.title
    assert [r[1] for r in browser.rows(".elf-trajectory table")] == list(STAGE_NAMES)
    items = browser.all(".elf-item")
    (n_items,) = rows(world, "SELECT count(*) FROM search_trace_items WHERE trace_id = %s", (world.trace_id,))[0]
    assert len(items) == n_items >= 1
    assert "Returned items: explain (by rank)" in text and "#1: final score" in text
    first = browser.rows(f"#{items[0].get_attribute('id')} table.elf-terms")
    assert {"blend.retrieval", "tie_breaker"} <= {r[0] for r in first[:-1]}, first
    assert first[-1][0] == "final score"
    assert world.ids["keyed"] in text  # the keyed note ranked and is named in its explain header
    # Each term's bar as drawn: |value| as a share of the largest term on the trace, so the largest fills its track.
    drawn = browser.driver.execute_script(
        "return [...document.querySelectorAll('tr.elf-term')].map(tr => [tr.cells[1].innerText,"
        " tr.querySelector('.elf-bar-fill').getBoundingClientRect().width, tr.querySelector('.elf-bar').clientWidth])")
    assert len(drawn) >= 3 * len(items) and len(browser.all(".elf-bar-fill")) == len(drawn), drawn
    largest = max(abs(float(v)) for v, _, _ in drawn)
    assert largest > 0, drawn
    for value, fill, track in drawn:
        assert abs(fill - track * abs(float(value)) / largest) <= 1.5, (value, fill, track, drawn)


def test_grants_list(browser):
    text = browser.open("/admin/memory/memoryspacegrant/", "grants")
    assert "Select memory space grant to view" in browser.title and "2 memory space grants" in text
    grants = {(r[4].lower(), r[5]): r for r in browser.rows("#result_list")}
    assert set(grants) == {("project", "-"), ("agent", "a2")}, grants
    assert all(r[2] == "Project Shared" and r[3] == "a1" and r[8] == "active" for r in grants.values()), grants


def test_predicates_list_a_predicate_and_its_fact(browser, world):
    text = browser.open("/admin/graph/graphpredicate/?scope_kind=tenant_project", "predicates")
    assert "Select graph predicate to view" in browser.title
    (sponsors,) = [r for r in browser.rows("#result_list") if r[1] == "sponsors"]
    assert [c.lower() for c in sponsors[3:7]] == ["t1:p1", "multi", "pending", "1"], sponsors
    text = browser.follow(browser.link("sponsors"), "predicate")
    assert "View graph predicate" in browser.title
    assert (browser.text(".elf-fact-count"), browser.text(".elf-open-count")) == ("1", "1")
    (fact,) = browser.rows(".elf-predicate-facts table")
    assert fact[:2] == ["Alice", "data team"] and fact[3] == "open" and fact[4] == "current", fact
    text = browser.follow(browser.link("Alice"), "fact")
    assert "View graph fact" in browser.title and GRAPH_TEXT in browser.text(".field-evidence_notes")
    assert world.ids["graph"] in text


def test_documents_list_and_a_document(browser, world):
    doc = world.doc
    text = _list_link(browser, "/admin/docs_ext/docdocument/", "documents", doc["doc_id"], "document")
    assert "View document" in browser.title, browser.title
    assert DOC_TITLE in text
    chunks = browser.rows(".field-chunks table")
    assert len(chunks) == doc["chunk_count"] > 1 and chunks[0][0] == "0" and chunks[0][1].startswith("0-")
    assert chunks[0][3].startswith("Section 0. The harbour office opens at nine")
    assert [r[1] for r in browser.rows(".field-indexing table")] == ["DONE"]


def test_core_memory_documents_diff_and_audit(browser, world):
    text = browser.open("/admin/core_memory/corememorydocument/", "core-memory")
    assert "Select core memory document to change" in browser.title  # editable: through put_document
    assert {r[2].lower() for r in browser.rows("#result_list")} == {"profile", "session", "policy"}, text
    ((profile_id,),) = rows(world, "SELECT doc_id FROM core_memory_documents WHERE scope = 'profile'")
    browser.follow(browser.one(f'#result_list a[href*="{profile_id}"]'), "core-memory-profile")
    assert "Change core memory document" in browser.title
    assert "key:response.tone | value:professional-friendly" in browser.text(".field-current_content")
    (entry,) = browser.rows(".field-entries_table table")
    assert entry[1:4] == ["response.tone", "preference", "professional-friendly"], entry
    assert [v[0] for v in browser.rows(".field-versions_table table")] == ["2", "1"]
    text = browser.follow(browser.link("v1 → v2"), "core-memory-diff")
    assert "v1 → v2" in browser.title and "value:formal" in text and "value:professional-friendly" in text
    text = browser.open("/admin/core_memory/corememoryaudit/?tenant_id=t1", "core-memory-audit")
    audit = browser.rows("#result_list")
    upserted = {r[3] for r in audit if r[1] == "upsert"}
    assert upserted == {"response.tone", "task.current_goal", "policy.prohibit.secrets_exfiltration"}, audit
    assert "professional-friendly" in text


def test_outbox_retry_now_makes_the_failed_row_due(browser, world):
    from selenium.webdriver.support.ui import Select

    text = browser.open("/admin/memory/indexingoutbox/?status__exact=FAILED", "outbox-failed")
    assert "Select indexing outbox to view" in browser.title and "1 indexing outbox" in text
    (row,) = browser.rows("#result_list")
    assert row[1:5] == [str(world.outbox_id), world.ids["keyed"], "Upsert", "Failed"] and row[5] == "3", row
    before = outbox(world, world.outbox_id)
    assert before["status"] == "FAILED" and before["available_at"] > rows(world, "SELECT now()")[0][0]
    browser.one(f'input[name="_selected_action"][value="{world.outbox_id}"]').click()
    Select(browser.one('select[name="action"]')).select_by_value("retry_selected_now")
    clicked = rows(world, "SELECT now()")[0][0]
    browser.follow(browser.one('button[name="index"]'), "outbox-retried")
    assert browser.text(".messagelist") == "1 row(s) made due and dispatched."
    # Due an hour from now before the action: the running worker settles it at once only if it became due.
    after = wait_done(world, world.outbox_id, timeout=30, after=clicked)
    assert after["attempts"] == 3 and after["last_error"] == OUTBOX_ERROR, after
    text = browser.open(f"/admin/memory/indexingoutbox/?status__exact=DONE&q={world.ids['keyed']}", "outbox-done")
    statuses = {r[1]: r[4] for r in browser.rows("#result_list")}
    assert statuses[str(world.outbox_id)] == "Done", statuses


def test_every_page_was_visited(browser):
    assert browser.pages == list(PAGES), browser.pages
    assert sorted(p.name for p in browser.shots.iterdir()) == [f"{i:02d}-{name}.png" for i, name in
                                                               enumerate(PAGES, start=1)]
