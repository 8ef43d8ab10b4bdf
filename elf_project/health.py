"""GET /health: 200 when Postgres, Qdrant and the broker answer, 503 naming what is down."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import psycopg
import redis
import requests
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from elf_kernel.runtime import get_config

HEALTH_STATUSES = ("ok", "unavailable")  # pinned to StatusEnum in the OpenAPI documents (settings)

PROBE_TIMEOUT_S = 2


def _postgres() -> None:
    with psycopg.connect(get_config().storage.postgres.dsn, connect_timeout=PROBE_TIMEOUT_S) as conn:
        conn.execute("SELECT 1")


def _qdrant() -> None:
    requests.get(get_config().storage.qdrant.url.rstrip("/") + "/", timeout=PROBE_TIMEOUT_S).raise_for_status()


def _broker() -> None:
    client = redis.Redis.from_url(
        get_config().worker.broker_url, socket_timeout=PROBE_TIMEOUT_S, socket_connect_timeout=PROBE_TIMEOUT_S
    )
    try:
        client.ping()
    finally:
        client.close()


PROBES = {"postgres": _postgres, "qdrant": _qdrant, "broker": _broker}


def _probe(fn) -> str:
    try:
        fn()
        return "ok"
    except Exception as exc:  # any failure means "down"; the reason is reported, not raised
        return f"down: {type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}".rstrip(": ")


def run_checks() -> dict[str, str]:
    with ThreadPoolExecutor(max_workers=len(PROBES)) as pool:
        futures = {name: pool.submit(_probe, fn) for name, fn in PROBES.items()}
        return {name: f.result() for name, f in futures.items()}


_HealthSerializer = inline_serializer(
    "Health",
    {
        "status": serializers.ChoiceField(choices=HEALTH_STATUSES),
        "down": serializers.ListField(child=serializers.CharField()),
        "checks": serializers.DictField(child=serializers.CharField()),
    },
)


class HealthView(APIView):
    @extend_schema(responses={200: _HealthSerializer, 503: _HealthSerializer}, summary="Dependency health")
    def get(self, request):
        checks = run_checks()
        down = [name for name, state in checks.items() if state != "ok"]
        body = {"status": "unavailable" if down else "ok", "down": down, "checks": checks}
        return Response(body, status=503 if down else 200)
