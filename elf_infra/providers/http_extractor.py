"""LLM extractor over an OpenAI-compatible chat completions endpoint (spec section 7.3 and 18)."""

from __future__ import annotations

import json
from typing import Any

from elf_config.schema import ExtractorProviderConfig
from elf_domain.extractor_prompt import (
    BUILTIN_EXTRACTOR_PROMPT,
    ExtractorPrompt,
    render_extractor_messages,
    retry_message,
)

from .errors import ExtractorOutputError, ProviderHTTPError
from .http_client import JsonPostClient

# Spec 7.3: strict JSON, "at most 2 retries" -> at most 3 calls per extract().
MAX_CALLS = 3
_RESPONSE_FORMAT_HINTS = ("response_format", "response format", "json_schema")


class InvalidExtractorOutput(ValueError):
    """One reply was not a JSON object with a ``notes`` list of objects (the next attempt may fix it)."""


class HttpExtractorProvider:
    """POSTs ``{model, temperature, messages: [system, user], response_format}`` and parses the notes JSON.

    Call budget: at most ``MAX_CALLS`` (3) POSTs per ``extract``. A reply that is not valid notes JSON is
    answered with a corrective user turn (``retry_message``) and the request is sent again. If the endpoint
    rejects ``response_format`` (HTTP 400/422 whose body mentions it), the request is re-sent without it,
    and that re-send counts toward the same budget; the adapter then stops sending ``response_format`` for
    the rest of its life. Any other transport or HTTP error is raised at once, without retrying: retrying
    outages is the caller's (outbox/request) business.
    """

    def __init__(
        self,
        cfg: ExtractorProviderConfig,
        *,
        max_notes: int,
        max_note_chars: int,
        prompt: ExtractorPrompt = BUILTIN_EXTRACTOR_PROMPT,
    ):
        self.provider_id = cfg.provider_id
        self.model = cfg.model
        self.temperature = cfg.temperature
        self.max_notes = max_notes
        self.max_note_chars = max_note_chars
        self.prompt = prompt
        self._send_response_format = prompt.response_schema is not None
        self._client = JsonPostClient(
            provider_kind="extractor",
            api_base=cfg.api_base,
            path=cfg.path,
            api_key=cfg.api_key,
            timeout_ms=cfg.timeout_ms,
            default_headers=cfg.default_headers,
        )

    def extract(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The parsed ``{"notes": [...]}`` object (see ``base.ExtractorProvider.extract``)."""
        chat = render_extractor_messages(
            self.prompt, messages, max_notes=self.max_notes, max_note_chars=self.max_note_chars
        )
        reason = ""
        for _ in range(MAX_CALLS):
            body: dict[str, Any] = {"model": self.model, "temperature": self.temperature, "messages": chat}
            if self._send_response_format and self.prompt.response_schema is not None:
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "elf_notes", "strict": True, "schema": self.prompt.response_schema},
                }
            try:
                payload = self._client.post_json(body)
            except ProviderHTTPError as exc:
                if "response_format" in body and exc.refuses_field(_RESPONSE_FORMAT_HINTS):
                    self._send_response_format = False
                    reason = f"the provider rejected response_format (HTTP {exc.status})"
                    continue
                raise
            try:
                return parse_notes_reply(payload)
            except InvalidExtractorOutput as exc:
                reason = str(exc)
                chat = [*chat, retry_message(reason)]
        raise ExtractorOutputError(MAX_CALLS, reason)


def parse_notes_reply(payload: Any) -> dict[str, Any]:
    """The notes object from a chat completions answer's ``choices[0].message.content``."""
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise InvalidExtractorOutput("the answer has no choices[0].message.content") from None
    if not isinstance(content, str):
        raise InvalidExtractorOutput("choices[0].message.content is not a string")
    try:
        parsed = json.loads(content)
    except ValueError as exc:
        raise InvalidExtractorOutput(f"the reply is not valid JSON ({exc})") from None
    if not isinstance(parsed, dict):
        raise InvalidExtractorOutput("the reply is JSON but not an object")
    notes = parsed.get("notes")
    if not isinstance(notes, list):
        raise InvalidExtractorOutput('the reply has no "notes" array')
    if not all(isinstance(note, dict) for note in notes):
        raise InvalidExtractorOutput('every item of "notes" must be an object')
    return parsed
