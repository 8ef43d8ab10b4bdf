"""What elf-api does before a worker answers its first request, so that no request pays for it.

Measured on the first quick_find of a new worker (2026-11-28, 100k notes): 690 ms in-process and 450-700 ms in
elf-api, against about 25 ms for the next ones. Django imports a URLconf, and with it every view module, on the
first request it routes (337 ms); the English gate loads its language model on its first text (about 500 ms);
the first QdrantClient imports httpx's transport stack (httpcore, about 80 ms) and the index handle then checks
its collection (GET).

- Before the fork (`load_request_path`, called by the master once the app is preloaded): the imports and the
  language model, so every worker shares them and `gc.freeze` (tuning.freeze_heap) keeps them out of its
  collections. The language model is read-only numpy arrays, safe to share across the fork.
- After the fork (`warm_worker`, gunicorn's `post_worker_init`): the local model (`warm_local_model`) and
  this process's index handles, whose clients and checks are per process. Qdrant down at that moment is logged
  and left to the first request, which ensures the collection as it always has.
"""

from __future__ import annotations

import logging

log = logging.getLogger("elf.api")


def load_request_path() -> None:
    """Import both listeners' URLconfs (and so every view) and qdrant-client's HTTP transport, and load the
    English gate's language model, in the master."""
    from django.urls import get_resolver
    from qdrant_client import QdrantClient

    from elf_domain.english_gate import identify_language
    from elf_kernel.listener import ADMIN_URLCONF, PUBLIC_URLCONF
    from elf_kernel.runtime import get_config

    for urlconf in (PUBLIC_URLCONF, ADMIN_URLCONF):
        get_resolver(urlconf).url_patterns  # noqa: B018 - the property imports the URLconf
    QdrantClient(url=get_config().storage.qdrant.url, check_compatibility=False).close()  # imports httpcore; no request
    identify_language("The language model is loaded once, before the workers fork.")


def warm_worker(worker) -> None:
    """gunicorn's post_worker_init: the local model, then the notes (and documents) index handles, checked."""
    warm_local_model(worker)
    warm_index_handles()


def warm_local_model(_worker) -> None:
    """Load the in-process embedding model and run it once in a new gunicorn worker (the ``post_worker_init``
    hook), when a local provider uses it: otherwise the first request each worker answers pays for loading
    it (about a second; the model cannot be loaded before the fork, its thread pool would not survive). The
    session for batch calls too, when they get threads of their own."""
    from elf_config.rules import LOCAL_PROVIDER
    from elf_infra.providers import local_embedder
    from elf_infra.providers.factory import local_model_id
    from elf_kernel.runtime import get_config

    cfg = get_config()
    p = cfg.providers
    if LOCAL_PROVIDER in (p.embedding.provider_id, p.rerank.provider_id):
        model = local_embedder.shared_model(local_model_id(cfg))
        model.embed(["The model is loaded before the first request."])
        model.embed([f"Batch warm-up text {i}." for i in range(local_embedder.BATCH_MIN_TEXTS)])


def warm_index_handles() -> None:
    """Create this process's index handles and check their collections (one GET each), as a search would."""
    from docs_ext.indexing.index import docs_index
    from elf_kernel.runtime import get_config
    from memory.indexing.index import notes_index

    cfg = get_config()
    handles = [notes_index(cfg).handle] + ([docs_index(cfg).handle] if cfg.docs_enabled else [])
    for handle in handles:
        try:
            handle.ensure_once()
        except Exception as exc:  # Qdrant not reachable yet: the first request ensures it, as without this
            log.warning("elf-api: Qdrant collection %s not checked before the first request: %s",
                        handle.collection, exc)
