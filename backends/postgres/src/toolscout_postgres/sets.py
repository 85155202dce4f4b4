"""Sets in this process: each process caches the sets it has read (`SetCache`, by set id
and revision) to turn hits (definition keys) into tools and to evaluate metadata filters
and the names a query mentions; a search that comes back with another revision reads the
set again first."""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from types import MappingProxyType

from toolscout.toolsets import ToolSet
from toolscout.types import ToolReference

__all__ = ["CachedSet", "SetCache"]


@dataclass(frozen=True, eq=False)
class CachedSet:
    """A set as this process last read it: at `revision`, its tools by name and key."""

    id: uuid.UUID
    revision: int
    fingerprint: uuid.UUID
    toolset: ToolSet
    keys: dict[str, uuid.UUID]  # name -> definition key
    names: dict[uuid.UUID, str]  # definition key -> name

    @classmethod
    def of(
        cls,
        set_id: uuid.UUID,
        revision: int,
        fingerprint: uuid.UUID,
        tools: dict[uuid.UUID, ToolReference],
    ) -> CachedSet:
        by_name = {tool.name: tool for tool in tools.values()}
        toolset = ToolSet(set_id.hex, MappingProxyType(by_name), fingerprint.hex, revision)
        keys = {tool.name: key for key, tool in tools.items()}
        return cls(set_id, revision, fingerprint, toolset, keys, {k: n for n, k in keys.items()})

    def __len__(self) -> int:
        return len(self.keys)


class SetCache:
    """Sets by id, the least recently used dropped beyond `limit` tools in all."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._sets: OrderedDict[uuid.UUID, CachedSet] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, set_id: uuid.UUID) -> CachedSet | None:
        with self._lock:
            cached = self._sets.get(set_id)
            if cached is not None:
                self._sets.move_to_end(set_id)
            return cached

    def put(self, cached: CachedSet) -> None:
        with self._lock:
            old = self._sets.pop(cached.id, None)
            if old is not None:
                self._size -= len(old)
                if old.revision > cached.revision:  # a newer read won the race
                    cached = old
            self._sets[cached.id] = cached
            self._size += len(cached)
            while self._size > self._limit and len(self._sets) > 1:
                _, dropped = self._sets.popitem(last=False)
                self._size -= len(dropped)

    def forget(self, set_id: uuid.UUID) -> None:
        with self._lock:
            old = self._sets.pop(set_id, None)
            if old is not None:
                self._size -= len(old)

    def __len__(self) -> int:
        with self._lock:
            return len(self._sets)
