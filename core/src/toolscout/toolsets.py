"""Tool sets and sessions: which tools each session holds, with every identical set stored once.

Many users of one agent hold the same catalog. Indexing it once per session multiplies
memory by the number of sessions, so an index stores *tool sets*, and a session points at
one. A set is identified by a fingerprint of its definitions (`set_fingerprint`); a session
that asks for a set another session already holds just points at it. When a session
changes its tools, it gets a set of its own (copy-on-write); a set nobody else holds is
changed in place, so `index_tool` in a loop stays cheap. When the last session lets go of
a set, the set is dropped.

`SessionLedger` is this bookkeeping, in memory, for an index whose process holds the sessions
(`ToolIndexBase`): it works out each change and tells the backend's engine what to do
(create, update, drop a set); persistent backends also store which set each session holds,
and hand it back when they reopen (`StoredState`). A store that is itself the record of
sessions, shared by many workers, keeps this record in the store instead
(`toolscout.shared.SharedToolIndexBase`); both compute a session's next tools with
`merged_tools`.
"""

from __future__ import annotations

import hashlib
import threading
import uuid
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Generic, Protocol, TypeVar
from weakref import WeakKeyDictionary

from toolscout.analysis import fold, short_names
from toolscout.types import ToolReference

__all__ = [
    "PerSet",
    "SessionLedger",
    "SetEngine",
    "StoredState",
    "ToolSet",
    "definition_key",
    "merged_tools",
    "new_set_id",
    "set_fingerprint",
]


def definition_key(tool: ToolReference) -> str:
    """The key of one whole definition, metadata included: `ToolReference.fingerprint`."""
    return tool.fingerprint


def set_fingerprint(tools: Iterable[ToolReference]) -> str:
    """A digest of a set of definitions, in any order: same tools, same fingerprint."""
    digest = hashlib.blake2b(digest_size=16)
    # Fixed-length hex keys, sorted: the concatenation is unambiguous.
    for key in sorted(definition_key(tool) for tool in tools):
        digest.update(key.encode("ascii"))
    return digest.hexdigest()


def new_set_id() -> str:
    """A fresh set id: random, so two processes writing one store never pick the same."""
    return uuid.uuid4().hex


@dataclass(frozen=True, eq=False)
class ToolSet:
    """An immutable set of tool definitions, by name, as one engine indexes it.

    A change makes a new `ToolSet` object (possibly under the same `id`, when the set is
    updated in place), so a search that picked up a set sees it whole.
    """

    id: str
    tools: Mapping[str, ToolReference]
    fingerprint: str
    #: How often a shared store has changed this set in place (0 in a process's own
    #: ledger): with `id`, what a store checks to tell a set read earlier is still current.
    revision: int = 0

    @classmethod
    def of(cls, set_id: str, tools: Iterable[ToolReference], *, revision: int = 0) -> ToolSet:
        by_name = {tool.name: tool for tool in tools}
        fingerprint = set_fingerprint(by_name.values())
        return cls(set_id, MappingProxyType(by_name), fingerprint, revision)

    def __len__(self) -> int:
        return len(self.tools)

    @cached_property
    def _by_folded_name(self) -> dict[str, list[str]]:
        names: dict[str, list[str]] = {}
        for name in self.tools:
            names.setdefault(fold(name), []).append(name)
        return names

    @cached_property
    def _by_short_name(self) -> dict[str, list[str]]:
        names: dict[str, list[str]] = {}
        for name in self.tools:
            for short in short_names(fold(name)):
                names.setdefault(short, []).append(name)
        return names

    def named(self, candidates: Sequence[str]) -> list[str]:
        """Names of this set's tools among folded `candidates` (see `name_candidates`): by
        full name, else by a name without its namespaces (`put_object`, `short_names`)."""
        found: list[str] = []
        for candidate in candidates:
            names = self._by_folded_name.get(candidate) or self._by_short_name.get(candidate) or []
            for name in names:
                if name not in found:
                    found.append(name)
        return found


