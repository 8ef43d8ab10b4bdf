"""The Django admin pages rendered from templates/: a search trace's explain table (a bar per ranking term,
whatever terms the stored explain holds, scaled to the trace's largest term), its final score, match and
stage trajectory; the predicate registry's list and page (aliases, fact counts, recent facts); and every
registered model's list page still answers 200."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from django.contrib import admin
from django.urls import reverse
from django.utils import timezone

from docs_ext.models import DocDocument
from graph.admin import RECENT_FACTS
from graph.models import GraphPredicate, GraphPredicateAlias
from tests.admin.test_admin_graph import _entity, _fact, _predicate
from tests.traces.test_traces import make_payload
from traces.domain.explain_table import bar_scale, term_bars
from traces.models import SearchTrace
from traces.services.persist import persist_trace

pytestmark = pytest.mark.django_db
PREDICATES = "/admin/graph/graphpredicate/"
TERM_ROW = re.compile(
    r'<tr class="elf-term"><td>([^<]*)</td><td class="elf-num">([^<]*)</td>\s*<td><div class="elf-bar"[^>]*>'
    r'<span class="elf-bar-fill( elf-neg)?" style="width: ([^"]*)"></span>'
)


@pytest.fixture
def admin_port(test_stack) -> str:
    return test_stack.service.admin_bind.rsplit(":", 1)[1]


def _get(admin_client, admin_port, path: str) -> str:
    r = admin_client.get(path, SERVER_PORT=admin_port)
    assert r.status_code == 200, (path, r.status_code)
    return r.content.decode()


def _explain(terms: list[tuple[str, float]], final: float, matched: list[str]) -> dict:
    """An explain of the stored shape with term names no ranking policy uses: the page must not know names."""
    return {"match": {"matched_terms": matched, "matched_fields": ["text"]},
            "ranking": {"schema": "search_ranking_explain/v2", "policy_id": "ranking_v2:tmpl", "final_score": final,
                        "terms": [{"name": n, "value": v} for n, v in terms]}}


def _item_section(page: str, item_id: str) -> str:
    start = page.index(f'id="item-{item_id}"')
    end = page.find('<div class="elf-item"', start)
    return page[start:end if end != -1 else len(page)]


def test_trace_page_draws_each_stored_term_as_a_bar_scaled_to_its_value(admin_client, admin_port):
    payload = make_payload(tenant="t-tmpl-trace", stage_items=5)
    first, second = payload["items"]
    first["final_score"], second["final_score"] = 0.45, 0.3
    first["explain"] = _explain([("alpha.custom", 0.6), ("beta.minor", 0.15), ("gamma.penalty", -0.3)], 0.45,
                                ["deploy", "window"])
    second["explain"] = _explain([("alpha.custom", 0.3), ("delta.only_here", 0.0)], 0.3, [])
    persist_trace(payload)

    page = _get(admin_client, admin_port, f"/admin/traces/searchtrace/{payload['trace']['trace_id']}/change/")
    top = _item_section(page, first["item_id"])
    # one bar per stored term, in stored order; the largest |value| on the trace (0.6) is the full width
    assert TERM_ROW.findall(top) == [("alpha.custom", "0.6", "", "100.0%"), ("beta.minor", "0.15", "", "25.0%"),
                                     ("gamma.penalty", "-0.3", " elf-neg", "50.0%")]
    assert "#1: final score 0.45" in top and '<th class="elf-num">0.45</th>' in top
    assert "deploy, window" in top and "ranking_v2:tmpl" in top
    other = _item_section(page, second["item_id"])
    assert TERM_ROW.findall(other) == [("alpha.custom", "0.3", "", "50.0%"), ("delta.only_here", "0.0", "", "0.0%")]
    assert "#2: final score 0.3" in other

    # the trace's trajectory: every stage with its item count and payload summary, in order
    trajectory = html.unescape(page[page.index("Stage trajectory"):page.index("Returned items")])
    rows = re.findall(r"<tr><td>(\d+)</td><td>([^<]+)</td><td class=\"elf-num\">(\d+)</td>\s*"
                      r"<td class=\"elf-payload\">([^<]*)</td></tr>", trajectory)
    assert rows == [(str(s["stage_order"]), s["stage_name"], "5", f'{{"in": 5, "stage": "{s["stage_name"]}"}}')
                    for s in payload["stages"]]
    # and the item's own path: each stage it reached, with its metrics there
    path = html.unescape(other[other.index("stage reached"):])
    metrics = payload["stages"][0]["items"][1]["metrics"]
    assert path.count('"position": 1') == len(payload["stages"]) and f'"score": {metrics["score"]}' in path


def test_bars_skip_values_that_are_not_numbers():
    explain = _explain([("a", 2), ("b", "n/a"), ("c", True), ("d", float("nan")), ("e", -1)], 1.0, [])
    assert bar_scale([explain, {"ranking": None}, None]) == 2.0
    assert [(b.name, b.width, b.negative) for b in term_bars(explain, 2.0)] == [
        ("a", "100.0%", False), ("b", "0.0%", False), ("c", "0.0%", False), ("d", "0.0%", False), ("e", "50.0%", True)]
    assert [b.width for b in term_bars(_explain([("zero", 0.0)], 0.0, []), 0.0)] == ["0.0%"]


def test_trace_page_says_when_an_item_has_no_terms(admin_client, admin_port):
    payload = make_payload(tenant="t-tmpl-trace", n_items=1, stage_items=1)
    payload["items"][0]["explain"] = {"match": {}, "ranking": {"terms": []}}
    persist_trace(payload)
    page = _get(admin_client, admin_port, f"/admin/traces/searchtrace/{payload['trace']['trace_id']}/change/")
    assert "No ranking terms stored." in page and 'class="elf-term"' not in page


def test_predicate_list_shows_aliases_and_fact_counts(admin_client, admin_port):
    p = _predicate("employed by tmpl", "active")
    for alias in ("Works At tmpl", "Employee Of tmpl"):
        GraphPredicateAlias.objects.create(predicate=p, scope_key=p.scope_key, alias=alias, alias_norm=alias.lower())
    ada, now = _entity("Ada-tmpl"), timezone.now()
    _fact(ada, p, "Old Corp tmpl", now - timedelta(days=30), now - timedelta(days=2))
    _fact(ada, p, "New Corp tmpl", now - timedelta(days=2))
    _fact(_entity("Bob-tmpl"), p, "New Corp tmpl", now - timedelta(days=1))
    _predicate("mentors tmpl")  # no aliases, no facts

    # found through an alias: the alias join must not multiply the counts
    listing = _get(admin_client, admin_port, PREDICATES + "?q=works+at+tmpl")
    assert "Names resolve by alias in scope order" in listing  # the template's key above the list
    row = listing[listing.index("employed by tmpl"):]
    row = row[:row.index("</tr>")]
    # oldest first; added in one transaction, so by normalised name
    assert '<td class="field-alias_list">Employee Of tmpl, Works At tmpl</td>' in row
    assert '<td class="field-fact_total">3</td>' in row and '<td class="field-open_facts">2</td>' in row
    assert "mentors tmpl" not in listing
    everyone = _get(admin_client, admin_port, PREDICATES + "?q=tmpl&o=6")  # ordered by the fact count
    assert everyone.index("mentors tmpl") < everyone.index("employed by tmpl")


def test_predicate_page_shows_aliases_counts_and_recent_facts(admin_client, admin_port):
    p = _predicate("located in tmpl", "active")
    GraphPredicateAlias.objects.create(predicate=p, scope_key=p.scope_key, alias="Based In  tmpl",
                                       alias_norm="based in tmpl")
    ada, now = _entity("Ada-tmpl"), timezone.now()
    old = _fact(ada, p, "London tmpl", now - timedelta(days=30), now - timedelta(days=2))
    _fact(ada, p, "Paris tmpl", now - timedelta(days=2))

    page = html.unescape(_get(admin_client, admin_port, f"{PREDICATES}{p.predicate_id}/change/"))
    aliases = page[page.index("Aliases (1)"):page.index("elf-predicate-facts")]
    assert "<td>Based In  tmpl</td><td>based in tmpl</td><td>t-gadm:p-gadm</td>" in aliases
    facts = page[page.index("elf-predicate-facts"):]
    assert '<span class="elf-fact-count">2</span> recorded, <span class="elf-open-count">1</span> open' in facts
    assert facts.index("Paris tmpl") < facts.index("London tmpl")  # most recently recorded first
    assert f'href="/admin/graph/graphfact/{old.fact_id}/change/"' in facts
    assert "historical" in facts and "current" in facts and "<td>open</td>" in facts
    assert "most recently recorded of" not in facts

    bare = _predicate("visits tmpl")
    for i in range(RECENT_FACTS + 1):
        _fact(ada, bare, f"City {i} tmpl", now - timedelta(days=i + 1))
    page = _get(admin_client, admin_port, f"{PREDICATES}{bare.predicate_id}/change/")
    assert "No aliases" in page and f"The {RECENT_FACTS} most recently recorded of {RECENT_FACTS + 1}." in page
    assert "City 0 tmpl" in page and "City 19 tmpl" in page and "City 20 tmpl" not in page  # latest valid_from


def test_every_admin_list_page_answers(admin_client, admin_port):
    assert "Search traces" in _get(admin_client, admin_port, "/admin/")
    assert {SearchTrace, GraphPredicate, DocDocument} <= set(admin.site._registry)
    for model in admin.site._registry:
        name = f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist"
        _get(admin_client, admin_port, reverse(name, urlconf="elf_project.urls_admin"))
