"""Collections on disk: one qdrant-edge shard per collection, its meta file, and the
shard swap that installs a shard optimized elsewhere.

Layout under the data directory::

    collections/<name>/collection.json   REST config + payload indexes (written atomically)
    collections/<name>/shard/            the live EdgeShard
    collections/<name>/shard.optimizing/ a copy being optimized by a child process
    collections/<name>/shadow.ready      the copy has caught up and may replace `shard`
    collections/<name>/shard.old/        the live shard, moved aside during the swap
    collections/<name>/pending_changes.json  the optimizer's count of changes, saved at every flush
    collections/.deleted-*               collections being removed (see registry.py)

Locking, per collection: every shard call holds `_gate` shared; closing or swapping the shard holds it
exclusive. Writes also hold `_write_lock`, which orders them with each other and with the copy, the
catch-up and the swap of a shadow optimization (lock order: `_write_lock`, then `_gate`). qdrant-edge
serves concurrent reads and a write on one shard safely; the gate exists for close and swap.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

import qdrant_edge as qe

from . import config as cfg
from .errors import ApiError, collection_not_found, edge_error
from .filters import build_filter
from .rwlock import RWLock
from .term_stats import SCAN_PAGE, IdfStatsPolicy, Key, StatsWrite, TermStats

log = logging.getLogger(__name__)

META_FORMAT = "elf-qdrant-collection/v1"
META_FILE = "collection.json"
SHARD_DIR = "shard"
SHADOW_DIR = "shard.optimizing"
OLD_DIR = "shard.old"
READY_MARKER = "shadow.ready"
# The optimizer's count of points written or deleted since the last optimization, saved whenever the shard is
# flushed: it lives in memory, and a restart that lost it left a collection "green" with its writes unindexed
# until enough new writes came (900k of 1M points once, issue 35).
PENDING_FILE = "pending_changes.json"
T = TypeVar("T")


def _saved_pending(directory: Path) -> int:
    """The pending-change count the collection's last flush saved (0 when none was, or it is unreadable)."""
    try:
        return max(0, int(json.loads((directory / PENDING_FILE).read_text(encoding="utf-8"))["pending_changes"]))
    except (OSError, ValueError, KeyError, TypeError):
        return 0


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to `path` so that a crash leaves either the old or the new file, never a torn one."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _edge_call(fn: Callable[[], T]) -> T:
    try:
        return fn()
    except Exception as exc:  # qdrant-edge raises bare exceptions; map them once, here
        error = edge_error(exc)
        if error.status >= 500:
            log.error("qdrant-edge failure: %s", exc)
        raise error from exc


