"""import_tenant through COPY (issue 35): what the COPY path could newly get wrong, on a real database.

Each kind streams into its table as COPY text, so a value COPY reads specially (a tab, a newline, a backslash,
a field that is exactly ``\\N``, an empty string) must come back as it was, and a vector byte for byte. A clash
or a bad value that only shows after earlier kinds were already copied must still leave nothing written, and
the re-index (one INSERT ... SELECT) queues exactly the active notes. The whole round trip of every kind,
shared predicates and deferred columns included, is tests/ops/test_export_import.py."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import models

from tests.indexing_helpers import qdrant
from tests.notes_helpers import rows
from tests.portability_helpers import manage

SOURCE = "copy-src"
TRICKY = (
    "tab\there, newline\nthere, a backslash \\ and \\n spelled, quotes \" ' and unicode: café ☕",
    "\\N",  # exactly COPY's NULL marker: a string, not NULL
    "",
    "trailing backslash \\",
    "carriage\rreturn",
)


def vector(seed: int, dim: int) -> str:
    """A vector as pgvector spells it (its float4 shortest form), so the export must repeat it byte for byte."""
    values = np.asarray([((seed * 7919 + i * 104729) % 2001 - 1000) / 1021 for i in range(dim)], dtype=np.float32)
    return "[" + ",".join(str(v) if v != 0 else "0" for v in values) + "]"


def note_records(i: int, text: str, *, tenant: str, dim: int, status: str = "active", ids: dict | None = None
                 ) -> list[tuple[str, dict]]:
    ids = ids or {name: str(uuid.uuid4()) for name in ("note", "chunk", "version")}
    ts = f"2026-01-0{1 + i % 9}T10:00:00.{i:06d}+00:00"
    note = {"note_id": ids["note"], "tenant_id": tenant, "project_id": "p1", "agent_id": "a1",
            "scope": "agent_private", "type": "fact", "key": text if i % 2 else None, "text": text or "(empty)",
            "importance": 0.5, "confidence": 0.9, "status": status, "created_at": ts, "updated_at": ts,
            "expires_at": None, "embedding_version": "v-test", "context": text,
            "source_ref": {"note": text, "nested": {"list": [1, 2.5, None, True, text]}}, "hit_count": 3,
            "last_hit_at": None, "observed_at": ts}
    snapshot = {k: v for k, v in note.items() if k not in ("hit_count", "last_hit_at")}
    return [
        ("memory_notes", note),
        ("memory_note_versions", {"version_id": ids["version"], "note_id": ids["note"], "op": "ADD",
                                  "prev_snapshot": None, "new_snapshot": snapshot, "reason": text or "add_note",
                                  "actor": "agent:a1", "ts": ts}),
        ("memory_note_chunks", {"chunk_id": ids["chunk"], "note_id": ids["note"], "chunk_index": 0,
                                "start_offset": 0, "end_offset": len(note["text"].encode()), "text": note["text"],
                                "embedding_version": "v-test", "created_at": ts}),
        ("note_chunk_embeddings", {"chunk_id": ids["chunk"], "embedding_version": "v-test", "embedding_dim": dim,
                                   "vec": vector(i, dim), "created_at": ts}),
        ("note_embeddings", {"note_id": ids["note"], "embedding_version": "v-test", "embedding_dim": dim,
                             "vec": vector(i + 100, dim), "created_at": ts}),
    ]


def write_file(path: Path, records: list[tuple[str, dict]], *, tenant: str, dim: int, schema: int,
               trailer: bool = True) -> Path:
    order = ("memory_notes", "memory_note_versions", "memory_note_chunks", "note_chunk_embeddings",
             "note_embeddings")
    records = sorted(records, key=lambda r: order.index(r[0]))
    counts: dict[str, int] = {}
    for kind, _ in records:
        counts[kind] = counts.get(kind, 0) + 1
    header = {"kind": "elf_export", "format": "elf_export/v1", "tenant_id": tenant, "project_id": None,
              "with_vectors": True, "schema_version": schema, "embedding_version": "v-test", "vector_dim": dim}
    lines = [header, *({"kind": kind, "row": row} for kind, row in records)]
    if trailer:
        lines.append({"kind": "elf_export_end", "counts": counts})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def counts_of(svc) -> tuple:
    """Rows in every table the files here write, and the outbox."""
    return rows(svc, "SELECT (SELECT count(*) FROM memory_notes), (SELECT count(*) FROM memory_note_versions), "
                     "(SELECT count(*) FROM memory_note_chunks), (SELECT count(*) FROM note_chunk_embeddings), "
                     "(SELECT count(*) FROM note_embeddings), (SELECT count(*) FROM indexing_outbox)")[0]


@pytest.fixture(scope="module")
def target(isolated_services_module):
    svc = isolated_services_module("bulk_import")  # import_tenant sets its schema up
    svc.dim = svc.cfg.storage.qdrant.vector_dim
    return svc


@pytest.fixture(scope="module")
def imported(target, tmp_path_factory):
    """TRICKY notes (one deprecated) imported from a file of SOURCE under the name "copy-dst"; the records."""
    folder = tmp_path_factory.mktemp("bulk")
    records = [r for i, text in enumerate(TRICKY)
               for r in note_records(i, text, tenant=SOURCE, dim=target.dim,
                                     status="deprecated" if i == 2 else "active")]
    path = write_file(folder / "src.jsonl", records, tenant=SOURCE, dim=target.dim, schema=8)
    done = manage(target, "import_tenant", "--in", str(path), "--tenant", "copy-dst")
    assert done.returncode == 0, done.stderr
    target.report = json.loads(done.stdout)
    target.folder, target.records, target.path = folder, records, path
    return target


def test_every_value_and_vector_comes_back_as_it_was_under_the_new_name(imported):
    assert imported.report["reindex"] == {"notes": len(TRICKY) - 1, "docs": 0}  # the deprecated note is not
    out = imported.folder / "dst.jsonl"
    done = manage(imported, "export_tenant", "--tenant", "copy-dst", "--with-vectors", "--out", str(out))
    assert done.returncode == 0, done.stderr
    exported = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:-1]]
    by_key: dict[tuple, dict] = {}
    for record in exported:
        row = record["row"]
        key = next(row[k] for k in ("version_id", "chunk_id", "note_id") if k in row)
        by_key[(record["kind"], key)] = row
    expected = json.loads(json.dumps(imported.records).replace(f'"{SOURCE}"', '"copy-dst"'))
    for kind, row in expected:
        key = next(row[k] for k in ("version_id", "chunk_id", "note_id") if k in row)
        got = by_key[(kind, key)]
        for column, value in row.items():
            if column.endswith("_at") or column == "ts":  # timestamps: same instant, Postgres' spelling
                assert (got[column] is None) == (value is None), (kind, column)
                continue
            assert got[column] == value, (kind, column, got[column], value)
    # The vectors' text, byte for byte, in the exported file as in the imported one.
    vectors_in = sorted(r["vec"] for k, r in imported.records if "vec" in r)
    vectors_out = sorted(r["row"]["vec"] for r in exported if "vec" in r["row"])
    assert vectors_in == vectors_out
    # Exactly the active notes are queued, once each.
    queued = rows(imported, "SELECT n.status, count(*), count(DISTINCT o.outbox_id) FROM indexing_outbox o "
                            "JOIN memory_notes n USING (note_id) WHERE n.tenant_id = 'copy-dst' GROUP BY 1")
    assert queued == [("active", len(TRICKY) - 1, len(TRICKY) - 1)]
    # "\N" and "" came back as strings: COPY's NULL marker and an empty field are not NULL.
    keys = dict(rows(imported, "SELECT text, key FROM memory_notes WHERE tenant_id = 'copy-dst'"))
    assert keys["\\N"] == "\\N" and keys["(empty)"] is None  # odd notes have their text as key, even ones NULL
    contexts = rows(imported, "SELECT context FROM memory_notes WHERE tenant_id = 'copy-dst' AND key IS NULL")
    assert sorted(contexts) == sorted([("",), (TRICKY[0],), (TRICKY[4],)])


def test_a_clash_in_a_later_kind_refuses_with_nothing_written(imported):
    """New notes whose chunk reuses an imported chunk's id: memory_notes and the versions are already copied
    when memory_note_chunks clashes; the rollback takes them with it."""
    before = counts_of(imported)
    taken = next(row["chunk_id"] for kind, row in imported.records if kind == "memory_note_chunks")
    fresh = note_records(0, "a new note", tenant="late", dim=imported.dim)
    fresh += note_records(1, "another note", tenant="late", dim=imported.dim,
                          ids={"note": str(uuid.uuid4()), "chunk": taken, "version": str(uuid.uuid4())})
    path = write_file(imported.folder / "late.jsonl", fresh, tenant="late", dim=imported.dim, schema=8)
    done = manage(imported, "import_tenant", "--in", str(path))
    assert done.returncode != 0
    assert "import refused, nothing was written: memory_note_chunks: rows with the ids of the file are already" \
        in done.stderr and taken in done.stderr
    assert counts_of(imported) == before

    again = manage(imported, "import_tenant", "--in", str(imported.path), "--tenant", "copy-again")
    assert again.returncode != 0 and "memory_notes: rows with the ids of the file are already" in again.stderr
    assert counts_of(imported) == before


def test_a_cut_file_or_a_value_the_table_refuses_writes_nothing(imported):
    before = counts_of(imported)
    records = note_records(0, "cut short", tenant="cut", dim=imported.dim)
    cut = write_file(imported.folder / "cut.jsonl", records, tenant="cut", dim=imported.dim, schema=8, trailer=False)
    done = manage(imported, "import_tenant", "--in", str(cut))
    assert done.returncode != 0 and "the file is incomplete" in done.stderr
    assert counts_of(imported) == before

    bad = note_records(0, "a vector one number short", tenant="bad", dim=imported.dim)
    bad[3][1]["vec"] = vector(0, imported.dim - 1)
    path = write_file(imported.folder / "bad.jsonl", bad, tenant="bad", dim=imported.dim, schema=8)
    done = manage(imported, "import_tenant", "--in", str(path))
    assert done.returncode != 0 and "note_chunk_embeddings:" in done.stderr, done.stderr
    assert counts_of(imported) == before


def test_index_now_upserts_the_points_from_the_imported_vectors_and_queues_only_the_rest(imported):
    """--index-now: the notes with vectors get their points from this process once the import commits (the same
    points rebuild_qdrant makes); a note whose chunk has no vector of the configured version goes to the worker."""
    version = imported.cfg.embedding_version
    records = []
    for i, text in enumerate(("The ferry leaves at nine.", "The billing service listens on port 8443.",
                              "Alice leads the platform team.")):
        for kind, row in note_records(i, text, tenant="indexed", dim=imported.dim):
            if "embedding_version" in row and kind != "memory_notes":
                row["embedding_version"] = version
            if not (i == 2 and kind == "note_chunk_embeddings"):  # the last note's chunk comes without a vector
                records.append((kind, row))
    path = write_file(imported.folder / "indexed.jsonl", records, tenant="indexed", dim=imported.dim, schema=8)
    done = manage(imported, "import_tenant", "--in", str(path), "--index-now")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["indexed"] == {"rebuilt_count": 2, "missing_vector_count": 1, "error_count": 0}
    assert report["reindex"] == {"notes": 1, "docs": 0}
    without = next(row["note_id"] for kind, row in records
                   if kind == "memory_notes" and row["text"].startswith("Alice"))
    assert rows(imported, "SELECT o.note_id::text FROM indexing_outbox o JOIN memory_notes n USING (note_id) "
                          "WHERE n.tenant_id = 'indexed'") == [(without,)]
    client = qdrant(imported)
    try:
        points, _ = client.scroll(imported.cfg.storage.qdrant.collection, limit=10, with_vectors=True,
                                  scroll_filter=models.Filter(must=[models.FieldCondition(
                                      key="tenant_id", match=models.MatchValue(value="indexed"))]))
    finally:
        client.close()
    vectors = {row["chunk_id"]: row["vec"] for kind, row in records if kind == "note_chunk_embeddings"}
    assert {str(p.id) for p in points} == set(vectors)
    for p in points:
        stored = np.asarray(json.loads(vectors[str(p.id)]))
        assert p.vector["dense"] == pytest.approx(stored / np.linalg.norm(stored), abs=1e-6)  # cosine: normalised
        assert p.payload["embedding_version"] == version and p.payload["tenant_id"] == "indexed"
