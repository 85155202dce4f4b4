"""A Hypothesis state machine that checks a backend against a plain-dict model.

The machine applies `index_tool`, `index_tools`, `replace_tools`, `clear_index`,
`remove_tools` (when the backend declares it) and searches to the index and to the model,
`{session: {name: tool}}`, and checks every search: only names the model says the session
holds, no duplicates, at most `max_results`, scores descending, and a held tool's exact name
finds it.

Sessions often hold identical tool sets (a shared catalog, or the same marked tools), so
the backend's shared sets, copy-on-write and in-place updates are all exercised. Every
marked tool carries a word of its own (its marker) in its description, and searching a
marker is the engine-level check: a keyword backend must return exactly the held tool whose
current definition carries it, so an old copy, another session's tool or a lost update
shows up. Marked tools take names built to collide (separators, control characters,
Unicode normalisation forms).

Each run of the machine draws its own session ids, so one (function-scoped) index serves
every run and nothing carries over between runs.
"""

from __future__ import annotations

import uuid
from typing import Any, ClassVar

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    precondition,
    rule,
    run_state_machine_as_test,
)

from toolscout.index import ToolIndex
from toolscout.testing.fixtures import ConformanceFixtures
from toolscout.testing.strategies import free_text, tool_lists, tool_names, tools, word_queries
from toolscout.testing.support import assert_well_formed
from toolscout.types import ToolReference, ToolSearchRequest

__all__ = ["StateMachineTests", "ToolIndexStateMachine", "machine_for", "run_machine"]

_SESSIONS = ("a", "b", "c")
# Names built to collide under naive keys: joined by separators, control characters, and
# the composed and decomposed forms of one accented name.
_MARKED_NAMES = (
    "pay\x01transfer",
    "pay",
    "pay|transfer",
    "Café",
    "Cafe\u0301",
    "ops.alpha_tool",
    "ops/alpha-tool",
)
# Consonants only, and no s or y: Porter stemming leaves such a word as it is.
_MARKER_LETTERS = "bcdfghjklmnpqrtvwxz"


def _marker(number: int) -> str:
    letters = []
    for _ in range(4):
        number, digit = divmod(number, len(_MARKER_LETTERS))
        letters.append(_MARKER_LETTERS[digit])
    return "zq" + "".join(letters)


