"""JSONPath locations for error bodies (``$.notes[0].text``) and the error type that carries one."""

from __future__ import annotations

import json

import regex

_PLAIN_KEY = regex.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class JsonPathError(ValueError):
    """Bad input: what is wrong (``message``) and the JSONPath of the offending element (``path``)."""

    def __init__(self, message: str, path: str):
        super().__init__(f"{path}: {message}")
        self.message = message
        self.path = path


def member_path(path: str, key: str) -> str:
    """``$.a`` + ``b`` -> ``$.a.b``; keys that are not plain names use ASCII-escaped bracket notation
    (``$.a["x y"]``) so error paths stay ASCII-safe."""
    if _PLAIN_KEY.fullmatch(key):
        return f"{path}.{key}"
    return f"{path}[{json.dumps(key)}]"
