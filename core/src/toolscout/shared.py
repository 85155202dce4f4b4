"""The base of a store shared by many workers: the store itself is the record of sessions.

`ToolIndexBase` assumes the process holds the sessions (`toolsets.SessionLedger`) and tells
an engine what to index. A store that many processes write at once (PostgreSQL behind
several workers, a database behind gateway replicas) cannot keep that record in any one
process: which set a session holds is whatever the store says now. Such a store subclasses
`SharedToolIndexBase` and implements four methods:

- `_resolve_session(session_id, fresh=...)`: the set the session holds, as a `ToolSet` with
  its `revision` (None: nothing). Without `fresh` it may answer from what the process
  remembers; the search checks.
- `_search_set(toolset, query)`: search that set for `query.session_id`, and raise
  `StaleSet` if the session no longer holds it at that revision (one statement can check
  and search together).
- `_write_session(session_id, expected, tools)`: make `tools` the session's whole set
  (empty: it holds nothing), atomically and only if it still holds `expected` (its id and
  revision; None: nothing); otherwise raise `StaleSet` and change nothing.
- `_session_ids()`: every session the store holds.

Core does the rest, the same as for every other backend: validation, the change a write
makes (`toolsets.merged_tools`), skipping a write that changes nothing, metadata filters,
the tools a query names, ranking, `min_score`. When another worker changed a session
between core's read and the store's check, core reads the session again and retries (a
search `index.STALE_RETRIES` times, a write `WRITE_RETRIES` times, with a growing random
wait; then `StoreRaceError`), so concurrent writers to one session never lose each other's
tools.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence

from toolscout.index import IndexChores, StaleSet, StoreRaceError, stale_backoff
from toolscout.toolsets import ToolSet, merged_tools, set_fingerprint
from toolscout.types import ToolReference

__all__ = ["WRITE_RETRIES", "SharedToolIndexBase", "StaleSet", "StoreRaceError"]

#: How often a write is tried when other workers keep changing the session first.
WRITE_RETRIES = 16


class SharedToolIndexBase(IndexChores):
    """A tool index over a store that is itself the record of sessions (see the module
    docstring). Subclasses set `name`, `capabilities` and `Options` as for `ToolIndexBase`.
    """

    def sessions(self) -> list[str]:
        """Every session that holds tools, in the store (whichever worker indexed it)."""
        return self._session_ids()

    def _held(self, session_id: str, *, fresh: bool) -> ToolSet | None:
        return self._resolve_session(session_id, fresh=fresh)

    def _write(
        self,
        session_id: str,
        upserts: Sequence[ToolReference],
        removals: Sequence[str],
        *,
        replace: bool,
    ) -> None:
        for attempt in range(WRITE_RETRIES):
            # Writers of one session that keep colliding spread out, as with any
            # optimistic lock.
            stale_backoff(attempt)
            current = self._resolve_session(session_id, fresh=True)
            tools = merged_tools(
                current.tools if current is not None else None, upserts, removals, replace=replace
            )
            if current is None and not tools:
                return
            if current is not None and set_fingerprint(tools.values()) == current.fingerprint:
                return
            try:
                with self._writing():
                    self._write_session(session_id, current, tools)
            except StaleSet:
                continue  # another worker changed the session since it was read
            return
        raise StoreRaceError(
            f"{self.name}: the tool set of session {session_id!r} kept changing while it was "
            "written; try again"
        )

    # --- what a store implements -----------------------------------------------------

    @abstractmethod
    def _resolve_session(self, session_id: str, *, fresh: bool) -> ToolSet | None:
        """The set the session holds, with its revision (None: nothing). With `fresh`
        False the store may answer from memory: `_search_set` checks the revision."""

    @abstractmethod
    def _write_session(
        self, session_id: str, expected: ToolSet | None, tools: Mapping[str, ToolReference]
    ) -> None:
        """Make `tools` the session's whole set (empty: the session holds nothing), in one
        atomic step, if the session still holds `expected` (same id and revision; None:
        nothing). Otherwise raise `StaleSet` and change nothing."""

    @abstractmethod
    def _session_ids(self) -> list[str]:
        """Every session the store holds."""
