"""``sensitivity: high`` is encrypted at rest (agent-memory-acb-prd 9.2; issue 31 item 5). Through HTTP on isolated
services: a high event's content, chunks, decision, task and artifact are stored as ciphertext (no column of the raw
rows holds the text or a word of it), while a private bundle, the decision ledger and the artifact read it back
and a public bundle never does. An export carries the ciphertext: a service with the same key file imports and
reads it (also under a new tenant name), one with another key refuses the import, and a service started with
another key answers 503 ENCRYPTION_KEY_MISMATCH instead of garbage. Unit tests of the envelope: another key, a
changed byte or another row's AAD never open."""

from __future__ import annotations

import base64
import os
import subprocess
import tomllib
import uuid
from pathlib import Path

import psycopg
import pytest
import requests

from elf_config.toml_writer import dumps
from elf_kernel.crypto import Cipher, KeyFileError, KeyMismatch, SealBroken, aad, load_or_create_key
from tests.conftest import entry_point
from tests.portability_helpers import manage

TENANT, PROJECT, SESSION, AGENT = "t-enc", "p-enc", "s-enc", "agent-a"
WORD = "marmalade"  # in every high text below, and in no other
SENTENCE = "Marmalade otters guard the quartz lighthouse at dawn."
DECISION = "Route the marmalade invoices through the quartz ledger."
RATIONALE = "The marmalade auditors demand it."
TASK = "Count the marmalade jars in the quartz cellar"
BIG_OUTPUT = "marmalade inventory line of the quartz cellar report\n" * 1500  # > 64 KB: an artifact
TABLES = ("acb_events", "acb_chunks", "acb_decisions", "acb_tasks", "acb_artifacts", "acb_bundles")


def with_key(path):
    def mutate(data: dict) -> None:
        data["security"]["encryption_key_file"] = str(path)
    return mutate


def post(svc, path: str, body: dict) -> dict:
    r = requests.post(svc.public + "/api/v1" + path, timeout=60, json={
        "tenant_id": TENANT, "project_id": PROJECT, "session_id": SESSION, "agent_id": AGENT, **body})
    assert r.status_code == 200, r.text
    return r.json()


def record(svc, kind: str, content: dict, *, sensitivity: str = "high", channel: str = "private") -> dict:
    return post(svc, "/events", {"kind": kind, "channel": channel, "sensitivity": sensitivity, "content": content,
                                 "actor": {"type": "agent", "id": AGENT}})


def bundle(svc, channel: str, tenant: str = TENANT) -> requests.Response:
    return requests.post(svc.public + "/api/v1/acb/build", timeout=60, json={
        "tenant_id": tenant, "project_id": PROJECT, "session_id": SESSION, "agent_id": AGENT, "channel": channel,
        "query_text": "marmalade quartz lighthouse invoices"})


def bundle_text(svc, channel: str, tenant: str = TENANT) -> str:
    r = bundle(svc, channel, tenant)
    assert r.status_code == 200, r.text
    return " ".join(i["text"] for s in r.json()["sections"] for i in s["items"])


def decisions(svc, tenant: str = TENANT, **params) -> requests.Response:
    return requests.get(svc.public + "/api/v1/decisions/query", timeout=60, params={
        "tenant_id": tenant, "project_id": PROJECT, "agent_id": AGENT, "channel": "private", **params})


def raw_rows(svc, tenant: str) -> dict[str, str]:
    """Every column of the tenant's rows of each table, as Postgres prints the row (generated tsv included)."""
    out = {}
    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
        for table in TABLES:
            rows = conn.execute(f"SELECT t::text FROM {table} t WHERE tenant_id = %s", (tenant,)).fetchall()
            out[table] = "\n".join(r[0] for r in rows)
    # bytea prints as hex: the artifact's bytes are checked decoded too
    with psycopg.connect(svc.cfg.storage.postgres.dsn) as conn:
        blobs = conn.execute("SELECT bytes FROM acb_artifacts WHERE tenant_id = %s", (tenant,)).fetchall()
    out["acb_artifacts.bytes"] = "\n".join(bytes(b or b"").decode("utf-8", "replace") for (b,) in blobs)
    return out


@pytest.fixture(scope="module")
def source(isolated_services_module):
    """Services on the default key file (<stack.data_dir>/event_log_key, the test stack's)."""
    s = isolated_services_module("enc_src")
    s.start_api()
    s.ids = {
        "message": record(s, "message", {"text": SENTENCE}),
        "decision": record(s, "decision", {"decision": DECISION, "rationale": [RATIONALE],
                                           "constraints": ["Only marmalade clerks sign."]}),
        "task": record(s, "task_update", {"title": TASK, "status": "open", "details": "Every marmalade jar."}),
        "tool": record(s, "tool_result", {"tool": "read_file", "path": "cellar.txt", "output": BIG_OUTPUT}),
    }
    record(s, "message", {"text": "The public ferry leaves at noon."}, sensitivity="none", channel="public")
    return s


