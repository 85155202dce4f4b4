"""Learning from use (`toolscout.learning`): successful calls teach the ranking, per tenant,
by distinct sessions, for the definition that was used, and into confidence."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from toolscout import ToolReference, ToolSearchRequest
from toolscout.history import HistoryReport, read_history, replay_history
from toolscout.learning import Learner, learn_from, learner_of
from toolscout.testing.reference import ReferenceToolIndex
from toolscout.usage import MemoryUsageStore, Use

CATALOG = [
    ToolReference(name="plan_manager", description="Handles recurring entitlements"),
    ToolReference(name="monthly_report", description="Create the monthly sales report"),
    ToolReference(name="send_email", description="Send an email message to someone"),
    ToolReference(name="weather_forecast", description="Forecast the weather for a city"),
    ToolReference(name="plan_trip", description="Plan a trip with flights and hotels"),
]
ASKED = "please stop my monthly plan"


def index_with(tools: list[ToolReference] = CATALOG, **options: Any) -> ReferenceToolIndex:
    index = ReferenceToolIndex(min_confidence=0.0, **options)
    index.index_tools("s", tools)
    return index


def names(index: ReferenceToolIndex, query: str = ASKED, session: str = "s") -> list[str]:
    return index.search(ToolSearchRequest(session, query, max_results=3)).names


def teach(learner: Learner, index: ReferenceToolIndex, sessions: int, tool: str = "plan_manager"):
    for number in range(sessions):
        session = f"past-{number}"
        index.index_tools(session, CATALOG)
        assert learner.record(index, session, "stop my monthly plan", tool, success=True)


def test_a_tool_people_used_for_a_request_ranks_first_for_a_like_one() -> None:
    index = index_with()
    assert names(index)[0] != "plan_manager"
    teach(learn_from(index), index, 3)
    assert names(index)[0] == "plan_manager"


def test_without_evidence_the_answer_is_what_it_was() -> None:
    plain = index_with()
    learning = index_with()
    learn_from(learning)
    for query in (ASKED, "weather in paris", "send a message"):
        assert names(learning, query) == names(plain, query)


def test_one_session_repeating_a_call_counts_once() -> None:
    index = index_with()
    learner = learn_from(index)
    index.index_tools("pusher", CATALOG)
    for _ in range(200):
        learner.record(index, "pusher", "stop my monthly plan", "send_email", success=True)
    teach(learner, index, 2)
    ranked = index.search(ToolSearchRequest("s", ASKED, max_results=5)).names
    assert ranked.index("plan_manager") < ranked.index("send_email")


def test_failed_calls_count_against_the_tool() -> None:
    index = index_with()
    learner = learn_from(index)
    teach(learner, index, 1)
    index.index_tools("failing", CATALOG)
    learner.record(index, "failing", "stop my monthly plan", "plan_manager", success=False)
    assert names(index)[0] != "plan_manager"


def test_one_tenants_uses_never_move_anothers_ranking() -> None:
    index = index_with()
    learner = learn_from(index)
    for number in range(3):
        learner.assign(f"past-{number}", "acme")
    teach(learner, index, 3)
    index.index_tools("other", CATALOG)
    learner.assign("other", "globex")
    learner.assign("s", "acme")
    assert names(index, session="other")[0] != "plan_manager"
    assert names(index, session="s")[0] == "plan_manager"


def test_a_tool_whose_definition_changed_starts_afresh() -> None:
    index = index_with()
    teach(learn_from(index), index, 3)
    changed = ToolReference(name="plan_manager", description="Handles recurring entitlements v2")
    index.index_tools("s", [changed])
    assert names(index)[0] != "plan_manager"


def test_a_use_of_a_tool_the_session_does_not_hold_is_ignored() -> None:
    index = index_with()
    learner = learn_from(index)
    assert not learner.record(index, "s", "stop my monthly plan", "not_a_tool", success=True)
    assert learner.store.uses("default") == ()


def test_a_filtered_out_tool_never_comes_back_through_evidence() -> None:
    tools = [
        ToolReference(name=t.name, description=t.description, metadata={"server": t.name})
        for t in CATALOG
    ]
    index = index_with(tools)
    learner = learn_from(index)
    for number in range(3):
        index.index_tools(f"past-{number}", tools)
        learner.record(
            index, f"past-{number}", "stop my monthly plan", "plan_manager", success=True
        )
    request = ToolSearchRequest("s", ASKED, metadata_filter={"server": "monthly_report"})
    assert index.search(request).names == ["monthly_report"]


def test_evidence_raises_confidence_for_a_like_request_and_not_for_another() -> None:
    index = ReferenceToolIndex()  # the default confidence floor
    index.index_tools("s", CATALOG)
    assert index.search(ToolSearchRequest("s", "stop my monthly plan now")).names != [
        "plan_manager"
    ]
    teach(learn_from(index), index, 3)
    like = index.search(ToolSearchRequest("s", "stop my monthly plan now"))
    assert like.names[0] == "plan_manager"
    assert like.confidence is not None and like.confidence >= 0.5
    unlike = index.search(ToolSearchRequest("s", "translate poetry into klingon"))
    assert unlike.names == []


def test_a_failing_store_leaves_the_search_as_it_was(caplog: pytest.LogCaptureFixture) -> None:
    class Broken(MemoryUsageStore):
        def uses(self, tenant: str) -> tuple[Use, ...]:
            raise OSError("disk gone")

    index = index_with()
    plain = names(index)
    store = Broken()
    store.record(Use("x", "plan_manager", "d", True, "s"))
    learn_from(index, store)
    with caplog.at_level(logging.WARNING, logger="toolscout"):
        assert names(index) == plain
        assert names(index) == plain
    assert sum("disk gone" in r.getMessage() for r in caplog.records) == 1


def test_learn_from_attaches_a_learner_to_that_index_only() -> None:
    first, second = index_with(), index_with()
    learner = learn_from(first)
    assert learner_of(first) is learner and learner_of(second) is None


def test_a_history_file_counts_its_bad_lines_and_replays_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    lines = [
        '{"query": "stop my monthly plan", "relevant": ["plan_manager"]}',
        '{"query": "   ", "relevant": ["plan_manager"]}',
        '{"query": "cancel", "relevant": ["no_such_tool"]}',
        "not json",
        '{"query": "' + "x" * 1_000_000 + '", "relevant": ["plan_manager"]}',
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = HistoryReport()
    store = MemoryUsageStore()
    replay_history(store, CATALOG, read_history(path, report), report)
    assert report.uses == 1
    assert report.skipped == {
        "blank queries": 1,
        "uses of tools not in the catalog": 1,
        "lines not JSON": 1,
        "lines too long": 1,
    }
    assert "1 blank queries" in report.summary()
    assert [u.tool for u in store.uses("default")] == ["plan_manager"]


# --- recorded where it happens: the advisor ----------------------------------------------


def run_advisor(index: ReferenceToolIndex, session: str, *steps: Any, **options: Any) -> None:
    from test_advisor_loop import ALL
    from toolscout.advisor import Advisor
    from toolscout.advisor.scripted import ScriptedChatModel, answer

    model = ScriptedChatModel([*steps, answer("done")])
    Advisor(model, ALL, index, auto=False, **options).run("help me", session_id=session)


def test_the_advisor_records_a_found_tools_call_with_its_outcome_and_nothing_else() -> None:
    from toolscout.advisor.scripted import call, calls

    index = ReferenceToolIndex()
    secret = "sk-live-abcdef123456"
    run_advisor(
        index,
        "run-1",
        calls(call("tool_search", query=f"weather forecast token={secret}")),
        calls(call("get_weather", city="Paris-Secret-City"), call("explode")),
        calls(call("send_email", to="a", body="b")),  # never found by a search: not a use
    )
    learner = learner_of(index)
    assert learner is not None
    uses = learner.store.uses("default")
    assert [(u.tool, u.success, u.session) for u in uses] == [("get_weather", True, "run-1")]
    assert secret not in uses[0].query and "Paris-Secret-City" not in repr(uses[0])


def test_a_failed_call_of_a_found_tool_is_recorded_as_failed() -> None:
    from toolscout.advisor.scripted import call, calls

    index = ReferenceToolIndex()
    run_advisor(
        index,
        "run-2",
        calls(call("tool_search", query="explode the reactor")),
        calls(call("explode")),
    )
    learner = learner_of(index)
    assert learner is not None
    assert [(u.tool, u.success) for u in learner.store.uses("default")] == [("explode", False)]


def test_the_advisor_records_nothing_when_learning_is_switched_off() -> None:
    from toolscout.advisor.scripted import call, calls

    index = ReferenceToolIndex()
    run_advisor(
        index,
        "run-3",
        calls(call("tool_search", query="weather forecast")),
        calls(call("get_weather", city="Paris")),
        learn=False,
    )
    assert learner_of(index) is None


def test_an_index_kept_on_disk_keeps_its_uses_beside_it_for_the_next_process(
    tmp_path: Path,
) -> None:
    from toolscout.advisor.scripted import call, calls
    from toolscout.options import PersistentOptions

    class OnDisk(ReferenceToolIndex):
        Options = PersistentOptions

    path = tmp_path / "tools.index"
    run_advisor(
        OnDisk(path=str(path)),
        "run-4",
        calls(call("tool_search", query="weather forecast")),
        calls(call("get_weather", city="Paris")),
    )
    stored = Path(f"{path}.uses.jsonl")
    assert stored.is_file()
    later = OnDisk(path=str(path))
    from toolscout.learning import default_learner

    learner = default_learner(later)
    assert learner is not None
    assert [u.tool for u in learner.store.uses("default")] == ["get_weather"]


@pytest.mark.parametrize(("sessions", "offered"), [(1, False), (2, True)])
def test_tools_used_together_in_two_sessions_are_offered_together(
    sessions: int, offered: bool
) -> None:
    index = index_with()
    learner = learn_from(index)
    for number in range(sessions):
        session = f"task-{number}"
        index.index_tools(session, CATALOG)
        learner.record(index, session, "stop my monthly plan", "plan_manager", success=True)
        learner.record(index, session, "tell the customer", "send_email", success=True)
    found = index.search(ToolSearchRequest("s", ASKED, max_results=5)).names
    assert "plan_manager" in found
    assert ("send_email" in found) is offered


def test_new_uses_are_learnt_in_the_background_and_searches_go_on_meanwhile() -> None:
    index = index_with()
    learner = learn_from(index)
    before = names(index)  # learns the (empty) evidence of the set
    teach(learner, index, 3)
    assert names(index) == before  # answered from what was learnt, while it learns again
    learner.settle(timeout=10)
    assert names(index)[0] == "plan_manager"


def test_the_nearest_are_a_stable_sorts_first_with_or_without_a_partition() -> None:
    """`_largest` (the nearest answered queries): past `SORT_LIMIT` values a partition
    shortlists them first; either way the positions and order of a stable sort, ties (many,
    from few distinct values) to the first."""
    np = pytest.importorskip("numpy")
    from toolscout import learning

    rng = np.random.default_rng(5)
    for size in (1, 7, 8, 9, 200, learning.SORT_LIMIT, learning.SORT_LIMIT + 1, 3000):
        for distinct in (2, 5, 1000):
            values = rng.integers(0, distinct, size) / distinct
            for count in (1, 8, 20):
                expected = np.argsort(-values, kind="stable")[:count]
                assert learning._largest(values, count).tolist() == expected.tolist()