class ToolIndexStateMachine(RuleBasedStateMachine):
    """Index operations on a real backend, mirrored on a dict of dicts."""

    index: ClassVar[ToolIndex]

    def __init__(self) -> None:
        super().__init__()
        self.run_id = uuid.uuid4().hex[:10]
        self.model: dict[str, dict[str, ToolReference]] = {s: {} for s in _SESSIONS}
        # Every name indexed in this run, held or not: searching a cleared, removed or
        # other session's name is how leaks and stale copies show up.
        self.seen: set[str] = set()
        self.markers: list[str] = []
        self.catalog = [self.marked(name) for name in _MARKED_NAMES[:4]]

    def marked(self, name: str) -> ToolReference:
        """A new definition of `name` whose description carries a marker of its own."""
        marker = _marker(len(self.markers) + 1000 * int(self.run_id[:4], 16))
        self.markers.append(marker)
        return ToolReference(name, f"Handles {marker} requests.", {"type": "object"})

    def hold(self, session: str, tools: list[ToolReference], replace: bool = False) -> None:
        if replace:
            self.model[session].clear()
        for tool in tools:
            self.model[session][tool.name] = tool
            self.seen.add(tool.name)

    def sid(self, session: str) -> str:
        return f"sm-{self.run_id}-{session}"

    def check(self, session: str, query: str, max_results: int, tolerate_value_error: bool) -> Any:
        request = ToolSearchRequest(self.sid(session), query, max_results)
        try:
            response = self.index.search(request)
        except ValueError:
            if tolerate_value_error:
                return None
            raise
        assert_well_formed(response, max_results, allowed=self.model[session])
        return response

    def expect_found(self, session: str, name: str) -> None:
        """Searching `name` in `session` must find it among room for every held tool."""
        held = self.model[session]
        response = self.check(session, name, len(held), tolerate_value_error=False)
        names = [hit.name for hit in response.references]
        assert name in names, (
            f"searching the exact name {name!r} did not find it among {len(held)} results "
            f"{names}; session holds {sorted(held)}"
        )

    @initialize(batches=st.tuples(*(st.lists(tools, min_size=1, max_size=4) for _ in _SESSIONS)))
    def fill_sessions(self, batches: tuple[list[ToolReference], ...]) -> None:
        # Every run starts with tools in every session, so short runs still exercise
        # clearing, re-indexing and isolation rather than searching empty sessions.
        for session, batch in zip(_SESSIONS, batches, strict=True):
            self.index.index_tools(self.sid(session), batch)
            for tool in batch:
                self.model[session][tool.name] = tool
                self.seen.add(tool.name)

    @rule(session=st.sampled_from(_SESSIONS), tool=tools)
    def index_tool(self, session: str, tool: ToolReference) -> None:
        self.index.index_tool(self.sid(session), tool)
        self.model[session][tool.name] = tool
        self.seen.add(tool.name)
        self.expect_found(session, tool.name)

    @rule(session=st.sampled_from(_SESSIONS), batch=tool_lists)
    def index_tools(self, session: str, batch: list[ToolReference]) -> None:
        self.index.index_tools(self.sid(session), batch)
        for tool in batch:
            self.model[session][tool.name] = tool
            self.seen.add(tool.name)

    @precondition(lambda self: any(self.model.values()))
    @rule(data=st.data(), tool=tools)
    def reindex_held_name(self, data: st.DataObject, tool: ToolReference) -> None:
        session = data.draw(st.sampled_from([s for s in _SESSIONS if self.model[s]]))
        name = data.draw(st.sampled_from(sorted(self.model[session])))
        marked = self.marked(name)
        replacement = ToolReference(name, marked.description, tool.input_schema)
        self.index.index_tool(self.sid(session), replacement)
        self.model[session][name] = replacement
        # Read-after-write: the replacement must be searchable at once, not lost. Its
        # marker checks the engine itself: core answers an exact name from its own ledger.
        self.expect_found(session, name)
        self.expect_marker(session, marked.description.split()[1])

    @rule(session=st.sampled_from(_SESSIONS))
    def clear_index(self, session: str) -> None:
        held = sorted(self.model[session])
        self.index.clear_index(self.sid(session))
        self.model[session].clear()
        if held:
            response = self.check(session, held[0], 10, tolerate_value_error=False)
            assert not response.references, f"cleared session still finds {held[0]!r}"

    @precondition(lambda self: self.index.capabilities.remove_tools)
    @rule(session=st.sampled_from(_SESSIONS), data=st.data())
    def remove_tools(self, session: str, data: st.DataObject) -> None:
        held = sorted(self.model[session])
        names = data.draw(
            st.lists(st.sampled_from(held) | tool_names if held else tool_names, max_size=3)
        )
        self.index.remove_tools(self.sid(session), names)  # type: ignore[attr-defined]
        for name in names:
            self.model[session].pop(name, None)

    @rule(
        session=st.sampled_from(_SESSIONS),
        query=word_queries,
        max_results=st.integers(1, 10),
    )
    def search_words(self, session: str, query: str, max_results: int) -> None:
        self.check(session, query, max_results, tolerate_value_error=False)

    @rule(session=st.sampled_from(_SESSIONS), query=free_text, max_results=st.integers(1, 10))
    def search_free_text(self, session: str, query: str, max_results: int) -> None:
        self.check(session, query, max_results, tolerate_value_error=True)

    @rule(session=st.sampled_from(_SESSIONS), name=st.sampled_from(_MARKED_NAMES))
    def index_marked_tool(self, session: str, name: str) -> None:
        tool = self.marked(name)
        self.index.index_tool(self.sid(session), tool)
        self.hold(session, [tool])
        self.expect_marker(session, tool.description.split()[1])

    @rule(session=st.sampled_from(_SESSIONS))
    def index_shared_catalog(self, session: str) -> None:
        # Sessions that hold nothing else end up holding one identical set.
        self.index.index_tools(self.sid(session), self.catalog)
        self.hold(session, self.catalog)

    @rule(session=st.sampled_from(_SESSIONS), other=st.sampled_from(_SESSIONS))
    def replace_with_other_session_tools(self, session: str, other: str) -> None:
        # The session's tools become exactly another session's: the two share one set.
        tools = list(self.model[other].values())
        replace = getattr(self.index, "replace_tools", None)
        if replace is not None:
            replace(self.sid(session), tools)
        else:
            self.index.clear_index(self.sid(session))
            self.index.index_tools(self.sid(session), tools)
        self.hold(session, tools, replace=True)

    @precondition(lambda self: bool(self.markers))
    @rule(session=st.sampled_from(_SESSIONS), data=st.data())
    def search_marker(self, session: str, data: st.DataObject) -> None:
        self.expect_marker(session, data.draw(st.sampled_from(self.markers)))

    def expect_marker(self, session: str, marker: str) -> None:
        """A keyword backend finds exactly the held tool whose definition has `marker`."""
        held = self.model[session]
        response = self.check(session, marker, max(1, len(held)), tolerate_value_error=False)
        if self.index.capabilities.vectors:
            return  # semantic neighbours may rank anything; `check` saw only held names
        expected = [name for name, tool in held.items() if marker in tool.description]
        assert [hit.name for hit in response.references] == expected, (
            f"searching marker {marker!r} returned {[h.name for h in response.references]}, "
            f"expected {expected}: an old definition, a lost update, or another session's "
            f"tool; session holds {sorted(held)}"
        )

    @precondition(lambda self: any(self.model.values()))
    @rule(data=st.data())
    def search_held_name(self, data: st.DataObject) -> None:
        session = data.draw(st.sampled_from([s for s in _SESSIONS if self.model[s]]))
        name = data.draw(st.sampled_from(sorted(self.model[session])))
        # Room for every held tool: tools sharing the name's words may tie with it.
        self.expect_found(session, name)

    @precondition(lambda self: bool(self.seen))
    @rule(session=st.sampled_from(_SESSIONS), data=st.data())
    def search_seen_name(self, session: str, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(sorted(self.seen)))
        held = self.model[session]
        response = self.check(session, name, max(1, len(held)), tolerate_value_error=False)
        if name in held:
            assert name in [hit.name for hit in response.references], (
                f"searching the exact name {name!r} did not find it; held: {sorted(held)}"
            )


def machine_for(index: ToolIndex) -> type[ToolIndexStateMachine]:
    """A state machine class bound to `index` (Hypothesis builds one instance per run)."""
    return type("BoundToolIndexStateMachine", (ToolIndexStateMachine,), {"index": index})


def run_machine(index: ToolIndex, machine_settings: settings) -> None:
    """Run the state machine against `index` with the given Hypothesis settings."""
    run_state_machine_as_test(machine_for(index), settings=machine_settings)


class StateMachineTests(ConformanceFixtures):
    """The backend against the dict model, over Hypothesis-generated operation sequences."""

    def test_state_machine_matches_dict_model(
        self, index: Any, stateful_settings: settings
    ) -> None:
        """Failure: some sequence of index_tool / index_tools / clear_index / remove_tools /
        search made a search return a tool the session does not hold, a duplicate, more
        than max_results, unsorted scores, or miss a held tool searched by its exact name.
        Hypothesis prints the shortest sequence it found."""
        run_machine(index, stateful_settings)