class Collection:
    """One collection: its live shard, REST-level meta, write accounting and shadow-optimization state."""

    def __init__(
        self, name: str, directory: Path, meta: dict[str, Any], shard: qe.EdgeShard, grey_after: int,
        idf_policy: IdfStatsPolicy | None = None,
    ) -> None:
        self.name = name
        self.directory = directory
        self.meta = meta
        self._shard = shard
        self._grey_after = grey_after
        self._gate = RWLock()
        self._write_lock = threading.Lock()
        self._closed = False
        self._op_seq = 0
        self._changes = 0  # points written or deleted since the last optimization
        self._last_write = time.monotonic()
        self._unflushed = False
        self._last_flush = time.monotonic()
        self._journal: list[Any] | None = None  # writes applied since the shadow copy was taken
        self._journal_points = 0  # points those writes changed
        self._shadow_baseline = 0
        self._shadow_idle = threading.Event()
        self._shadow_idle.set()
        self.optimizer_error: str | None = None
        sparse = meta["config"]["params"].get("sparse_vectors") or {}
        self.term_stats = TermStats([n for n, v in sparse.items() if v.get("modifier") == "idf"],
                                    idf_policy or IdfStatsPolicy())
        self._builder_lock = threading.Lock()
        self._builder: threading.Thread | None = None

    # --- paths ---------------------------------------------------------------------------------
    @property
    def shard_dir(self) -> Path:
        return self.directory / SHARD_DIR

    @property
    def shadow_dir(self) -> Path:
        return self.directory / SHADOW_DIR

    @property
    def _old_dir(self) -> Path:
        return self.directory / OLD_DIR

    @property
    def _ready_marker(self) -> Path:
        return self.directory / READY_MARKER

    # --- lifecycle -----------------------------------------------------------------------------
    @classmethod
    def create(cls, name: str, directory: Path, config: dict[str, Any], grey_after: int,
               idf_policy: IdfStatsPolicy | None = None) -> Collection:
        """Create the shard, then commit the collection by writing its meta file."""
        directory.mkdir(parents=True)
        shard = _edge_call(lambda: qe.EdgeShard.create(str(directory / SHARD_DIR), cfg.edge_config(config)))
        meta = {
            "format": META_FORMAT,
            "name": name,
            "created_at": datetime.now(UTC).isoformat(),
            "config": config,
            "payload_schema": {},
        }
        write_json_atomic(directory / META_FILE, meta)
        return cls(name, directory, meta, shard, grey_after, idf_policy)

    @classmethod
    def open(cls, directory: Path, grey_after: int, idf_policy: IdfStatsPolicy | None = None) -> Collection:
        """Load a collection: finish or undo an interrupted shard swap, load the shard, apply the meta's indexes."""
        meta = json.loads((directory / META_FILE).read_text(encoding="utf-8"))
        if meta.get("format") != META_FORMAT:
            raise RuntimeError(f"{directory / META_FILE}: unknown format {meta.get('format')!r}")
        shard_dir, old_dir = directory / SHARD_DIR, directory / OLD_DIR
        shadow_dir, ready = directory / SHADOW_DIR, directory / READY_MARKER
        if not shard_dir.exists() and old_dir.exists():
            # The swap stopped between its two renames: a caught-up shadow is newest, else the old shard.
            os.replace(shadow_dir if ready.exists() and shadow_dir.exists() else old_dir, shard_dir)
        ready.unlink(missing_ok=True)
        shutil.rmtree(shadow_dir, ignore_errors=True)
        shutil.rmtree(old_dir, ignore_errors=True)
        shard = qe.EdgeShard.load(str(shard_dir))
        coll = cls(meta["name"], directory, meta, shard, grey_after, idf_policy)
        coll._reconcile_indexes()
        coll._changes = _saved_pending(directory)
        return coll

    def _save_pending(self) -> None:
        write_json_atomic(self.directory / PENDING_FILE, {"pending_changes": self._changes})

    def _reconcile_indexes(self) -> None:
        wanted = self.meta["payload_schema"]
        present = set(self._shard.info().payload_schema)
        for field in present - set(wanted):
            self._shard.update(qe.UpdateOperation.delete_field_index(field))
        for field in set(wanted) - present:
            self._shard.update(qe.UpdateOperation.create_field_index(field, cfg.edge_index_schema(wanted[field])))

    def close(self, shadow_wait_s: float = 30.0) -> None:
        """Stop serving: wait for a running shadow optimization to stand down, then flush and close the shard."""
        with self._write_lock:
            self._closed = True
        self._shadow_idle.wait(shadow_wait_s)
        with self._write_lock, self._gate.exclusive():
            self._shard.flush()
            self._shard.close()
            self._save_pending()

    @property
    def closed(self) -> bool:
        return self._closed

    def _require_open(self) -> None:
        if self._closed:
            raise collection_not_found(self.name)

    # --- reads and writes ----------------------------------------------------------------------
    def read(self, fn: Callable[[qe.EdgeShard], T]) -> T:
        """Run `fn(shard)` for a read; many reads run at once."""
        with self._gate.shared():
            self._require_open()
            return _edge_call(lambda: fn(self._shard))

    def update(self, op: Any, changed_points: int, write: StatsWrite) -> int:
        """Apply one update operation, keeping the kept IDF corpora exact (`write` says which points it
        replaces, deletes and adds); return its operation id."""
        with self._write_lock, self._gate.shared():
            replaced = self._points_replaced(write)
            before = self._shard.info().points_count if write.filter is not None else 0
            op_id = self._apply(op, changed_points)
            if write.filter is not None:  # the optimizer counts the points a delete-by-filter removed
                self._changes += max(0, before - self._shard.info().points_count)
            if write.unknown:
                self.term_stats.forget_all()
            elif replaced is not None:
                self.term_stats.move(replaced, -1)
                self.term_stats.move(write.added, +1)
            return op_id

    def _points_replaced(self, write: StatsWrite) -> list[qe.Record] | None:
        """The stored points `write` replaces or deletes, with what the kept corpora read; None when no corpus
        is kept."""
        if not self.term_stats.tracking or write.unknown:
            return None
        fields, vectors = self.term_stats.fields()
        selector = qe.PayloadSelector.Include(fields)
        out: list[qe.Record] = []
        if write.ids:
            out = _edge_call(lambda: self._shard.retrieve(write.ids, with_payload=selector, with_vector=vectors))
        if write.filter is not None:
            out += self._scan(write.filter, selector, vectors)
        return out

    def _scan(self, flt: Any, selector: Any, vectors: list[str]) -> Iterator[qe.Record]:
        """The points `flt` admits, a scroll page at a time."""
        offset = None
        while True:
            request = qe.ScrollRequest(offset=offset, limit=SCAN_PAGE, filter=flt, with_payload=selector,
                                       with_vector=vectors)
            records, offset = _edge_call(lambda r=request: self._shard.scroll(r))
            yield from records
            time.sleep(0)  # hand the GIL to a waiting request thread between pages (SCAN_PAGE)
            if offset is None:
                return

    # --- IDF corpora (term_stats.py) -------------------------------------------------------------
    def query_body(self, body: Any) -> Any:
        """A REST query body with the kept IDF corpora applied; starts building the corpora it names."""
        out = self.term_stats.rewrite(body)
        if self.term_stats.wake.is_set():
            with self._builder_lock:
                if self._builder is None:
                    self._builder = threading.Thread(target=self._build_wanted, name=f"idf-{self.name}",
                                                     daemon=True)
                    self._builder.start()
        return out

    def _build_wanted(self) -> None:
        while True:
            with self._builder_lock:
                keys = self.term_stats.take_wanted()
                if not keys:
                    self._builder = None
                    return
            for key in keys:
                try:
                    with self._write_lock, self._gate.shared():
                        self._require_open()
                        self.term_stats.build(key, self._count_corpus, self._scan_corpus)
                except Exception:
                    log.exception("collection %s: counting the IDF corpus %s failed", self.name, key)

    @staticmethod
    def _corpus_filter(key: Key) -> Any:
        return build_filter({"must": [{"key": key[1], "match": {"value": key[2]}}]})

    def _count_corpus(self, key: Key) -> int:
        return _edge_call(lambda: self._shard.count(qe.CountRequest(exact=True, filter=self._corpus_filter(key))))

    def _scan_corpus(self, key: Key) -> Iterator[qe.Record]:
        return self._scan(self._corpus_filter(key), False, [key[0]])

    def _apply(self, op: Any, changed_points: int) -> int:
        self._require_open()
        _edge_call(lambda: self._shard.update(op))
        if self._journal is not None:
            self._journal.append(op)
            self._journal_points += changed_points
        self._op_seq += 1
        self._changes += changed_points
        self._last_write = time.monotonic()
        self._unflushed = True
        return self._op_seq

    def set_index(self, field: str, schema: str | dict[str, Any]) -> int:
        """Create (or replace) a payload index and persist it in the meta file."""
        with self._write_lock, self._gate.shared():
            if field in self.meta["payload_schema"]:
                self._apply(qe.UpdateOperation.delete_field_index(field), 0)
            op_id = self._apply(qe.UpdateOperation.create_field_index(field, cfg.edge_index_schema(schema)), 0)
            self._save_payload_schema({**self.meta["payload_schema"], field: schema})
            return op_id

    def drop_index(self, field: str) -> int:
        """Delete a payload index and remove it from the meta file."""
        with self._write_lock, self._gate.shared():
            if field not in self.meta["payload_schema"]:
                raise ApiError(404, f"Not found: payload index for field `{field}` doesn't exist!")
            op_id = self._apply(qe.UpdateOperation.delete_field_index(field), 0)
            self._save_payload_schema({f: s for f, s in self.meta["payload_schema"].items() if f != field})
            return op_id

    def _save_payload_schema(self, payload_schema: dict[str, Any]) -> None:
        # Replace, never mutate, the meta dict: GET /collections/{name} reads it without the write lock.
        meta = {**self.meta, "payload_schema": payload_schema}
        write_json_atomic(self.directory / META_FILE, meta)
        self.meta = meta

    def flush_if_due(self, now: float) -> None:
        """Flush segments to disk when writes are pending and the collection's flush interval has passed."""
        interval = self.meta["config"]["optimizer_config"]["flush_interval_sec"]
        with self._gate.shared():
            if self._closed or not self._unflushed or now - self._last_flush < interval:
                return
            self._unflushed = False
            self._last_flush = now
            _edge_call(self._shard.flush)
            self._save_pending()

    # --- state for the optimizer and GET /collections/{name} -----------------------------------
    @property
    def pending_changes(self) -> int:
        return self._changes

    @property
    def idle_seconds(self) -> float:
        return time.monotonic() - self._last_write

    @property
    def journal_points(self) -> int:
        """Points written since the running optimization's copy was taken (0 when none runs)."""
        return self._journal_points if self._journal is not None else 0

    @property
    def optimizing(self) -> bool:
        return not self._shadow_idle.is_set()

    @property
    def optimization_disabled(self) -> bool:
        return self.meta["config"]["optimizer_config"]["max_optimization_threads"] == 0

    def status(self) -> str:
        """Qdrant's collection status: red after a failed optimization (retried later), yellow while optimizing,
        grey while an optimization is due but not started, else green."""
        if self.optimizer_error:
            return "red"
        if self.optimizing:
            return "yellow"
        if self._changes >= self._grey_after and not self.optimization_disabled:
            return "grey"
        return "green"

    def info(self) -> dict[str, Any]:
        """The REST `CollectionInfo` body."""
        meta = self.meta
        shard_info = self.read(lambda s: s.info())
        points = {field: idx.points for field, idx in shard_info.payload_schema.items()}
        return {
            "status": self.status(),
            "optimizer_status": {"error": self.optimizer_error} if self.optimizer_error else "ok",
            "indexed_vectors_count": shard_info.indexed_vectors_count,
            "points_count": shard_info.points_count,
            "segments_count": shard_info.segments_count,
            "config": meta["config"],
            "payload_schema": cfg.render_payload_schema(meta["payload_schema"], points),
            "created_at": meta["created_at"],
        }

    # --- shadow optimization -------------------------------------------------------------------
    def begin_shadow(self) -> Path | None:
        """Copy the flushed shard to `shard.optimizing` and start journaling writes; None if closed."""
        with self._write_lock:
            if self._closed:
                return None
            with self._gate.shared():
                _edge_call(self._shard.flush)
            shutil.rmtree(self.shadow_dir, ignore_errors=True)
            shutil.copytree(self.shard_dir, self.shadow_dir)
            self._journal = []
            self._journal_points = 0
            self._shadow_baseline = self._changes
            self._shadow_idle.clear()
            return self.shadow_dir

    def adopt_shadow(self) -> None:
        """Replay the journal onto the optimized copy, then swap it in for the live shard.

        The copy is opened for the replay only when something was written while it was optimized: the optimizer
        child flushed and closed it, so with an empty journal it is caught up as it is. Opening a shard holds the
        GIL for the whole load and so stops every thread of the server (at a million points, about as long as
        the swap's own load: 13 s on 2026-11-29), and the swap has to load it once more, under its new name."""
        try:
            with self._write_lock:
                if self._closed:
                    return
                journal = self._journal or []
                if journal:
                    started = time.monotonic()
                    shadow = qe.EdgeShard.load(str(self.shadow_dir))
                    try:
                        for op in journal:
                            shadow.update(op)
                        shadow.flush()
                    finally:
                        shadow.close()
                    log.info("collection %s: %d writes replayed onto the optimized copy in %.0f ms", self.name,
                             len(journal), (time.monotonic() - started) * 1e3)
                write_json_atomic(self._ready_marker, {"journal_ops": len(journal)})
                paused = time.monotonic()
                with self._gate.exclusive():
                    self._swap_in_shadow()
                paused = time.monotonic() - paused
                self._changes = max(0, self._changes - self._shadow_baseline)
                self._save_pending()
                log.info("collection %s: optimized shard installed (%d writes replayed), requests paused %.0f ms",
                         self.name, len(journal), paused * 1e3)
        finally:
            self._end_shadow()

    def _swap_in_shadow(self) -> None:
        self._shard.flush()
        self._shard.close()
        os.replace(self.shard_dir, self._old_dir)
        os.replace(self.shadow_dir, self.shard_dir)
        try:
            self._shard = qe.EdgeShard.load(str(self.shard_dir))
        except Exception:
            log.exception("collection %s: optimized shard failed to load; keeping the previous one", self.name)
            os.replace(self.shard_dir, self.shadow_dir)
            os.replace(self._old_dir, self.shard_dir)
            self._ready_marker.unlink()
            self._shard = qe.EdgeShard.load(str(self.shard_dir))
            raise
        self._ready_marker.unlink()

    def abandon_shadow(self, nothing_to_optimize: bool) -> None:
        """Drop the copy; when the engine found nothing to optimize, also forget the counted changes."""
        try:
            with self._write_lock:
                if nothing_to_optimize:
                    self._changes = max(0, self._changes - self._shadow_baseline)
                    self._save_pending()
        finally:
            self._end_shadow()

    def _end_shadow(self) -> None:
        with self._write_lock:
            self._journal = None
        shutil.rmtree(self.shadow_dir, ignore_errors=True)
        shutil.rmtree(self._old_dir, ignore_errors=True)
        self._shadow_idle.set()
