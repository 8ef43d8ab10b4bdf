"""The one exception the client raises: :class:`ElfError`."""

from __future__ import annotations

from typing import Any


class ElfError(Exception):
    """Any failure of a call to ELF.

    * ``status``: the HTTP status of the answer (400, 403, 404, 409, 412, 413, 422, 429, 503, ...), or ``None``
      when there was no error answer: the service could not be reached (``error_code`` ``CONNECTION_ERROR`` or
      ``TIMEOUT``), or a write the service answered with 200 was rejected inside it (the LangGraph store raises
      the note's ``reason_code``, e.g. ``REJECT_TOO_LONG``).
    * ``error_code``: the service's stable code (``INVALID_REQUEST``, ``NON_ENGLISH_INPUT``, ``SCOPE_DENIED``,
      ``NOT_FOUND``, ``RATE_LIMITED``, ...); ``HTTP_<status>`` when the answer had no ELF error body.
    * ``message``: the service's human-readable text.
    * ``fields``: the JSONPaths the service named (``["$.notes[0].text"]``), possibly empty.
    * ``retry_after``: seconds from the ``Retry-After`` header, when the answer had one.
    * ``body``: the parsed error body (or the text of a non-JSON one), for anything else.
    """

    def __init__(self, status: int | None, error_code: str, message: str, fields: list[str] | None = None, *,
                 retry_after: float | None = None, method: str | None = None, url: str | None = None,
                 body: Any = None):
        self.status = status
        self.error_code = error_code
        self.message = message
        self.fields = list(fields or [])
        self.retry_after = retry_after
        self.method = method
        self.url = url
        self.body = body
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f" ({self.method} {self.url})" if self.method and self.url else ""
        fields = f" fields={self.fields}" if self.fields else ""
        status = f"{self.status} " if self.status is not None else ""
        return f"{status}{self.error_code}: {self.message}{fields}{where}"

    def __repr__(self) -> str:
        return (f"ElfError(status={self.status!r}, error_code={self.error_code!r}, message={self.message!r}, "
                f"fields={self.fields!r})")
