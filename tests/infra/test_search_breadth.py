"""The dense leg's HNSW search breadth (elf_infra.index.search_breadth): Qdrant's default below 250k points in the
collection, then wider in steps, with the float rescoring of a quantized collection; and recall_batch sends it
with each dense request (never the BM25 one)."""

from __future__ import annotations

import json

import pytest
from qdrant_client import QdrantClient

from elf_infra.index import bm25, search_breadth
from elf_infra.index.hybrid import recall_batch
from elf_infra.qdrant_server.launcher import EmbeddedQdrant
from tests.qdrant_fixtures import client_for, create_collection, make_point, qdrant_server  # noqa: F401
from tests.recording_proxy import RecordingProxy


@pytest.mark.parametrize(("points", "ef"), [(0, None), (100_000, None), (249_999, None), (250_000, 200),
                                            (499_999, 200), (500_000, 400), (1_000_000, 400),
                                            (5_000_000, 400)])
def test_ef_steps_with_the_collections_size(points: int, ef: int | None) -> None:
    assert search_breadth.hnsw_ef_for(points) == ef


def test_the_dense_requests_carry_the_collections_ef(qdrant_server: EmbeddedQdrant, monkeypatch) -> None:  # noqa: F811
    client = client_for(qdrant_server)
    create_collection(client)
    sparse = bm25.embed_document("the build cache lives on the second disk")
    client.upsert("c", points=[make_point(i, [1.0, float(i), 0.5, 0.0], {"tenant_id": "t1"},
                                          (sparse.indices, sparse.values)) for i in range(1, 6)], wait=True)
    search_breadth.forget()
    small = search_breadth.dense_params(client, "c")
    assert small.hnsw_ef is None and small.quantization.rescore is True  # 5 points: Qdrant's default ef
    monkeypatch.setattr(search_breadth, "STEPS", ((3, None),))  # as if 5 points were a large collection
    search_breadth.forget()
    params = search_breadth.dense_params(client, "c")
    assert params.hnsw_ef == search_breadth.WIDEST
    proxy = RecordingProxy(qdrant_server.url).start()
    try:
        through = QdrantClient(url=proxy.url, check_compatibility=False)
        found = recall_batch(through, "c", [1.0, 1.0, 0.5, 0.0], bm25.embed_query("build cache"), None, 3,
                             with_payload=False, dense_params=params)
        [batch] = [json.loads(e.body) for e in proxy.recorded() if e.target.endswith("/points/query/batch")]
    finally:
        proxy.stop()
        search_breadth.forget()
    dense, lexical = batch["searches"]
    assert dense["using"] == "dense" and dense["params"]["hnsw_ef"] == search_breadth.WIDEST
    assert dense["params"]["quantization"]["rescore"] is True
    assert lexical["using"] == "bm25" and "hnsw_ef" not in (lexical.get("params") or {})
    assert "quantization" not in (lexical.get("params") or {})
    assert len(found.dense) == 3 and found.bm25
