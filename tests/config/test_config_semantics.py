"""Template keys ELF gives meaning to, or refuses at start-up naming the key (spec v2 section 1):
chunking.tokenizer_repo, security.redact_secrets_on_write and scopes.precedence."""

from __future__ import annotations

import json
import subprocess
from datetime import UTC, datetime

import pytest
import requests

from elf_config import load_config
from elf_config.chunk_tokenizer import MINILM, chunk_tokenizer
from search.domain.ranking import Candidate, Ranked, aggregate_by_note
from tests.config.test_config_rules import DELETE, EXAMPLE, _set, _write
from tests.conftest import CHAT_PATH, REPO, entry_point
from tests.fake_provider_server import FakeResponse, chat_completion
from tests.notes_helpers import headers, ingest, note, rows, wait_indexed


def _refusal(tmp_path, data: dict, name: str = "elf-api") -> str:
    result = subprocess.run([entry_point(name), "-c", _write(tmp_path, data)], capture_output=True, text=True,
                            timeout=60, cwd=REPO)
    assert result.returncode == 2, result.stdout + result.stderr
    return result.stderr


# --- chunking.tokenizer_repo: the tokenizers that install with ELF, or MiniLM with a margin -------------------
# (the chunks themselves: tests/config/test_chunk_tokenizer.py)

HTTP_EMBEDDER = {"provider_id": "openai", "api_base": "http://127.0.0.1:9/", "path": "/v1/embeddings",
                 "model": "text-embedding-3-small"}


def _http_embedder(data: dict, **over) -> dict:
    data = _set(data, "providers.embedding", {**EXAMPLE["providers"]["embedding"], **HTTP_EMBEDDER, **over})
    return data


@pytest.mark.parametrize("repo", ["", "sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2", "cl100k_base",
                                  "openai:o200k_base", DELETE])
def test_tokenizer_repo_naming_a_shipped_tokenizer_or_inheriting_the_local_model_loads(tmp_path, repo):
    cfg = load_config(_write(tmp_path, _set(EXAMPLE, "chunking.tokenizer_repo", repo)))
    assert cfg.providers.embedding.provider_id == "local"


def test_start_up_refuses_a_tokenizer_repo_it_cannot_honour(tmp_path):
    stderr = _refusal(tmp_path, _set(EXAMPLE, "chunking.tokenizer_repo", "bert-base-uncased"))
    assert "chunking.tokenizer_repo 'bert-base-uncased' cannot be honoured" in stderr
    assert "only the tokenizers that install with ELF and downloads nothing at run time" in stderr
    assert "cl100k_base" in stderr and "sentence-transformers/all-MiniLM-L6-v2" in stderr


def test_an_inherited_embedding_model_loads_with_its_tokenizer_or_the_minilm_fallback(tmp_path):
    # OpenAI's embedding model: its own cl100k_base; an unknown one: MiniLM with the margin (no refusal).
    assert chunk_tokenizer(load_config(_write(tmp_path, _http_embedder(EXAMPLE)))).name == "cl100k_base"
    unknown = chunk_tokenizer(load_config(_write(tmp_path, _http_embedder(EXAMPLE, model="nomic-embed-text"))))
    assert (unknown.name, unknown.fallback, unknown.max_tokens, unknown.overlap_tokens) == (MINILM, True, 192, 48)
    # Naming the bundled tokenizer chunks with it, knowingly and at the full budget; an HTTP MiniLM inherits it.
    explicit = _set(_http_embedder(EXAMPLE, model="nomic-embed-text"), "chunking.tokenizer_repo",
                    "sentence-transformers/all-MiniLM-L6-v2")
    chosen = chunk_tokenizer(load_config(_write(tmp_path, explicit)))
    assert (chosen.name, chosen.fallback, chosen.max_tokens) == (MINILM, False, 256)
    assert not chunk_tokenizer(
        load_config(_write(tmp_path, _http_embedder(EXAMPLE, model="all-MiniLM-L6-v2")))
    ).fallback


# --- security.redact_secrets_on_write ------------------------------------------------------------------------

SECRET = "sk-abcdefghijklmnopqrstuvwxyz123456"
MESSAGE = f"Remember that the deploy token is {SECRET} and deploys run on Thursdays."


def test_start_up_refuses_redact_secrets_on_write_false(tmp_path):
    stderr = _refusal(tmp_path, _set(EXAMPLE, "security.redact_secrets_on_write", False), name="elf-worker")
    assert "security.redact_secrets_on_write must be true: ELF has no mode that stores secrets" in stderr


def _cand(text: str, quote: str) -> dict:
    return {
        "type": "fact",
        "key": None,
        "text": text,
        "importance": 0.6,
        "confidence": 0.9,
        "ttl_days": None,
        "structured": None,
        "scope_suggestion": None,
        "evidence": [{"message_index": 0, "quote": quote}],
        "reason": "test",
    }


