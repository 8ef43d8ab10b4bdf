"""The service's boundary for core memory values: the English gate (values are prose, keys identifiers) and
the shared secret detector (elf_domain.secrets), reported with the JSONPath of each failing field."""

from __future__ import annotations

from elf_domain.english_gate import FieldKind, normalize
from elf_domain.secrets import contains_secret
from elf_kernel.api.english_fields import require_english

from .errors import RejectSecret

Field = tuple[str, str, FieldKind]  # (JSONPath, text, how it is gated)


def require_clean(fields: list[Field]) -> None:
    """422 NON_ENGLISH_INPUT, else 422 REJECT_SECRET, naming every failing field."""
    require_english(fields)
    secret = [path for path, text, _ in fields if contains_secret(normalize(text))]
    if secret:
        raise RejectSecret(secret)


def gated_reason(reason: str | None, default: str) -> str:
    """A write's audit reason: the caller's, through the English gate (422 naming ``$.reason``), else ``default``."""
    if reason:
        require_english([("$.reason", reason, FieldKind.NATURAL)])
        return reason
    return default


def entry_fields(key: str, value: str, key_path: str, value_path: str) -> list[Field]:
    return [(key_path, key, FieldKind.IDENTIFIER), (value_path, value, FieldKind.NATURAL)]
