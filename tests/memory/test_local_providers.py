"""Local (in-process, offline) providers: ONNX MiniLM embedder, embed+overlap rerank, rule extractor. No Django."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from elf_config import load_config
from elf_config.rules import LOCAL_EMBEDDING_FLOAT32, LOCAL_EMBEDDING_MODELS, LOCAL_EMBEDDING_QINT8
from elf_infra.providers import factory, local_embedder
from elf_infra.providers.local_embedder import EMBEDDING_DIM, MAX_TOKENS, LocalEmbedder
from elf_infra.providers.local_extractor import LocalExtractorProvider
from elf_infra.providers.local_rerank import LocalRerankProvider
from elf_infra.providers.tokenizer import get_tokenizer
from tests.conftest import REPO

EATING_FOOD = "A man is eating food."
EATING_BREAD = "A man is eating a piece of bread."


@pytest.fixture(scope="module", params=LOCAL_EMBEDDING_MODELS)
def embedder(request) -> LocalEmbedder:
    return LocalEmbedder(request.param)


def _vectors(embedder: LocalEmbedder, texts: list[str]) -> np.ndarray:
    return np.asarray(embedder.embed(texts))


def _long_text(words: int, tail: str = "") -> str:
    base = "the service writes each note to postgres and then indexes every chunk in qdrant for search"
    vocab = base.split()
    return " ".join(vocab[i % len(vocab)] for i in range(words)) + tail


# --- embedder ---------------------------------------------------------------------------------------------


def test_vectors_have_384_dims_and_unit_norm(embedder):
    vecs = _vectors(embedder, [EATING_FOOD, "", "Deploys happen on Tuesdays."])
    assert vecs.shape == (3, EMBEDDING_DIM) == (3, 384)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert all(type(x) is float for x in embedder.embed([EATING_FOOD])[0])


def test_embeddings_are_deterministic(embedder):
    assert embedder.embed([EATING_FOOD, EATING_BREAD]) == embedder.embed([EATING_FOOD, EATING_BREAD])


def test_standard_pair_scores_like_the_published_model(embedder):
    food, bread, unrelated = _vectors(embedder, [EATING_FOOD, EATING_BREAD, "The stock market fell sharply on Monday."])
    assert 0.70 <= float(food @ bread) <= 0.80  # published fp32 model: about 0.75
    assert float(food @ unrelated) < 0.3


def test_batch_and_single_give_the_same_vectors(embedder):
    texts = [EATING_FOOD, _long_text(120), "ok", EATING_BREAD, "Prefer tabs.", _long_text(40)] * 4
    batch = _vectors(embedder, texts)
    single = np.stack([_vectors(embedder, [t])[0] for t in texts])
    assert np.abs(batch - single).max() < 1e-5


def test_the_int8_product_model_is_close_to_the_float32_one_and_not_the_same():
    texts = [EATING_FOOD, EATING_BREAD, "Deploys happen on Tuesdays.", _long_text(60), "Prefer tabs."]
    qint8 = _vectors(LocalEmbedder(LOCAL_EMBEDDING_QINT8), texts)
    float32 = _vectors(LocalEmbedder(LOCAL_EMBEDDING_FLOAT32), texts)
    cosine = (qint8 * float32).sum(axis=1)
    assert cosine.min() > 0.97  # the same model, quantized (0.983 at the least over 300 LoCoMo sentences)
    assert np.abs(qint8 - float32).max() > 1e-3  # ... and really the int8 one: its own embedding_version


def test_the_int8_product_model_runs_each_text_alone_so_a_batch_gives_the_single_vectors():
    model = local_embedder.MiniLMOnnxModel(intra_op_num_threads=2, sub_batch_size=16, batch_threads=2,
                                           path=local_embedder.model_file(LOCAL_EMBEDDING_QINT8), per_text=True)
    texts = [f"Note {i}: the deploy window moved to Friday night for service {i}." * (1 + i % 3) for i in range(12)]
    assert model.session_for(len(texts)) is model.session_for(1)
    assert model.session_for(1).get_session_options().intra_op_num_threads == 1
    batch = model.embed(texts)  # two texts at a time, each alone: padding or neighbours would move its scale
    single = np.stack([model.embed([t])[0] for t in texts])
    assert np.array_equal(batch, single)


def test_the_int8_product_model_is_built_once_and_reused(tmp_path, monkeypatch):
    from elf_infra.providers import quantized_model

    monkeypatch.setenv(quantized_model.CACHE_ENV, str(tmp_path / "models"))
    builds = []
    real_build = quantized_model._build
    monkeypatch.setattr(quantized_model, "_build", lambda target: (builds.append(target), real_build(target)))
    first = quantized_model.quantized_model_path()
    assert first.parent == tmp_path / "models" and first.is_file() and len(builds) == 1
    assert quantized_model.quantized_model_path() == first and len(builds) == 1  # cached
    assert [p.name for p in first.parent.iterdir() if not p.name.startswith(".")] == [first.name]  # no leftovers
    with pytest.raises(ValueError, match="unknown local embedding model"):
        LocalEmbedder("all-MiniLM-L6-v2-fp16")


def test_a_batch_on_more_threads_gives_the_single_thread_vectors():
    model = local_embedder.MiniLMOnnxModel(intra_op_num_threads=1, sub_batch_size=16, batch_threads=2,
                                           path=local_embedder.model_file(LOCAL_EMBEDDING_FLOAT32))
    texts = [f"Note {i}: the deploy window moved to Friday night for service {i}." for i in range(12)]
    assert model.session_for(len(texts)) is not model.session_for(1)  # the batch runs on the two-thread session
    batch = model.embed(texts)
    single = np.stack([model.embed([t])[0] for t in texts])
    assert np.abs(batch - single).max() < 1e-5


def test_long_texts_truncate_at_256_tokens(embedder):
    tok = get_tokenizer()
    long_a = _long_text(400, " alpha beta gamma")
    long_b = _long_text(400, " completely different ending about weather")
    assert tok.count_tokens(long_a) > 2 * MAX_TOKENS
    a, b = _vectors(embedder, [long_a, long_b])
    assert np.linalg.norm(a) == pytest.approx(1.0, abs=1e-5)
    assert np.abs(a - b).max() < 1e-6  # only text beyond token 256 differs
    # ... but text between token 128 (the file's built-in limit) and 256 still counts.
    mid_a, mid_b = _long_text(150, " alpha beta gamma"), _long_text(150, " completely different ending")
    assert 128 < tok.count_tokens(mid_a) < MAX_TOKENS
    ma, mb = _vectors(embedder, [mid_a, mid_b])
    assert np.abs(ma - mb).max() > 1e-3


def test_empty_input_gives_no_vectors(embedder):
    assert embedder.embed([]) == []


def test_model_loads_once_per_process_even_under_concurrent_first_use(monkeypatch):
    loads = []

    class CountingModel(local_embedder.MiniLMOnnxModel):
        def __init__(self, **kwargs):
            loads.append(kwargs)
            super().__init__(**kwargs)

    monkeypatch.setattr(local_embedder, "MiniLMOnnxModel", CountingModel)
    monkeypatch.setattr(local_embedder, "_shared", {})
    barrier = threading.Barrier(4)
    seen = []

    def first_use():
        barrier.wait()
        seen.append(local_embedder.shared_model())

    threads = [threading.Thread(target=first_use) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(loads) == 1 and len(seen) == 4 and all(m is seen[0] for m in seen)
    assert loads[0]["intra_op_num_threads"] == local_embedder.INTRA_OP_NUM_THREADS >= 1

    # A forked child (another pid) does not reuse its parent's session.
    monkeypatch.setattr(local_embedder, "_shared", {local_embedder.LOCAL_EMBEDDING_MODEL: (os.getpid() + 1, seen[0])})
    assert local_embedder.shared_model() is not seen[0]
    assert len(loads) == 2


# --- tokenizer --------------------------------------------------------------------------------------------


def test_tokenizer_counts_tokens_and_gives_byte_spans():
    tok = get_tokenizer()
    text = "Café prices rose 12% in 2024 (東京)."
    spans = tok.token_byte_spans(text)
    assert len(spans) == tok.count_tokens(text)
    raw = text.encode("utf-8")
    pieces = [raw[s:e].decode("utf-8") for s, e in spans]
    assert pieces[:3] == ["Café", "prices", "rose"]
    assert "東" in pieces and all(p and p in text for p in pieces)
    assert spans == sorted(spans)
    assert tok.count_tokens(_long_text(400)) >= 400  # no 128/256 truncation when counting


# --- rerank -----------------------------------------------------------------------------------------------


def test_rerank_puts_the_relevant_doc_first(embedder):
    reranker = LocalRerankProvider("local-embed-overlap", embedder)
    docs = [
        "Alice enjoys hiking in the Alps.",
        "The team stores notes in Postgres with pgvector.",
        "We ship on Fridays.",
    ]
    scores = reranker.rerank("Which database holds the notes?", docs)
    assert len(scores) == 3
    assert scores[1] > scores[0] and scores[1] > scores[2]
    assert reranker.rerank("Which database holds the notes?", docs) == scores
    assert reranker.rerank("anything", []) == []


def test_rerank_lexical_overlap_breaks_near_ties(embedder):
    reranker = LocalRerankProvider("local-embed-overlap", embedder)
    docs = ["The build failed with error E4012.", "The build failed with error E7730."]
    scores = reranker.rerank("error E4012", docs)
    assert scores[0] > scores[1]


def test_rerank_overlap_is_stemmed(embedder):
    reranker = LocalRerankProvider("local-embed-overlap", embedder)
    docs = ["Caroline attended two support groups last spring.", "Caroline visited a pottery class last spring."]
    scores = reranker.rerank("When did Caroline go to the support group?", docs)
    assert scores[0] > scores[1]
    # "groups" and "group" are one term; stopwords ("when", "did", "the", "to") are not terms at all
    from elf_infra.providers.local_rerank import content_terms
    assert content_terms("support groups") == content_terms("the support group")


# --- extractor --------------------------------------------------------------------------------------------

CONVERSATION = [
    {
        "role": "user",
        "content": "Hi there! My name is Dana. I prefer dark mode in every editor.\n"
        "- Remember that the staging database runs on port 5433.",
    },
    {"role": "assistant", "content": "Got it. We decided to pin Python 3.11 for the service."},
    {"role": "tool", "content": "I prefer nothing; this is tool output."},
    {"role": "user", "content": "Never deploy on Fridays. Do you remember that I like tea?"},
]


def test_local_extractor_quotes_are_verbatim_substrings():
    extractor = LocalExtractorProvider("local-rules", max_notes=10, max_note_chars=240)
    notes = extractor.extract(CONVERSATION)["notes"]
    assert [n["type"] for n in notes] == ["profile", "preference", "fact", "decision", "constraint"]
    for note in notes:
        (evidence,) = note["evidence"]
        assert evidence["quote"] in CONVERSATION[evidence["message_index"]]["content"]
        assert set(note) == {
            "type",
            "key",
            "text",
            "importance",
            "confidence",
            "ttl_days",
            "structured",
            "scope_suggestion",
            "evidence",
            "reason",
        }
    fact = notes[2]
    assert fact["text"] == "Fact: the staging database runs on port 5433."
    assert fact["evidence"][0]["quote"] == "Remember that the staging database runs on port 5433."
    assert all(n["evidence"][0]["message_index"] != 2 for n in notes)  # tool output is not a statement


def test_local_extractor_ignores_chit_chat():
    extractor = LocalExtractorProvider("local-rules", max_notes=3, max_note_chars=240)
    chat = [
        {"role": "user", "content": "Hello! How are you today?"},
        {"role": "assistant", "content": "I'm doing well, thanks for asking. What can I help with?"},
        {"role": "user", "content": "Nothing much, just saying hi. lol"},
    ]
    assert extractor.extract(chat) == {"notes": []}


def test_local_extractor_skips_a_decision_under_a_doubting_lead_in():
    extractor = LocalExtractorProvider("local-rules", max_notes=3, max_note_chars=240)
    doubted = [{"role": "user", "content": "I don't think we'll use Kafka. Ask whether we decided to use Redis."}]
    assert extractor.extract(doubted) == {"notes": []}
    (note,) = extractor.extract([{"role": "user", "content": "Don't forget: we'll use Kafka."}])["notes"]
    assert note["text"] == "Decision: use Kafka."


def test_local_extractor_respects_limits_and_skips_credentials():
    extractor = LocalExtractorProvider("local-rules", max_notes=2, max_note_chars=40)
    messages = [
        {
            "role": "user",
            "content": "Remember that my password is hunter2. I prefer short answers. "
            "I prefer answers that cite sources and include runnable examples. "
            "My name is Dana. Never use emojis.",
        }
    ]
    notes = extractor.extract(messages)["notes"]
    assert [n["text"] for n in notes] == ["Profile: the user's name is Dana.", "Constraint: never use emojis."]


# --- factory ----------------------------------------------------------------------------------------------


def test_factory_builds_local_providers_from_the_example_config():
    cfg = load_config(REPO / "elf.toml.example")
    embedding = factory.build_embedding(cfg)
    assert isinstance(embedding, LocalEmbedder)
    assert (embedding.provider_id, embedding.model) == ("local", cfg.providers.embedding.model)
    assert factory.build_embedding(cfg) is embedding
    assert isinstance(factory.build_rerank(cfg), LocalRerankProvider)
    extractor = factory.build_extractor(cfg)
    assert isinstance(extractor, LocalExtractorProvider)
    assert extractor.max_notes == cfg.memory.max_notes_per_add_event
    assert cfg.embedding_version == f"local:{embedding.model}:{EMBEDDING_DIM}"


def test_the_local_reranker_embeds_with_the_local_embedding_model_else_the_default():
    import copy

    cfg = load_config(REPO / "elf.toml.example")
    float32 = copy.deepcopy(cfg)
    object.__setattr__(float32.providers.embedding, "model", LOCAL_EMBEDDING_FLOAT32)
    http = copy.deepcopy(cfg)
    object.__setattr__(http.providers.embedding, "provider_id", "openai")
    object.__setattr__(http.providers.embedding, "model", "text-embedding-3-small")
    used = {name: factory.build_rerank(c)._embedder.model for name, c in
            (("default", cfg), ("float32", float32), ("http", http))}
    # one model per process and one vector space with a local embedder; the default beside an HTTP one
    assert used == {"default": LOCAL_EMBEDDING_QINT8, "float32": LOCAL_EMBEDDING_FLOAT32, "http": LOCAL_EMBEDDING_QINT8}