def test_add_event_redacts_secrets_before_the_extractor_and_anything_stored(isolated_services):
    s = isolated_services("redact")
    s.start_api()
    redacted = MESSAGE.replace(f"token is {SECRET}", "[REDACTED:credential_assignment]")
    s.fake.respond(
        CHAT_PATH,
        FakeResponse(
            json=chat_completion(
                json.dumps(
                    {
                        "notes": [
                            _cand("Fact: deploys run on Thursdays.", "deploys run on Thursdays"),
                            _cand("Fact: the deploy token is known.", f"deploy token is {SECRET}"),
                            _cand("Fact: the deploy token was shared.", "[REDACTED:credential_assignment]"),
                        ]
                    }
                )
            )
        ),
    )
    r = requests.post(
        s.public + "/v2/events/ingest",
        headers=headers(),
        timeout=60,
        json={"messages": [{"role": "user", "content": MESSAGE}]},
    )
    assert r.status_code == 200, r.text
    (call,) = s.fake.requests_to(CHAT_PATH)
    assert SECRET not in json.dumps(call.json) and redacted in json.dumps(call.json)
    ops = [(x["op"], x["reason_code"]) for x in r.json()["results"]]
    # A quote of the secret binds to nothing the service kept; a quote of the redaction marker binds.
    assert ops == [("ADD", None), ("REJECTED", "REJECT_EVIDENCE_MISMATCH"), ("ADD", None)]
    stored = rows(s, "SELECT text, source_ref::text FROM memory_notes") + rows(
        s, "SELECT coalesce(note_key, ''), details::text FROM memory_ingest_decisions"
    )
    assert len(stored) == 5 and SECRET not in json.dumps(stored)
    assert "[REDACTED:credential_assignment]" in json.dumps(stored)


# --- scopes.precedence: ties in the final order go to the higher scope -----------------------------------------

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _ranked(note_id: str, scope: str, score: float) -> Ranked:
    c = Candidate(
        note_id=note_id, chunk_id=f"{note_id}-c0", scope=scope, importance=0.5, updated_at=NOW, retrieval_score=score
    )
    return Ranked(
        candidate=c, retrieval_rank=1, rerank_rank=None, rerank_score=None, final_score=score, terms=(), policy_id="p"
    )


def test_equal_final_scores_are_ordered_by_scope_precedence_then_note_id():
    items = [
        _ranked("a", "org_shared", 0.5),
        _ranked("b", "project_shared", 0.5),
        _ranked("c", "agent_private", 0.5),
        _ranked("d", "org_shared", 0.9),
    ]
    spec = {"agent_private": 30, "project_shared": 20, "org_shared": 10}
    order = lambda precedence: [r.candidate.note_id for r in aggregate_by_note(items, precedence)]  # noqa: E731
    assert order(spec) == ["d", "c", "b", "a"]  # the score first, precedence only between equal scores
    assert order({"agent_private": 10, "project_shared": 20, "org_shared": 30}) == ["d", "a", "b", "c"]
    assert order({"agent_private": 1, "project_shared": 1, "org_shared": 1}) == ["d", "a", "b", "c"]  # note_id


PAIR_TEXTS = [
    "Fact: the harbour crane lifts forty tonnes.",
    "Preference: reports are written in British English.",
    "Fact: the night ferry leaves at eleven.",
    "Decision: invoices are archived for seven years.",
    "Fact: the staging database is restored every Sunday.",
    "Constraint: pull requests need two approvals.",
    "Fact: the warehouse alarm code changes each quarter.",
    "Preference: meetings start five minutes late.",
]


def test_search_puts_the_higher_precedence_scope_first_on_a_tie(isolated_services):
    """Two notes of the same text in agent_private and project_shared score exactly alike under the spec's
    additive formula without tie-breaker (quick_find: the fused retrieval score), so scopes.precedence decides,
    whichever way their note ids sort (eight pairs: the note_id tie-break alone fails one with odds 255/256)."""

    def mutate(data):
        data["ranking"].update(formula="spec_additive", tie_breaker_weight=0.0)
        data["scopes"]["precedence"] = {"agent_private": 10, "project_shared": 30, "org_shared": 20}

    s = isolated_services("precedence", mutate)
    s.start_api()
    s.start_worker()
    pairs = {}
    for text in PAIR_TEXTS:
        added = [
            ingest(s, [note(text)], scope=scope).json()["results"][0] for scope in ("agent_private", "project_shared")
        ]
        assert [a["op"] for a in added] == ["ADD", "ADD"], added
        pairs[text] = [a["note_id"] for a in added]
    for private, shared in pairs.values():
        wait_indexed(s, private)
        wait_indexed(s, shared)
    for text, (private, shared) in pairs.items():
        r = requests.post(
            s.public + "/v2/searches",
            timeout=60,
            json={"query": text, "mode": "quick_find"},
            headers={**headers(), "X-ELF-Read-Profile": "all_scopes"},
        )
        assert r.status_code == 200, r.text
        first, second = r.json()["items"][:2]
        assert first["final_score"] == second["final_score"], (first, second)
        assert [first["note_id"], second["note_id"]] == [shared, private], (text, first, second)
