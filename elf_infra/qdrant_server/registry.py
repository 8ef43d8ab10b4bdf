"""The registry of one data directory's collections, by name: load, create, delete, close (collections.py
holds one collection's shard and its swap)."""

from __future__ import annotations

import logging
import os
import re
import shutil
import threading
import uuid
from pathlib import Path
from typing import Any

from .collections import META_FILE, Collection
from .errors import ApiError, bad_request, collection_not_found
from .term_stats import IdfStatsPolicy

log = logging.getLogger(__name__)
_NAME_RE = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,254}$")


class CollectionRegistry:
    """All collections of one data directory, by name."""

    def __init__(self, data_dir: Path, grey_after: int, idf_policy: IdfStatsPolicy | None = None) -> None:
        self.root = data_dir / "collections"
        self._grey_after = grey_after
        self._idf_policy = idf_policy or IdfStatsPolicy()
        self._lock = threading.Lock()
        self._collections: dict[str, Collection] = {}

    def load_all(self) -> None:
        """Open every committed collection; remove leftovers of interrupted creates and deletes."""
        self.root.mkdir(parents=True, exist_ok=True)
        for entry in sorted(self.root.iterdir()):
            if entry.name.startswith(".deleted-"):
                shutil.rmtree(entry, ignore_errors=True)
            elif not (entry / META_FILE).exists():
                log.warning("removing %s: collection creation did not complete", entry)
                shutil.rmtree(entry, ignore_errors=True)
            else:
                coll = Collection.open(entry, self._grey_after, self._idf_policy)
                self._collections[coll.name] = coll
        log.info("loaded %d collection(s) from %s", len(self._collections), self.root)

    @staticmethod
    def check_name(name: str) -> None:
        """Collection names double as directory names: letters, digits, `_`, `-`, `.`; not starting with `.`."""
        if not _NAME_RE.match(name):
            raise ApiError(422, f"Validation error in path parameters: [name: invalid collection name {name!r}; "
                                "use letters, digits, '_', '-', '.' (not first), at most 255 characters]")

    def names(self) -> list[str]:
        """Collection names, sorted."""
        with self._lock:
            return sorted(self._collections)

    def all(self) -> list[Collection]:
        """A snapshot of the open collections."""
        with self._lock:
            return list(self._collections.values())

    def exists(self, name: str) -> bool:
        """Whether a collection of that name is loaded."""
        with self._lock:
            return name in self._collections

    def get(self, name: str) -> Collection:
        """The collection, or a 404 ApiError."""
        with self._lock:
            coll = self._collections.get(name)
        if coll is None:
            raise collection_not_found(name)
        return coll

    def create(self, name: str, config: dict[str, Any]) -> None:
        """Create a collection from a normalised REST config; 409 when the name is taken."""
        self.check_name(name)
        with self._lock:
            if name in self._collections:
                raise ApiError(409, f"Wrong input: Collection `{name}` already exists!")
            directory = self.root / name
            if directory.exists():
                raise bad_request(f"collection directory {directory} exists without a loaded collection")
            try:
                self._collections[name] = Collection.create(name, directory, config, self._grey_after,
                                                             self._idf_policy)
            except BaseException:
                shutil.rmtree(directory, ignore_errors=True)
                raise

    def delete(self, name: str) -> bool:
        """Close and remove a collection; False when it did not exist."""
        with self._lock:
            coll = self._collections.pop(name, None)
        if coll is None:
            return False
        coll.close()
        trash = self.root / f".deleted-{name}-{uuid.uuid4().hex}"
        os.replace(coll.directory, trash)
        shutil.rmtree(trash, ignore_errors=True)
        return True

    def close_all(self) -> None:
        """Flush and close every shard (shutdown)."""
        with self._lock:
            collections = list(self._collections.values())
            self._collections.clear()
        for coll in collections:
            coll.close()
