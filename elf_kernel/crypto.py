"""Encryption at rest for ``sensitivity: high`` content (agent-memory-acb-prd 9.2: "high: Encrypted at rest").

AES-256-GCM (``cryptography``'s AESGCM) under one key per installation, read from ``security.encryption_key_file``
(default ``<stack.data_dir>/event_log_key``), created on first start (mode 0600) like the Django secret key.

A sealed text is one envelope, ``elfencv1`` + the key id (8 hex digits) + hex(nonce | ciphertext | tag): letters
and digits only, so Postgres' English parser reads it as a single word that no query lexeme can equal (the
full-text columns generated from a sealed text match nothing). Sealed bytes are the same envelope in binary
(``b"elfencv1"`` + 4 key-id bytes + nonce + ciphertext). The associated data (AAD) names the row: table, column,
tenant and row id, so a ciphertext copied into another row, column or tenant fails to open.

Opening with another key, or a ciphertext that fails its tag, raises an ElfError with a clear message; a read
never returns garbage.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import logging
import os
import re
import secrets
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from .errors import ElfError
from .runtime import get_config

log = logging.getLogger("elf.crypto")

MARK = "elfencv1"
BMARK = MARK.encode("ascii")
NONCE = 12
KEY_BYTES = 32
KEY_ID_HEX = 8
_SEALED = re.compile(MARK + r"([0-9a-f]{8})((?:[0-9a-f]{2}){28,})")
# what no written text may hold: it would read as a sealed value (record_event refuses it)
LOOKALIKE = re.compile(MARK + r"[0-9a-f]{16}")


class KeyMismatch(ElfError):
    """Sealed rows written under another key: the operator must install the key file they were written with."""

    status, error_code = 503, "ENCRYPTION_KEY_MISMATCH"


class SealBroken(ElfError):
    """A sealed value fails its integrity check (altered, or copied from another row)."""

    status, error_code = 500, "ENCRYPTED_DATA_INVALID"


class KeyFileError(Exception):
    """The key file exists but holds no valid key (raised at start-up)."""


def is_sealed(value) -> bool:
    return isinstance(value, str) and _SEALED.fullmatch(value) is not None


def is_sealed_bytes(value) -> bool:
    return isinstance(value, (bytes, memoryview)) and bytes(value[: len(BMARK)]) == BMARK


def aad(table: str, column: str, tenant_id: str, row_id: str) -> bytes:
    return f"elf|{table}|{column}|{tenant_id}|{row_id}".encode()


class Cipher:
    def __init__(self, key: bytes):
        if len(key) != KEY_BYTES:
            raise ValueError(f"an encryption key is {KEY_BYTES} bytes")
        self._aead = AESGCM(key)
        self.key_id = hashlib.blake2b(b"elf event-log key id", key=key, digest_size=KEY_ID_HEX // 2).hexdigest()
        self._hash_key = hashlib.blake2b(b"elf text hash", key=key, digest_size=32).digest()

    def _raw(self, data: bytes, ad: bytes) -> bytes:
        nonce = os.urandom(NONCE)
        return nonce + self._aead.encrypt(nonce, data, ad)

    def _open_raw(self, key_id: str, blob: bytes, ad: bytes, what: str) -> bytes:
        if key_id != self.key_id:
            log.error("sealed %s was written under key id %s; this service's key id is %s", what, key_id, self.key_id)
            raise KeyMismatch(
                f"This {what} is encrypted with another key (key id {key_id}; this service's key id is "
                f"{self.key_id}). Install the key file it was written with as security.encryption_key_file.")
        try:
            return self._aead.decrypt(blob[:NONCE], blob[NONCE:], ad)
        except InvalidTag:
            log.error("sealed %s fails its integrity check (%s)", what, ad.decode("utf-8", "replace"))
            raise SealBroken(f"This {what} is encrypted but fails its integrity check: it was altered or copied "
                             "from another row.") from None

    def seal(self, text: str, ad: bytes) -> str:
        return MARK + self.key_id + self._raw(text.encode("utf-8"), ad).hex()

    def open(self, envelope: str, ad: bytes, what: str = "record") -> str:
        m = _SEALED.fullmatch(envelope)
        if m is None:
            raise SealBroken(f"This {what} is not a sealed value.")
        return self._open_raw(m.group(1), bytes.fromhex(m.group(2)), ad, what).decode("utf-8")

    def seal_bytes(self, data: bytes, ad: bytes) -> bytes:
        return BMARK + bytes.fromhex(self.key_id) + self._raw(data, ad)

    def open_bytes(self, blob: bytes, ad: bytes, what: str = "record") -> bytes:
        blob = bytes(blob)
        head = len(BMARK) + KEY_ID_HEX // 2
        return self._open_raw(blob[len(BMARK):head].hex(), blob[head:], ad, what)

    def text_hash(self, text: str) -> str:
        """A keyed digest of the folded text (a sealed chunk's text_hash): equal texts give equal digests under
        one key, and nobody without the key can test a guess against it."""
        folded = " ".join(text.lower().split()).encode("utf-8")
        return hashlib.blake2b(folded, key=self._hash_key, digest_size=16).hexdigest()


def key_path(cfg) -> Path:
    return Path(cfg.encryption_key_path)


def load_or_create_key(path: Path) -> bytes:
    """The key in ``path`` (urlsafe base64 of 32 bytes); a missing file is created, mode 0600, atomically so
    that processes starting together keep exactly one key."""
    try:
        return _decode(path, path.read_text(encoding="ascii"))
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    text = base64.urlsafe_b64encode(secrets.token_bytes(KEY_BYTES)).decode("ascii") + "\n"
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(text)
    try:
        os.link(tmp, path)
        log.warning("created the event-log encryption key %s: back it up with the database (sensitivity high "
                    "rows cannot be read without it)", path)
    except FileExistsError:
        text = path.read_text(encoding="ascii")
    finally:
        tmp.unlink()
    return _decode(path, text)


def _decode(path: Path, text: str) -> bytes:
    try:
        key = base64.urlsafe_b64decode(text.strip().encode("ascii"))
    except (ValueError, UnicodeEncodeError):
        key = b""
    if len(key) != KEY_BYTES:
        raise KeyFileError(f"{path} holds no encryption key (expected the urlsafe base64 of {KEY_BYTES} bytes): "
                           "restore the key file the data was written with, or set security.encryption_key_file")
    return key


@functools.cache
def _cipher_at(path: str) -> Cipher:
    return Cipher(load_or_create_key(Path(path)))


def cipher() -> Cipher:
    """This process's cipher (the key of the loaded config, read once)."""
    return _cipher_at(str(get_config().encryption_key_path))
