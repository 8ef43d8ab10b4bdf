"""elf-api's gunicorn worker class: gthread whose kept-alive connections are handed back to the accept queue
every REQUESTS_PER_CONNECTION requests.

gunicorn's workers share one listening socket and a kept-alive connection stays with the worker that accepted
it. Clients that connect at once (agents starting together) land mostly on one worker: 30 of 32 agents'
connections were on one of the two workers here, so one Python process (one core's worth of interpreter)
served almost everything while the other idled, and the latency of its clients was twice the others'. After
REQUESTS_PER_CONNECTION requests a response says ``Connection: close``; the client reconnects (a loopback
connect is about 0.1 ms), and the worker whose main thread gets to ``accept`` first takes it, which under
load is the less busy one (the busy one's threads hold its interpreter lock).
"""

from __future__ import annotations

from gunicorn.workers.gthread import ThreadWorker

REQUESTS_PER_CONNECTION = 16


class RebalancingThreadWorker(ThreadWorker):
    def handle_request(self, req, conn):
        served = getattr(conn, "elf_requests", 0) + 1
        conn.elf_requests = served
        if served >= REQUESTS_PER_CONNECTION:
            req.must_close = True  # the response says "Connection: close" and the connection ends after it
        return super().handle_request(req, conn)
