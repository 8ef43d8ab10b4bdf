"""Encrypted rows in a tenant export (acb.sealing): an export carries the ciphertext as it is stored, so the
importing service needs the exporting service's key file. An import under the same tenant name checks that every
sealed value was written under this service's key (ImportRefused otherwise: nothing is written); one under a new
name (``--tenant``) opens each sealed value with the old tenant's AAD and seals it again with the new one's, which
needs the key too."""

from __future__ import annotations

from django.db import connection

from elf_kernel.crypto import MARK, KeyMismatch, SealBroken, aad, cipher, is_sealed, is_sealed_bytes
from elf_kernel.portability import ImportRefused

from ..sealing import ARTIFACT_FLAG, DECISION_LISTS, DECISION_TEXTS, ENCRYPTED, TASK_TEXTS

KEY_HINT = ("copy the exporting service's key file here (security.encryption_key_file, default "
            "<stack.data_dir>/event_log_key), then import again")


def _reseal_text(table: str, column: str, row_id: str, value, old: str, new: str):
    if not is_sealed(value):
        return value
    c = cipher()
    try:
        plain = c.open(value, aad(table, column, old, row_id), table)
    except (KeyMismatch, SealBroken) as exc:
        raise ImportRefused(f"{table} {row_id}: {exc.message} {KEY_HINT}") from None
    return c.seal(plain, aad(table, column, new, row_id))


def _reseal_json(table: str, column: str, row_id: str, value, old: str, new: str):
    if isinstance(value, dict) and list(value) == [ENCRYPTED]:
        return {ENCRYPTED: _reseal_text(table, column, row_id, value[ENCRYPTED], old, new)}
    return value


def events(row: dict, old: str, new: str) -> None:
    row["content"] = _reseal_json("acb_events", "content", row["event_id"], row.get("content"), old, new)


def chunks(row: dict, old: str, new: str) -> None:
    row["text"] = _reseal_text("acb_chunks", "text", row["chunk_id"], row.get("text"), old, new)


def decisions(row: dict, old: str, new: str) -> None:
    for name in DECISION_TEXTS:
        row[name] = _reseal_text("acb_decisions", name, row["decision_id"], row.get(name), old, new)
    for name in DECISION_LISTS:
        value = row.get(name)
        if isinstance(value, list) and len(value) == 1:
            row[name] = [_reseal_text("acb_decisions", name, row["decision_id"], value[0], old, new)]


def tasks(row: dict, old: str, new: str) -> None:
    for name in TASK_TEXTS:
        row[name] = _reseal_text("acb_tasks", name, row["task_id"], row.get(name), old, new)


def artifacts(row: dict, old: str, new: str) -> None:
    value = row.get("bytes")
    if not (row.get("meta") or {}).get(ARTIFACT_FLAG) or not isinstance(value, str) or not value.startswith("\\x"):
        return
    blob = bytes.fromhex(value[2:])
    if not is_sealed_bytes(blob):
        return
    c, row_id = cipher(), row["artifact_id"]
    try:
        plain = c.open_bytes(blob, aad("acb_artifacts", "bytes", old, row_id), "artifact")
    except (KeyMismatch, SealBroken) as exc:
        raise ImportRefused(f"acb_artifacts {row_id}: {exc.message} {KEY_HINT}") from None
    row["bytes"] = "\\x" + c.seal_bytes(plain, aad("acb_artifacts", "bytes", new, row_id)).hex()


def bundles(row: dict, old: str, new: str) -> None:
    row["body"] = _reseal_json("acb_bundles", "body", row["acb_id"], row.get("body"), old, new)


# The key id of every sealed value of a tenant (8 hex digits after the mark).
KEY_IDS_SQL = f"""
SELECT DISTINCT substr(v, {len(MARK) + 1}, 8) FROM (
    SELECT content->>'{ENCRYPTED}' AS v FROM acb_events WHERE tenant_id = %(t)s AND sensitivity = 'high'
    UNION ALL SELECT text FROM acb_chunks WHERE tenant_id = %(t)s AND sensitivity = 'high'
    UNION ALL SELECT decision FROM acb_decisions WHERE tenant_id = %(t)s AND sensitivity = 'high'
    UNION ALL SELECT title FROM acb_tasks WHERE tenant_id = %(t)s
    UNION ALL SELECT body->>'{ENCRYPTED}' FROM acb_bundles WHERE tenant_id = %(t)s
    UNION ALL SELECT '{MARK}' || encode(substring(bytes FROM {len(MARK) + 1} FOR 4), 'hex') FROM acb_artifacts
     WHERE tenant_id = %(t)s AND meta ? '{ARTIFACT_FLAG}') sealed
 WHERE v LIKE '{MARK}%%'"""


def check_keys(tenant_id: str) -> None:
    """ImportRefused when a sealed value of the tenant was written under another key than this service's."""
    with connection.cursor() as cur:
        cur.execute(KEY_IDS_SQL, {"t": tenant_id})
        others = sorted(k for (k,) in cur.fetchall() if k != cipher().key_id)
    if others:
        raise ImportRefused(f"the file holds sensitivity-high rows encrypted with key id {', '.join(others)} and "
                            f"this service's key id is {cipher().key_id}: {KEY_HINT}")