def test_the_key_file_is_created_on_first_start_readable_by_its_owner_only(isolated_services, tmp_path):
    path = tmp_path / "keys" / "first.key"
    s = isolated_services("enc_first", mutate=with_key(path))
    s.start_api()
    assert path.exists() and Path(s.cfg.encryption_key_path) == path
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert len(base64.urlsafe_b64decode(path.read_text().strip())) == 32


def test_a_broken_key_file_refuses_start_naming_it(isolated_services, tmp_path):
    bad = tmp_path / "bad.key"
    bad.write_text("not a key\n")
    s = isolated_services("enc_bad", mutate=with_key(bad))
    r = subprocess.run([entry_point("elf-api"), "-c", str(s.config_path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and f"elf: {bad} holds no encryption key" in r.stderr, r.stderr[-2000:]


def test_no_column_of_the_stored_rows_holds_high_content(source):
    assert bundle(source, "private").status_code == 200  # a kept bundle that quotes it is stored too
    stored = raw_rows(source, TENANT)
    assert stored["acb_events"] and stored["acb_chunks"] and stored["acb_decisions"] and stored["acb_tasks"]
    assert stored["acb_artifacts"] and stored["acb_bundles"]
    for table, text in stored.items():
        assert WORD not in text.lower(), f"{table} holds the high content in plain text"
        assert "quartz" not in text.lower(), table  # nor a lexeme of it in a tsvector
    assert "ferry" in stored["acb_events"]  # what is not high stays as it was


def test_a_private_bundle_quotes_it_and_a_public_one_never_does(source):
    private = bundle_text(source, "private")
    assert SENTENCE in private and DECISION in private and TASK in private
    public = bundle_text(source, "public")
    assert WORD not in public.lower() and "quartz" not in public.lower()
    assert "public ferry" in public


def test_the_ledger_and_the_artifact_read_it_in_plain_text(source):
    r = decisions(source)
    assert r.status_code == 200, r.text
    [d] = [d for d in r.json()["decisions"] if d["decision_id"] == source.ids["decision"]["decision_id"]]
    assert d["decision"] == DECISION and d["rationale"] == [RATIONALE]
    art = source.ids["tool"]["artifact_id"]
    r = requests.get(f"{source.public}/api/v1/artifacts/{art}", timeout=60, params={
        "tenant_id": TENANT, "project_id": PROJECT, "agent_id": AGENT, "channel": "private"})
    assert r.status_code == 200, r.text
    assert r.json()["text"] == BIG_OUTPUT


def test_high_content_is_not_full_text_searchable(source):
    """The documented deviation: its tsvector sees one ciphertext word, so no query term matches it."""
    r = decisions(source, q="marmalade invoices")
    assert r.status_code == 200, r.text
    assert r.json()["decisions"] == []


def test_a_text_that_reads_as_ciphertext_is_refused_on_write(source):
    r = requests.post(source.public + "/api/v1/events", timeout=60, json={
        "tenant_id": TENANT, "project_id": PROJECT, "session_id": SESSION, "agent_id": AGENT, "kind": "message",
        "channel": "private", "actor": {"type": "agent", "id": AGENT},
        "content": {"text": "Look at elfencv1" + "ab" * 40}})
    assert r.status_code == 400 and r.json()["fields"] == ["$.content.text"], r.text


def test_rebuilt_chunks_stay_encrypted_and_readable(source):
    done = manage(source, "acb_rebuild_chunks", "--tenant", TENANT)
    assert done.returncode == 0, done.stderr
    assert WORD not in raw_rows(source, TENANT)["acb_chunks"].lower()
    assert SENTENCE in bundle_text(source, "private")


def test_an_export_reads_back_with_the_same_key_and_is_refused_with_another(source, isolated_services_module,
                                                                            tmp_path):
    path = tmp_path / "t-enc.jsonl"
    done = manage(source, "export_tenant", "--tenant", TENANT, "--out", str(path))
    assert done.returncode == 0, done.stderr
    assert WORD not in path.read_text().lower()  # the file carries the ciphertext as stored

    other_key = tmp_path / "other.key"
    other = isolated_services_module("enc_other", mutate=with_key(other_key))
    refused = manage(other, "import_tenant", "--in", str(path))
    assert refused.returncode != 0
    assert "encrypted with key id" in refused.stderr and "key file" in refused.stderr, refused.stderr
    renamed = manage(other, "import_tenant", "--in", str(path), "--tenant", "t-enc-renamed")
    assert renamed.returncode != 0 and "another key" in renamed.stderr, renamed.stderr

    same = isolated_services_module("enc_same")  # the default key file, as the source
    renamed = isolated_services_module("enc_renamed")
    for svc, tenant in ((same, TENANT), (renamed, "t-enc-renamed")):
        done = manage(svc, "import_tenant", "--in", str(path), "--tenant", tenant)
        assert done.returncode == 0, done.stderr
        svc.start_api()  # a renamed tenant's rows were sealed again under its name
        assert SENTENCE in bundle_text(svc, "private", tenant) and TASK in bundle_text(svc, "private", tenant)
        r = decisions(svc, tenant)
        assert r.status_code == 200 and [d["decision"] for d in r.json()["decisions"]] == [DECISION], r.text
        assert WORD not in raw_rows(svc, tenant)["acb_chunks"].lower()
    renamed.stop()

    # the same database read by a service holding another key: a clear error, never garbage
    same.api.stop()
    data = tomllib.loads(same.config_path.read_text())
    with_key(other_key)(data)
    same.config_path.write_text(dumps(data))
    same.start_api()
    for r in (decisions(same), bundle(same, "private")):
        assert r.status_code == 503, r.text
        assert r.json()["error_code"] == "ENCRYPTION_KEY_MISMATCH" and "key file" in r.json()["message"], r.text
    assert "public ferry" in bundle_text(same, "public")  # what is not high still reads


# --- the envelope --------------------------------------------------------------------------------------------


def test_the_envelope_opens_only_with_its_key_its_row_and_unchanged():
    c = Cipher(os.urandom(32))
    ad = aad("acb_chunks", "text", "t1", "chk_1")
    sealed = c.seal(SENTENCE, ad)
    assert sealed.startswith("elfencv1" + c.key_id) and sealed.isalnum() and WORD not in sealed.lower()
    assert c.open(sealed, ad) == SENTENCE
    assert c.seal(SENTENCE, ad) != sealed  # a fresh nonce every time
    with pytest.raises(SealBroken):
        c.open(sealed, aad("acb_chunks", "text", "t1", "chk_2"))  # another row
    with pytest.raises(SealBroken):
        c.open(sealed, aad("acb_chunks", "text", "t2", "chk_1"))  # another tenant
    flipped = sealed[:-1] + ("0" if sealed[-1] != "0" else "1")
    with pytest.raises(SealBroken):
        c.open(flipped, ad)
    with pytest.raises(KeyMismatch) as exc:
        Cipher(os.urandom(32)).open(sealed, ad)
    assert exc.value.status == 503 and c.key_id in exc.value.message
    blob = c.seal_bytes(BIG_OUTPUT.encode(), ad)
    assert c.open_bytes(blob, ad) == BIG_OUTPUT.encode()
    with pytest.raises(SealBroken):
        c.open_bytes(blob[:-1] + bytes([blob[-1] ^ 1]), ad)


def test_a_key_file_is_created_once_and_a_broken_one_is_refused(tmp_path):
    path = tmp_path / "sub" / "event_log_key"
    key = load_or_create_key(path)
    assert load_or_create_key(path) == key and oct(path.stat().st_mode & 0o777) == "0o600"
    bad = tmp_path / "bad_key"
    bad.write_text("not a key\n")
    with pytest.raises(KeyFileError, match="holds no encryption key"):
        load_or_create_key(bad)


@pytest.mark.django_db
def test_the_admin_opens_it_for_superusers_only(admin_client, client, test_stack):
    from django.contrib.auth.models import Permission, User

    from acb.models import AcbBundle
    from acb.selectors import View
    from acb.services.bundle import build
    from acb.services.event_log import Writer, record_event

    port = test_stack.service.admin_bind.rsplit(":", 1)[1]
    writer = Writer(f"t-encadm-{uuid.uuid4().hex[:8]}", "p1", "s1", "agent-a")
    e = record_event(writer=writer, channel="private", actor_type="human", actor_id="user", kind="message",
                     sensitivity="high", tags=[], content={"text": SENTENCE}, refs=[])
    kept = build(view=View(writer.tenant_id, writer.project_id, writer.session_id, "agent-b", "private"), intent=None,
                 query_text=None, max_tokens=4000)
    assert SENTENCE in str(kept) and "encrypted" in AcbBundle.objects.filter(pk=kept["acb_id"]).values_list(
        "body", flat=True)[0]  # the kept body quotes it, so it is sealed too
    pages = [
        f"/admin/context/acbevent/{e.event.event_id}/change/",
        f"/admin/context/acbbundle/{kept['acb_id']}/change/",
    ]
    for page in pages:
        shown = admin_client.get(page, SERVER_PORT=port)
        assert shown.status_code == 200 and SENTENCE in shown.content.decode(), page
    staff = User.objects.create_user(f"staff-{uuid.uuid4().hex[:6]}", password="pw-12345678", is_staff=True)
    staff.user_permissions.add(
        *Permission.objects.filter(content_type__app_label="context", codename__startswith="view_")
    )
    client.force_login(staff)
    for page in pages:
        hidden = client.get(page, SERVER_PORT=port)
        assert hidden.status_code == 200, hidden.status_code
        assert SENTENCE not in hidden.content.decode() and "[encrypted: high sensitivity]" in hidden.content.decode()
    listing = client.get(f"/admin/context/acbevent/?tenant_id={writer.tenant_id}", SERVER_PORT=port).content.decode()
    assert "Marmalade" not in listing and "[encrypted: high sensitivity]" in listing
