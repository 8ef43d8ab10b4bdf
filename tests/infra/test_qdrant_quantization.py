"""Scalar int8 quantization of the dense vector (storage.qdrant.dense_quantization): the embedded Qdrant server
creates, reports and searches a quantized collection, refuses the kinds it cannot serve, and a search that asks
for rescoring gets the float cosine back, where an unrescored one gets the int8 estimate."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import models

from elf_infra.index.hybrid import RESCORE, collection_quantization, ensure_hybrid_collection
from elf_infra.qdrant_server.launcher import EmbeddedQdrant
from tests.qdrant_fixtures import DIM, client_for, qdrant_server, raw_request, run_server  # noqa: F401


def test_a_collection_is_created_with_the_quantization_asked_for(qdrant_server: EmbeddedQdrant,  # noqa: F811
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    client = client_for(qdrant_server)
    ensure_hybrid_collection(client, "q", DIM, ["tenant_id"], quantization="int8")
    ensure_hybrid_collection(client, "f", DIM, ["tenant_id"], quantization="none")
    info = client.get_collection("q")
    scalar = info.config.params.vectors["dense"].quantization_config.scalar
    assert (scalar.type, scalar.quantile, scalar.always_ram) == (models.ScalarType.INT8, 0.99, True)
    assert collection_quantization(info) == "int8"
    assert collection_quantization(client.get_collection("f")) == "none"
    with caplog.at_level(logging.WARNING, logger="elf.index"):
        ensure_hybrid_collection(client, "f", DIM, ["tenant_id"], quantization="int8")  # kept as it is, and said
        ensure_hybrid_collection(client, "q", DIM, ["tenant_id"], quantization="int8")
    assert [r.getMessage() for r in caplog.records] == [
        "collection f stores its dense vectors as none, not int8 as storage.qdrant.dense_quantization says; it keeps "
        "working as it is, and a rebuild into a new collection applies the setting "
        "(docs/operations.md, \"Quantized dense vectors\")"]
    assert collection_quantization(client.get_collection("f")) == "none"
    client.upsert("q", points=[models.PointStruct(id=i, vector={"dense": [1.0, float(i), 0.5, 0.0]}, payload={})
                               for i in range(1, 6)], wait=True)
    hits = client.query_points("q", query=[1.0, 1.0, 0.5, 0.0], using="dense", limit=2,
                               search_params=models.SearchParams(quantization=RESCORE)).points
    assert [h.id for h in hits] == [1, 2]


@pytest.mark.parametrize(("quantization", "message"), [
    ({"product": {"compression": "x16"}}, "only scalar quantization"),
    ({"binary": {"always_ram": True}}, "only scalar quantization"),
    ({"scalar": {"type": "int4"}}, "scalar.type must be int8"),
    ({"scalar": {"type": "int8", "quantile": 0.2}}, "quantile must be a number in [0.5, 1]"),
])
def test_quantization_it_cannot_serve_is_refused(qdrant_server: EmbeddedQdrant, quantization: dict,  # noqa: F811
                                                 message: str) -> None:
    for body in ({"vectors": {"dense": {"size": DIM, "distance": "Cosine", "quantization_config": quantization}}},
                 {"vectors": {"dense": {"size": DIM, "distance": "Cosine"}}, "quantization_config": quantization}):
        status, answer = raw_request(qdrant_server.url, "PUT", "/collections/bad", body)
        assert status == 400 and message in answer["status"]["error"], answer
    assert client_for(qdrant_server).get_collections().collections == []


def test_rescoring_returns_the_float_cosine_of_an_optimized_int8_collection(tmp_path: Path) -> None:
    server = run_server(tmp_path, "--optimize-idle-seconds", "0.5", "--optimize-min-changes", "500")
    try:
        client = client_for(server)
        client.create_collection(
            "c",
            vectors_config={"dense": models.VectorParams(
                size=32, distance=models.Distance.COSINE, quantization_config=models.ScalarQuantization(
                    scalar=models.ScalarQuantizationConfig(type=models.ScalarType.INT8, always_ram=True)))},
            optimizers_config=models.OptimizersConfigDiff(indexing_threshold=100),  # KB: forces an HNSW build
        )
        vectors = np.random.default_rng(3).normal(size=(3000, 32))
        for lo in range(0, 3000, 1000):
            client.upsert("c", points=[models.PointStruct(id=i, vector={"dense": vectors[i].tolist()})
                                       for i in range(lo, lo + 1000)])
        deadline = time.monotonic() + 120
        while "optimization done" not in server.log_text():
            assert time.monotonic() < deadline, server.log_text()
            time.sleep(0.05)
        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        worst_rescored, worst_estimated = 0.0, 0.0
        for query in np.random.default_rng(4).normal(size=(20, 32)):
            cosine = unit @ (query / np.linalg.norm(query))
            rescored = client.query_points("c", query=query.tolist(), using="dense", limit=10,
                                           search_params=models.SearchParams(hnsw_ef=64, quantization=RESCORE)).points
            estimated = client.query_points("c", query=query.tolist(), using="dense", limit=10,
                                            search_params=models.SearchParams(hnsw_ef=64)).points
            worst_rescored = max(worst_rescored, *(abs(p.score - cosine[p.id]) for p in rescored))
            worst_estimated = max(worst_estimated, *(abs(p.score - cosine[p.id]) for p in estimated))
        assert worst_rescored < 1e-5  # the float vectors' cosine
        assert worst_estimated > 1e-4  # the HNSW walk read the int8 copy: the quantization is in effect
    finally:
        server.stop()