def merged_tools(
    current: Mapping[str, ToolReference] | None,
    upserts: Sequence[ToolReference],
    removals: Sequence[str],
    *,
    replace: bool,
) -> dict[str, ToolReference]:
    """A session's tools after a change: `current` (unless `replace`) less `removals`, with
    `upserts` added or replacing tools of the same names."""
    tools: dict[str, ToolReference] = {}
    if current is not None and not replace:
        tools.update(current)
    for name in removals:
        tools.pop(name, None)
    for tool in upserts:
        tools.pop(tool.name, None)
        tools[tool.name] = tool
    return tools


V = TypeVar("V")
_MISSING = object()


class PerSet(Generic[V]):
    """Values worked out once per tool set (and `key`, such as an analyzer's signature)
    and dropped with the set: what core and engines derive from a set's tools (postings,
    vectors, word weights) without keeping the set alive. Thread-safe; two threads may
    both build a value, and the first one stored is kept."""

    def __init__(self) -> None:
        self._values: WeakKeyDictionary[ToolSet, dict[Hashable, V]] = WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, toolset: ToolSet, build: Callable[[], V], key: Hashable = None) -> V:
        with self._lock:
            per_set = self._values.get(toolset)
            found = per_set.get(key, _MISSING) if per_set is not None else _MISSING
        if found is not _MISSING:
            return found  # type: ignore[return-value]
        built = build()  # outside the lock: building may read a store or embed texts
        with self._lock:
            return self._values.setdefault(toolset, {}).setdefault(key, built)


@dataclass(frozen=True)
class StoredState:
    """What a persistent backend hands back when it reopens: sessions and their sets."""

    sessions: Mapping[str, str]
    """Session id → set id."""
    sets: Mapping[str, Sequence[ToolReference]]
    """Set id → the set's tools."""


class SetEngine(Protocol):
    """What `SessionLedger` tells an engine to do (`ToolIndexBase` implements it)."""

    def _create_set(self, toolset: ToolSet) -> None: ...

    def _update_set(
        self, old: ToolSet, new: ToolSet, changed: Sequence[ToolReference], removed: Sequence[str]
    ) -> None: ...

    def _drop_set(self, toolset: ToolSet) -> None: ...

    def _store_session(self, session_id: str, set_id: str | None) -> None: ...


