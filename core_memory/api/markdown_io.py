"""Raw documents over HTTP: text/markdown (or text/plain) bodies in, text/markdown and JSON lines out. Errors
stay JSON (the spec's error body) whatever the client accepts."""

from __future__ import annotations

from django.http import HttpResponse
from rest_framework.exceptions import ParseError
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser, JSONParser

from elf_config.identifiers import identifier_problem
from elf_kernel.api.validation import validated
from elf_kernel.errors import InvalidRequest

from .serializers import MarkdownBody

MARKDOWN = "text/markdown"
JSON_LINES = "application/x-ndjson"


class TextParser(BaseParser):
    media_type = MARKDOWN

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return stream.read().decode("utf-8")
        except UnicodeDecodeError:
            raise ParseError("The document is not valid UTF-8.") from None


class PlainTextParser(TextParser):
    media_type = "text/plain"


DOCUMENT_PARSERS = [TextParser, PlainTextParser, JSONParser]


class FirstRenderer(BaseContentNegotiation):
    """Answer with the view's first renderer (JSON) whatever Accept says: successes are HttpResponses of their
    own media type, and errors are the JSON error body."""

    def select_parser(self, request, parsers):
        content_type = request.content_type.split(";")[0].strip().lower()
        return next((p for p in parsers if p.media_type == content_type), None)

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


def markdown_response(text: str, version: int) -> HttpResponse:
    response = HttpResponse(text, content_type=f"{MARKDOWN}; charset=utf-8")
    response["ETag"] = f'"{version}"'
    response["X-ELF-Core-Memory-Version"] = str(version)
    return response


def body_text(request) -> tuple[str, int | None]:
    """The document of a PUT and the version it was edited from: a text/markdown or text/plain body (the version
    then comes from If-Match), or JSON {"markdown": ..., "if_version": ...}."""
    data = request.data
    if isinstance(data, str):
        return data, None
    body = validated(MarkdownBody, data)
    return body["markdown"], body.get("if_version")


def if_match(request) -> int | None:
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    value = raw.strip().removeprefix("W/").strip('"')
    if not value.isdigit():
        raise InvalidRequest("If-Match must be the document version (its ETag), e.g. \"3\".", ["$.headers.If-Match"])
    return int(value)


def run_id_or_400(value: str | None, path: str) -> str | None:
    if value is None:
        return None
    problem = identifier_problem(value)
    if problem:
        raise InvalidRequest(f"run_id {problem}.", [path])
    return value
