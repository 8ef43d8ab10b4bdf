"""A paced agent's think time between two requests (elf-bench concurrency --mix and elf-bench acb): exponential,
as an agent's LLM turn between two memory calls.

elf-api (gunicorn) closes a kept-alive connection idle for 2 s (its default keepalive). An agent that is about to
think longer than this closes its own first, as the server would: otherwise a request sent just as the server
closes the idle socket fails with a connection reset (seen once in a 20 s paced run), an artefact of the client's
connection reuse, not of the service."""

from __future__ import annotations

import random
import time

import requests

IDLE_CLOSE_S = 1.5


def think(session: requests.Session, rng: random.Random, mean_s: float, at_most_s: float | None = None) -> None:
    """Sleep an exponential time of mean ``mean_s`` (cut to ``at_most_s``), closing ``session`` first when the
    pause would outlast the server's keep-alive."""
    pause = rng.expovariate(1 / mean_s)
    if at_most_s is not None:
        pause = min(pause, max(0.0, at_most_s))
    if pause > IDLE_CLOSE_S:
        session.close()
    time.sleep(pause)
