"""Tasks of the project itself."""

from celery import shared_task


@shared_task(name="elf.ping")
def ping() -> str:
    """Round trip through the broker and a worker (used by tests and operators to check the worker)."""
    return "pong"
