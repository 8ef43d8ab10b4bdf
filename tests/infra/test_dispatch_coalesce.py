"""elf_infra.index.dispatch.OutboxPublisher: lone rows of a coalescing outbox go one task per window (the
first at once), other sends one by one, and nothing submitted is left unsent."""

from __future__ import annotations

import logging
import threading
import time

from elf_infra.index.dispatch import OutboxPublisher

log = logging.getLogger("test")
WINDOW_S = 0.2


class Broker:
    """Records the sends the publisher makes (the broker call is its only way out)."""

    def __init__(self):
        self.sent: list[tuple[str, str, float]] = []
        self.lock = threading.Lock()

    def send(self, task_name: str, row_id, *, log) -> bool:
        with self.lock:
            self.sent.append((task_name, row_id, time.monotonic()))
        return True


def _publisher() -> tuple[OutboxPublisher, Broker]:
    broker = Broker()
    return OutboxPublisher(window_s=WINDOW_S, send=broker.send), broker


def test_a_lone_row_after_a_quiet_spell_is_sent_at_once() -> None:
    publisher, broker = _publisher()
    started = time.monotonic()
    publisher.submit("index", "r1", log=log, coalesce=32)
    publisher.join()
    assert [(name, row) for name, row, _ in broker.sent] == [("index", "r1")]
    assert broker.sent[0][2] - started < WINDOW_S / 2


def test_a_burst_goes_as_one_task_per_coalesce_rows_at_the_end_of_the_window() -> None:
    publisher, broker = _publisher()
    rows = [f"r{i}" for i in range(71)]
    started = time.monotonic()
    for row in rows:
        publisher.submit("index", row, log=log, coalesce=32)
    publisher.join()
    # r0 at once; the 70 held rows in chunks of 32, 32 and 6, each sent as its newest row
    assert [row for _, row, _ in broker.sent] == ["r0", "r32", "r64", "r70"]
    assert broker.sent[0][2] - started < WINDOW_S / 2
    assert all(at - broker.sent[0][2] >= WINDOW_S * 0.9 for _, _, at in broker.sent[1:])


def test_rows_apart_by_more_than_the_window_are_each_sent_at_once() -> None:
    publisher, broker = _publisher()
    for row in ("r1", "r2"):
        publisher.submit("index", row, log=log, coalesce=32)
        publisher.join()
        time.sleep(WINDOW_S * 1.2)
    assert [row for _, row, _ in broker.sent] == ["r1", "r2"]
    assert broker.sent[1][2] - broker.sent[0][2] < WINDOW_S * 2


def test_sends_that_do_not_coalesce_go_one_by_one_at_once_beside_held_ones() -> None:
    publisher, broker = _publisher()
    publisher.submit("index", "a1", log=log, coalesce=32)
    publisher.submit("index", "a2", log=log, coalesce=32)  # held for the window
    for row in ("d1", "d2", "d3"):
        publisher.submit("docs", row, log=log)  # its task takes only its own row
    time.sleep(WINDOW_S / 4)
    assert [row for _, row, _ in broker.sent] == ["a1", "d1", "d2", "d3"]
    publisher.join()
    assert [row for _, row, _ in broker.sent] == ["a1", "d1", "d2", "d3", "a2"]


def test_a_send_that_raises_does_not_stop_the_publisher() -> None:
    broker = Broker()

    def send(task_name, row_id, *, log):
        if row_id == "bad":
            raise RuntimeError("broker client bug")
        return broker.send(task_name, row_id, log=log)

    publisher = OutboxPublisher(window_s=WINDOW_S, send=send)
    for row in ("bad", "r1"):
        publisher.submit("docs", row, log=log)
    joined = threading.Event()
    threading.Thread(target=lambda: (publisher.join(), joined.set()), daemon=True).start()
    assert joined.wait(5), "the publisher thread died with the failed send"
    assert [row for _, row, _ in broker.sent] == ["r1"]