@dataclass
class SessionLedger:
    """The record of which set each session holds, and who holds each set, in memory; it
    works out each change and has an engine carry it out.

    Not thread-safe: `ToolIndexBase` calls the changes under its write lock; searches only
    read `session`, and see a set whole (old or new) while it changes.
    """

    _sessions: dict[str, ToolSet] = field(default_factory=dict)
    _holders: dict[str, set[str]] = field(default_factory=dict)
    _by_fingerprint: dict[str, ToolSet] = field(default_factory=dict)

    # --- reading ---------------------------------------------------------------------

    def session(self, session_id: str) -> ToolSet | None:
        return self._sessions.get(session_id)

    def with_fingerprint(self, fingerprint: str) -> ToolSet | None:
        return self._by_fingerprint.get(fingerprint)

    def holders(self, set_id: str) -> frozenset[str]:
        return frozenset(self._holders.get(set_id, ()))

    @property
    def session_ids(self) -> list[str]:
        return list(self._sessions)

    def set_count(self) -> int:
        return len(self._holders)

    # --- changes, carried out by an engine -------------------------------------------

    def change(
        self,
        engine: SetEngine,
        session_id: str,
        upserts: Sequence[ToolReference],
        removals: Sequence[str],
        *,
        replace: bool,
    ) -> None:
        """Apply a session's change: share a set another session holds, change a set held
        by this session alone in place, or have the engine index a new set."""
        current = self._sessions.get(session_id)
        tools = merged_tools(
            current.tools if current is not None else None, upserts, removals, replace=replace
        )
        if not tools:
            self.clear(engine, session_id)
            return
        wanted = ToolSet.of(new_set_id(), tools.values())
        if current is not None and current.fingerprint == wanted.fingerprint:
            return
        shared = self._by_fingerprint.get(wanted.fingerprint)
        if shared is not None:
            # Another session holds exactly this set: point at it, index nothing.
            engine._store_session(session_id, shared.id)
            self._drop(engine, self._bind(session_id, shared))
            return
        if current is not None and self._holders.get(current.id) == {session_id}:
            # Held by this session alone: change it in place, only what changed.
            updated = ToolSet(current.id, wanted.tools, wanted.fingerprint)
            changed = [tool for name, tool in tools.items() if current.tools.get(name) != tool]
            gone = [name for name in current.tools if name not in tools]
            engine._update_set(current, updated, changed, gone)
            self._replace(current, updated)
            return
        engine._create_set(wanted)
        engine._store_session(session_id, wanted.id)
        self._drop(engine, self._bind(session_id, wanted))

    def clear(self, engine: SetEngine, session_id: str) -> None:
        """Forget a session; the engine drops its set if nobody else holds it."""
        if session_id not in self._sessions:
            return
        engine._store_session(session_id, None)
        self._drop(engine, self._unbind(session_id))

    @classmethod
    def of_state(cls, state: StoredState) -> tuple[SessionLedger, list[str]]:
        """The record a store holds, changing nothing; also the sessions whose set the
        state lacks (never completed, or dropped while the state was read)."""
        ledger = cls()
        sets = {set_id: ToolSet.of(set_id, tools) for set_id, tools in state.sets.items() if tools}
        missing: list[str] = []
        for session_id, set_id in state.sessions.items():
            toolset = sets.get(set_id)
            if toolset is not None:
                ledger._bind(session_id, toolset)
            else:
                missing.append(session_id)
        return ledger, missing

    @classmethod
    def restore(cls, engine: SetEngine, state: StoredState) -> SessionLedger:
        """The record a store holds, tidied: sessions whose set was never completed (the
        process died mid-write) are forgotten, and the engine drops sets nobody holds."""
        ledger, missing = cls.of_state(state)
        for session_id in missing:
            engine._store_session(session_id, None)
        for set_id, tools in state.sets.items():
            if not ledger._holders.get(set_id):
                engine._drop_set(ToolSet.of(set_id, tools))
        return ledger

    # --- bookkeeping -----------------------------------------------------------------

    @staticmethod
    def _drop(engine: SetEngine, toolset: ToolSet | None) -> None:
        if toolset is not None:
            engine._drop_set(toolset)

    def _bind(self, session_id: str, toolset: ToolSet) -> ToolSet | None:
        """Point a session at a set; returns the set it no longer holds, if nobody does."""
        previous = self._sessions.get(session_id)
        self._sessions[session_id] = toolset
        self._holders.setdefault(toolset.id, set()).add(session_id)
        self._by_fingerprint.setdefault(toolset.fingerprint, toolset)
        if previous is not None and previous.id != toolset.id:
            return self._release(session_id, previous)
        return None

    def _unbind(self, session_id: str) -> ToolSet | None:
        """Forget a session; returns its set if no other session holds it (to be dropped)."""
        previous = self._sessions.pop(session_id, None)
        return self._release(session_id, previous) if previous is not None else None

    def _replace(self, old: ToolSet, new: ToolSet) -> None:
        """Swap a set updated in place (same id, new tools) in for every holder."""
        if self._by_fingerprint.get(old.fingerprint) is old:
            del self._by_fingerprint[old.fingerprint]
        self._by_fingerprint.setdefault(new.fingerprint, new)
        for session_id in self._holders.get(old.id, ()):
            self._sessions[session_id] = new

    def _release(self, session_id: str, toolset: ToolSet) -> ToolSet | None:
        holders = self._holders.get(toolset.id)
        if holders is not None:
            holders.discard(session_id)
            if holders:
                return None
            del self._holders[toolset.id]
        if self._by_fingerprint.get(toolset.fingerprint) is toolset:
            del self._by_fingerprint[toolset.fingerprint]
        return toolset
