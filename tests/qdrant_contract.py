"""The REST contract of the pinned qdrant-client (pyproject: qdrant-client==1.20.0), read from the client itself.

Every request the service sends to Qdrant must be one the pinned client could send: a method and path of one of
its generated API operations (``qdrant_client/http/api/*.py``: ``_build_for_<operation>`` names the method, the
URL template, the query parameters and the body model), only that operation's query parameters, and a JSON body
that the operation's request model (``qdrant_client.http.models``) accepts *unchanged*. Unchanged is the strict
part: the request models forbid unknown fields, but a union, a free-form dict or a model that ignores extras could
still swallow a misspelt key, so the body is validated, dumped again (only the fields it set) and compared with
what was sent. A key that does not survive the round trip (``limt`` for ``limit``, ``mustt`` for ``must``) is a
violation, as is a value the model had to coerce.

Pure: no stack. tests/infra/test_qdrant_contract.py feeds it the traffic a recording proxy saw.
"""

from __future__ import annotations

import ast
import json
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import qdrant_client
from pydantic import TypeAdapter, ValidationError
from qdrant_client.http import models

API_DIR = Path(qdrant_client.__file__).parent / "http" / "api"
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def _pinned() -> str:
    """pyproject's pin of qdrant-client (``qdrant-client==1.20.0``): the contract is that version's."""
    (pin,) = [d for d in tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
              if d.replace(" ", "").startswith("qdrant-client==")]
    return pin.replace(" ", "")


PINNED = _pinned()


@dataclass(frozen=True)
class Operation:
    """One REST operation of the client: ``method template`` (``{param}`` segments), the query parameters it
    may send, and the name of its body model in ``qdrant_client.http.models`` (None: no body)."""

    name: str
    method: str
    template: str
    query: frozenset[str]
    body: str | None

    @property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(re.sub(r"\\\{[a-z_]+\\\}", "[^/]+", re.escape(self.template)))

    @property
    def literal_chars(self) -> int:
        return len(re.sub(r"\{[a-z_]+\}", "", self.template))


def installed_is_pinned() -> bool:
    return f"qdrant-client=={version('qdrant-client')}" == PINNED


def _body_model(fn: ast.FunctionDef) -> str | None:
    """``body = jsonable_encoder(<arg>)`` names the argument sent as the body; its annotation ``m.<Model>``."""
    sent = None
    for node in ast.walk(fn):
        if (isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["body"]
                and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", None) == "jsonable_encoder"):
            sent = node.value.args[0].id
    if sent is None:
        return None
    (arg,) = [a for a in fn.args.args if a.arg == sent]
    assert isinstance(arg.annotation, ast.Attribute), ast.dump(arg)
    return arg.annotation.attr


def _operation(fn: ast.FunctionDef) -> Operation | None:
    request = [n for n in ast.walk(fn) if isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "request"]
    if len(request) != 1:
        return None
    kw = {k.arg: k.value for k in request[0].keywords}
    query = {n.slice.value for n in ast.walk(fn) if isinstance(n, ast.Subscript)
             and getattr(n.value, "id", None) == "query_params" and isinstance(n.slice, ast.Constant)}
    return Operation(fn.name.removeprefix("_build_for_"), kw["method"].value, kw["url"].value, frozenset(query),
                     _body_model(fn))


@cache
def client_operations() -> tuple[Operation, ...]:
    """Every operation of the installed client's generated REST API."""
    ops = []
    for source in sorted(API_DIR.glob("*_api.py")):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("_build_for_"):
                op = _operation(node)
                if op is not None:
                    ops.append(op)
    return tuple(ops)


def operation_for(method: str, path: str) -> Operation | None:
    """The client operation serving ``method path`` (the most specific template when several match)."""
    found = [op for op in client_operations() if op.method == method and op.pattern.fullmatch(path)]
    return max(found, key=lambda op: op.literal_chars) if found else None


@cache
def _adapter(model: str) -> TypeAdapter:
    return TypeAdapter(getattr(models, model))


def _differences(sent: Any, kept: Any, path: str = "$") -> list[str]:
    """Where the round-tripped body differs from the sent one, as JSONPaths."""
    if isinstance(sent, dict) and isinstance(kept, dict):
        out = [f"{path}.{k}: not a field of the client's model (dropped)" for k in sent if k not in kept]
        out += [f"{path}.{k}: added by the model" for k in kept if k not in sent]
        for k in sent.keys() & kept.keys():
            out += _differences(sent[k], kept[k], f"{path}.{k}")
        return out
    if isinstance(sent, list) and isinstance(kept, list) and len(sent) == len(kept):
        return [d for i, (a, b) in enumerate(zip(sent, kept, strict=False)) for d in _differences(a, b, f"{path}[{i}]")]
    if _same(sent, kept):
        return []
    return [f"{path}: sent {sent!r}, the model reads {kept!r}"]


def _same(sent: Any, kept: Any) -> bool:
    """JSON equality: 1 and 1.0 are the same number, true and 1 are not."""
    if isinstance(sent, bool) or isinstance(kept, bool):
        return type(sent) is type(kept) and sent == kept
    return sent == kept


def body_violations(model: str, body: Any) -> list[str]:
    """Why ``body`` is not exactly a ``model`` (a name in qdrant_client.http.models); [] when it is."""
    adapter = _adapter(model)
    try:
        value = adapter.validate_python(body)
    except ValidationError as exc:
        # an unknown key first: through a union each member's complaints are listed, the misspelling among them
        found = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
        errors = [f"$.{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in found]
        return [f"{model} refuses it ({len(errors)} errors): " + "; ".join(errors[:6])]
    kept = adapter.dump_python(value, mode="json", exclude_unset=True, by_alias=True)
    return [f"{model}: {d}" for d in _differences(body, kept)]


def request_violations(method: str, target: str, body: bytes) -> list[str]:
    """Why one request (``target`` = path and query string, as sent) is not one the pinned client makes."""
    parts = urlsplit(target)
    path = unquote(parts.path)
    op = operation_for(method, path)
    if op is None:
        return [f"{method} {path}: no operation of {PINNED} has this method and path"]
    out = [f"{op.name}: query parameter {k!r} is not one of {sorted(op.query)}"
           for k, _ in parse_qsl(parts.query, keep_blank_values=True) if k not in op.query]
    if op.body is None:
        return out + ([f"{op.name}: takes no body, got {len(body)} bytes"] if body else [])
    try:
        sent = json.loads(body)
    except ValueError as exc:
        return out + [f"{op.name}: the body is not JSON ({exc})"]
    return out + [f"{op.name}: {v}" for v in body_violations(op.body, sent)]
