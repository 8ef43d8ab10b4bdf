"""Outbox tasks are sent by a publisher thread, not by the request (elf_infra.index.dispatch), and searches send
none (traces.services.enqueue): a broker that hangs costs an add_note or a search nothing, and the worker's
sweeps index the note whose task was never sent and persist the traces."""

from __future__ import annotations

import socket
import time

import requests

from tests.conftest import LiveProcess, entry_point, wait_http
from tests.notes_helpers import headers, ingest, note, rows, wait_indexed

HUNG_SEND_S = 5.0  # a synchronous send to the hung broker waits out the socket timeout (5 s) at least


def test_a_hung_broker_never_holds_a_request_and_the_sweeps_catch_up(isolated_services):
    hung = socket.socket()  # accepts connections (into the backlog) and never answers: a send blocks on the reply
    hung.bind(("127.0.0.1", 0))
    hung.listen(64)
    hung_url = f"redis://127.0.0.1:{hung.getsockname()[1]}/0"
    good = {}

    def mutate(data):
        good["url"] = data["worker"]["broker_url"]
        data["worker"]["broker_url"] = hung_url

    try:
        svc = isolated_services("publisher", mutate)
        # /health probes the broker (and would wait on it): wait for an answer of the public bind instead.
        svc.api = LiveProcess([entry_point("elf-api"), "-c", str(svc.config_path)], svc.workdir / "api.log")
        wait_http(svc.public + "/v2/searches/00000000-0000-0000-0000-000000000000", 60, svc.api.proc)
        started = time.monotonic()
        r = ingest(svc, [note("Fact: the build cache lives on the second disk.")])
        took = time.monotonic() - started
        assert r.status_code == 200, r.text
        assert took < HUNG_SEND_S - 1, f"an add_note waited {took:.1f} s on the broker"
        note_id = r.json()["results"][0]["note_id"]
        trace_ids = []
        for query in ("Where is the build cache?", "Who reboots the build server?", "When is the deploy window?"):
            started = time.monotonic()
            r = requests.post(svc.public + "/v2/searches", json={"query": query, "mode": "quick_find"},
                              headers={**headers(), "X-ELF-Read-Profile": "private_only"}, timeout=60)
            took = time.monotonic() - started
            assert r.status_code == 200, r.text
            assert took < HUNG_SEND_S - 1, f"a search waited {took:.1f} s on the broker"
            trace_ids.append(r.json()["trace_id"])
        assert {s for (s,) in rows(svc, "SELECT status FROM search_trace_outbox")} == {"PENDING"}
        assert len(rows(svc, "SELECT 1 FROM search_trace_outbox")) == len(trace_ids)
    finally:
        hung.close()  # the publisher's send (the note's) now fails at once and is logged
    deadline = time.monotonic() + 30
    while "could not dispatch memory.process_outbox_row" not in svc.api.output():
        assert time.monotonic() < deadline, svc.api.output()[-3000:]
        time.sleep(0.3)
    assert "traces.process_trace_outbox_row" not in svc.api.output()  # searches send no task at all
    # A worker on a broker that answers: no task was ever sent for these rows, so its sweeps index the note and
    # persist the traces.
    svc.config_path.write_text(svc.config_path.read_text().replace(hung_url, good["url"]))
    svc.start_worker()
    wait_indexed(svc, note_id)
    deadline = time.monotonic() + 30
    while rows(svc, "SELECT count(*) FROM search_traces")[0][0] < len(trace_ids):
        assert time.monotonic() < deadline, rows(svc, "SELECT status, last_error FROM search_trace_outbox")
        time.sleep(0.3)
    for trace_id in trace_ids:
        got = requests.get(f"{svc.admin}/v2/admin/traces/{trace_id}", headers=headers(), timeout=10)
        assert got.status_code == 200, got.text
    assert {s for (s,) in rows(svc, "SELECT status FROM search_trace_outbox")} == {"DONE"}
