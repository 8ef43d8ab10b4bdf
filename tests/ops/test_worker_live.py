"""The real elf-worker answers over the broker."""

from __future__ import annotations


def test_worker_answers_ping(live_worker, test_stack):
    from elf_project.celery_app import configure

    app = configure(test_stack)
    replies = app.control.ping(timeout=5)
    assert any(name.startswith("elf-worker@") for reply in replies for name in reply), replies
