"""The one exception handler: spec error body, JSONPaths from nested validation errors, generic 500."""

from __future__ import annotations

import logging

from rest_framework import exceptions as drf_exc

from elf_kernel.errors import InvalidRequest, NonEnglishInput, NotFound, ScopeDenied, exception_handler


def _render(exc):
    r = exception_handler(exc, {})
    return r.status_code, r.data


def test_elf_errors_keep_code_and_fields():
    assert _render(NonEnglishInput(["$.notes[0].text"])) == (
        422,
        {
            "error_code": "NON_ENGLISH_INPUT",
            "message": "Non-English input detected; upstream must canonicalize to English before calling ELF.",
            "fields": ["$.notes[0].text"],
        },
    )
    assert _render(ScopeDenied("no", ["$.scope"]))[0:1] == (403,)
    assert _render(NotFound("gone"))[1]["error_code"] == "NOT_FOUND"
    assert _render(InvalidRequest("bad", ["$.x"]))[1]["fields"] == ["$.x"]


def test_nested_validation_errors_become_jsonpaths():
    detail = {
        "scope": ["This field is required."],
        "notes": [{}, {"text": ["Too long."], "source_ref": {"title": ["Not a string."]}}],
    }
    status, body = _render(drf_exc.ValidationError(detail))
    assert status == 400 and body["error_code"] == "INVALID_REQUEST"
    assert body["fields"] == ["$.scope", "$.notes[1].text", "$.notes[1].source_ref.title"]
    assert "This field is required." in body["message"]


def test_non_field_errors_point_at_the_object():
    status, body = _render(drf_exc.ValidationError({"non_field_errors": ["Exactly one of a and b."]}))
    assert status == 400 and body["fields"] == ["$"]


def test_malformed_json_is_400():
    status, body = _render(drf_exc.ParseError("JSON parse error"))
    assert status == 400 and body["fields"] == ["$"]


def test_unexpected_exception_is_generic_500_and_logged(caplog):
    with caplog.at_level(logging.ERROR, logger="elf.errors"):
        status, body = _render(RuntimeError("db password is hunter2"))
    assert status == 500
    assert body == {"error_code": "INTERNAL_ERROR", "message": "Internal error.", "fields": []}
    assert "hunter2" not in str(body)
    assert any("unhandled error" in rec.message for rec in caplog.records)
