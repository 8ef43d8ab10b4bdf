"""Request body caps (supplement section 4): 413 before the body is read, on both binds, chunked bodies too.

The live tests run the real elf-api of the test config (auth off); the docs cap (4 MiB, no docs route yet)
and Django's own DATA_UPLOAD_MAX_MEMORY_SIZE are checked at unit level.
"""

from __future__ import annotations

import json
from io import BytesIO

import pytest
import requests
from django.core.exceptions import RequestDataTooBig
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpResponse
from django.test import RequestFactory, override_settings

from elf_kernel.body_limits import DOCS_MAX_BODY_BYTES, MAX_BODY_BYTES, BodyLimitMiddleware
from elf_kernel.errors import exception_handler, json_400
from elf_kernel.listener import ADMIN_URLCONF, listener_urlconfs
from tests.conftest import CONTEXT_HEADERS

MIB = 1024 * 1024


def too_large(size: int | None, limit: int) -> dict:
    told = f"{size} bytes" if size is not None else f"more than {limit} bytes"
    return {"error_code": "PAYLOAD_TOO_LARGE", "fields": ["$"],
            "message": f"Request body is {told}; the limit for this endpoint is {limit} bytes."}


def test_caps_are_the_supplement_numbers():
    assert (MAX_BODY_BYTES, DOCS_MAX_BODY_BYTES) == (1048576, 4194304)


# --- live elf-api -------------------------------------------------------------------------------------------


def post_json_bytes(url: str, body: bytes, headers=CONTEXT_HEADERS) -> requests.Response:
    return requests.post(url, data=body, headers={**headers, "Content-Type": "application/json"}, timeout=30)


def test_public_bind_413_over_one_mib(live_api):
    public, _ = live_api
    r = post_json_bytes(public + "/v2/notes/ingest", b" " * (MIB + 1))
    assert r.status_code == 413, r.text
    assert r.json() == too_large(MIB + 1, MIB)


def test_admin_bind_413_over_one_mib(live_api):
    _, admin = live_api
    r = post_json_bytes(admin + "/v2/admin/searches/raw", b" " * (2 * MIB))
    assert r.status_code == 413, r.text
    assert r.json() == too_large(2 * MIB, MIB)
    # Not only /v2: the Django admin's forms are capped too.
    r = requests.post(admin + "/admin/login/", data=b"x" * (MIB + 5), timeout=30,
                      headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413 and r.json() == too_large(MIB + 5, MIB)


def test_body_of_exactly_the_cap_reaches_the_view(live_api):
    public, _ = live_api
    # Valid JSON padded to exactly 1 MiB: the view answers (a validation error), not the cap.
    body = json.dumps({"scope": "agent_private", "notes": []}).encode()
    body += b" " * (MIB - len(body))
    r = post_json_bytes(public + "/v2/notes/ingest", body)
    assert r.status_code == 400, r.text
    assert r.json()["error_code"] == "INVALID_REQUEST" and r.json()["fields"] == ["$.notes"]


def _chunks(body: bytes, size: int = 64 * 1024):
    for i in range(0, len(body), size):
        yield body[i:i + size]


def test_chunked_body_over_the_cap_is_413(live_api):
    public, _ = live_api
    r = requests.post(public + "/v2/notes/ingest", data=_chunks(b" " * (3 * MIB)), timeout=30,
                      headers={**CONTEXT_HEADERS, "Content-Type": "application/json"})
    assert r.request.headers.get("Transfer-Encoding") == "chunked" and "Content-Length" not in r.request.headers
    assert r.status_code == 413, r.text
    assert r.json() == too_large(None, MIB)


def test_chunked_body_under_the_cap_is_read(live_api):
    # gunicorn passes a chunked request on without CONTENT_LENGTH and Django alone would read it as empty.
    public, _ = live_api
    body = json.dumps({"scope": "agent_private", "notes": [
        {"type": "fact", "text": "The chunked upload test note is stored.", "importance": 0.5, "confidence": 0.9}
    ]}).encode()
    r = requests.post(public + "/v2/notes/ingest", data=_chunks(body, 16), timeout=60,
                      headers={**CONTEXT_HEADERS, "Content-Type": "application/json"})
    assert r.request.headers.get("Transfer-Encoding") == "chunked"
    assert r.status_code == 200, r.text
    assert r.json()["results"][0]["op"] in ("ADD", "NONE")


# --- unit level: the docs cap, and Django's own cap -----------------------------------------------------------


def _through_middleware(path: str, length: int) -> HttpResponse:
    request = RequestFactory().post(path, data=b"", content_type="application/json")
    request.META["CONTENT_LENGTH"] = str(length)  # declared only: the middleware must not read the body
    return BodyLimitMiddleware(lambda req: HttpResponse("view", status=200))(request)


@pytest.mark.parametrize("path", ["/v2/docs", "/v2/docs/ingest", "/v2/docs/abc/excerpts"])
def test_docs_paths_take_four_mib(path):
    assert _through_middleware(path, 3 * MIB).status_code == 200
    assert _through_middleware(path, DOCS_MAX_BODY_BYTES).status_code == 200
    r = _through_middleware(path, DOCS_MAX_BODY_BYTES + 1)
    assert r.status_code == 413
    assert json.loads(r.content) == too_large(DOCS_MAX_BODY_BYTES + 1, DOCS_MAX_BODY_BYTES)


@pytest.mark.parametrize("path", ["/v2/docsearch", "/v2/notes/ingest", "/health", "/admin/login/"])
def test_other_paths_take_one_mib(path):
    assert _through_middleware(path, MIB).status_code == 200
    r = _through_middleware(path, 2 * MIB)
    assert r.status_code == 413 and json.loads(r.content) == too_large(2 * MIB, MIB)


def test_chunked_docs_body_capped_at_four_mib():
    def request(size: int) -> WSGIRequest:
        return WSGIRequest({**RequestFactory()._base_environ(), "REQUEST_METHOD": "POST", "PATH_INFO": "/v2/docs",
                            "HTTP_TRANSFER_ENCODING": "chunked", "wsgi.input": BytesIO(b"d" * size)})

    seen = []
    middleware = BodyLimitMiddleware(lambda req: seen.append(len(req.body)) or HttpResponse("view"))
    assert middleware(request(DOCS_MAX_BODY_BYTES)).status_code == 200 and seen == [DOCS_MAX_BODY_BYTES]
    r = middleware(request(DOCS_MAX_BODY_BYTES + 1))
    assert r.status_code == 413 and json.loads(r.content) == too_large(None, DOCS_MAX_BODY_BYTES)


def test_django_data_too_big_in_a_drf_view_is_413():
    request = RequestFactory().post("/v2/notes/ingest", data=b"{}", content_type="application/json")
    request.META["CONTENT_LENGTH"] = str(3 * MIB)
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=2 * MIB):
        r = exception_handler(RequestDataTooBig("too big"), {"request": request})
    assert r.status_code == 413 and r.data == too_large(3 * MIB, 2 * MIB)
    assert exception_handler(RequestDataTooBig("too big"), {}).status_code == 413


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_django_data_too_big_in_a_django_view_is_413(client):
    # The Django admin login reads request.POST: Django's own cap raises, the 400 handler answers 413.
    admin_port = next(port for port, urlconf in listener_urlconfs().items() if urlconf == ADMIN_URLCONF)
    r = client.post("/admin/login/", data=b"username=" + b"u" * 2000, SERVER_PORT=admin_port,
                    content_type="application/x-www-form-urlencoded")
    assert r.status_code == 413
    assert r.json() == too_large(2009, 1000)
    assert json_400(None).status_code == 400  # any other bad request stays a 400
