"""Keyset pagination cursors: an opaque, URL-safe token of (updated_at, id) for lists ordered newest first."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime

from ..errors import InvalidRequest


def decode_cursor(cursor: str, path: str = "$.query.cursor") -> tuple[datetime, str]:
    """The (updated_at, id) a cursor names; a token that is not one of ours is a 400 on ``path``."""
    try:
        raw = json.loads(base64.urlsafe_b64decode(cursor.encode()).decode())
        return datetime.fromisoformat(raw["u"]), str(raw["id"])
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError):
        raise InvalidRequest("Invalid cursor.", [path]) from None


def encode_cursor(updated_at: datetime, row_id) -> str:
    return base64.urlsafe_b64encode(json.dumps({"u": updated_at.isoformat(), "id": str(row_id)}).encode()).decode()
