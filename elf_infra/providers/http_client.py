"""The POST-JSON helper every HTTP adapter uses: one ``requests.Session`` per adapter instance.

Header policy (spec section 7: "Send Authorization: Bearer <api_key>. Merge default_headers"):
- ``default_headers`` from elf.toml are sent as given (e.g. ``OpenAI-Organization``, ``api-key`` for
  Azure-style gateways, tracing headers),
- except the headers this client owns, which always win: ``Authorization`` is always
  ``Bearer <api_key>`` and ``Content-Type`` is always ``application/json``; a ``default_headers`` entry
  with one of those names, or ``Content-Length`` (computed by requests), is dropped with a warning.
  Letting config override Authorization would send a credential that is not the configured api_key.

Transport choices:
- The URL is ``api_base`` (trailing slashes removed) + ``path``.
- ``timeout_ms`` bounds connecting and each wait for response bytes (requests' connect and read timeouts),
  not the total transfer time of a slowly trickling body.
- Redirects are not followed (a redirected POST would be replayed as a GET, possibly to another host).
- ``trust_env`` is off: no environment variable (proxies, netrc, CA bundle) changes where requests go
  or which credential they carry; elf.toml is the only configuration.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import requests
import urllib3

from .errors import (
    ProviderConnectionError,
    ProviderError,
    ProviderHTTPError,
    ProviderKind,
    ProviderResponseError,
    ProviderTimeoutError,
)

log = logging.getLogger(__name__)

_OWNED_HEADERS = frozenset({"authorization", "content-type", "content-length"})
# Long enough for a provider's JSON error message, short enough for a log line or a last_error column.
BODY_EXCERPT_CHARS = 500
_REDACTED = "[REDACTED]"


class JsonPostClient:
    """POSTs JSON bodies to one provider endpoint and returns the decoded JSON answer."""

    def __init__(
        self,
        *,
        provider_kind: ProviderKind,
        api_base: str,
        path: str,
        api_key: str,
        timeout_ms: int,
        default_headers: dict[str, str],
    ):
        self.provider_kind = provider_kind
        self.url = api_base.rstrip("/") + path
        self.timeout_ms = timeout_ms
        self._api_key = api_key
        self._shown_url = self._redact(self.url)  # the URL as error messages show it
        self._timeout_s = timeout_ms / 1000.0
        self._headers = build_headers(api_key, default_headers)
        self._session = requests.Session()
        self._session.trust_env = False

    def post_json(self, body: dict[str, Any]) -> Any:
        """POST ``body``; the decoded JSON of a 2xx answer, or a ``ProviderError`` subclass."""
        data = json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8")
        try:
            resp = self._session.post(
                self.url, data=data, headers=self._headers, timeout=self._timeout_s, allow_redirects=False
            )
        except requests.Timeout:
            raise ProviderTimeoutError(
                self.provider_kind, f"no response from {self._shown_url} within {self.timeout_ms} ms"
            ) from None
        except requests.ConnectionError as exc:
            # A read timeout while the body is being read surfaces as ConnectionError(ReadTimeoutError).
            if exc.args and isinstance(exc.args[0], urllib3.exceptions.ReadTimeoutError):
                raise ProviderTimeoutError(
                    self.provider_kind, f"response from {self._shown_url} stalled beyond {self.timeout_ms} ms"
                ) from None
            raise ProviderConnectionError(
                self.provider_kind, f"cannot reach {self._shown_url}: {self._redact(str(exc))}"
            ) from None
        except requests.RequestException as exc:
            raise ProviderError(
                self.provider_kind, f"request to {self._shown_url} failed: {self._redact(str(exc))}"
            ) from None

        if not 200 <= resp.status_code < 300:
            raise ProviderHTTPError(self.provider_kind, resp.status_code, self._excerpt(resp.content), self._shown_url)
        try:
            return json.loads(resp.content)
        except ValueError as exc:
            raise ProviderResponseError(
                self.provider_kind,
                f"response from {self._shown_url} is not valid JSON ({exc}): {self._excerpt(resp.content)}",
            ) from None

    def _excerpt(self, content: bytes) -> str:
        # Redact before cutting, so a key straddling the cut cannot leave a fragment behind.
        text = self._redact(content.decode("utf-8", errors="replace"))
        return " ".join(text.split())[:BODY_EXCERPT_CHARS]

    def _redact(self, text: str) -> str:
        return text.replace(self._api_key, _REDACTED) if self._api_key else text


def build_headers(api_key: str, default_headers: dict[str, str]) -> dict[str, str]:
    """``default_headers`` merged under the headers the client owns (see the module docstring)."""
    headers: dict[str, str] = {}
    for name, value in default_headers.items():
        if name.lower() in _OWNED_HEADERS:
            log.warning("providers: ignoring default_headers[%r]; the client sets that header itself", name)
            continue
        headers[name] = value
    headers["Authorization"] = f"Bearer {api_key}"
    headers["Content-Type"] = "application/json"
    return headers
