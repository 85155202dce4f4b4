"""The conformance suite catches broken backends.

One pytest subprocess runs the whole suite against every index in
`toolscout.testing.broken`; each test here checks that the suite failed the tests that
index's bug should fail, and still passed tests the bug does not touch (so the failures are
specific, not the suite collapsing).
"""

from __future__ import annotations

import textwrap

import pytest
from suite_runner import run_suite
from toolscout.testing.broken import BROKEN_INDEXES

MODULE = textwrap.dedent(
    """
    import pytest
    from hypothesis import HealthCheck, Phase, settings

    from toolscout.testing import ToolIndexConformance
    from toolscout.testing.broken import BROKEN_INDEXES


    class Broken(ToolIndexConformance):
        kind = ""
        deadline_s = 2.0

        @pytest.fixture
        def index(self):
            return BROKEN_INDEXES[self.kind]()

        @pytest.fixture
        def hypothesis_settings(self):
            # Finding a failure is enough here: no shrinking, so the run stays short.
            return settings(
                max_examples=15,
                stateful_step_count=15,
                deadline=None,
                database=None,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck),
            )
    """
)

CLASS = """

class Test_{ident}(Broken):
    kind = {kind!r}
"""

#: Tests each broken index must fail: the ones aimed at its bug.
MUST_FAIL: dict[str, list[str]] = {
    "leaks-across-sessions": [
        "test_sessions_see_only_their_own_tools",
        "test_same_name_in_two_sessions_keeps_each_definition",
        "test_session_isolation_under_generated_sessions",
        "test_state_machine_matches_dict_model",
    ],
    "ignores-max-results": ["test_max_results_is_respected"],
    "clear-does-nothing": [
        "test_clear_index_forgets_the_session",
        "test_index_after_clear_holds_only_new_tools",
        "test_search_after_clear_sees_nothing_then_new_tools",
        "test_threads_indexing_and_searching_see_only_their_own",
        "test_state_machine_matches_dict_model",
    ],
    "loses-reindexed-tool": [
        "test_reindex_replaces_old_description",
        "test_reindex_keeps_other_tools",
        "test_reindex_in_one_batch_keeps_last_definition",
        "test_search_after_reindex_sees_new_definition",
        "test_state_machine_matches_dict_model",
    ],
    "stale-after-writes": [
        "test_search_after_index_tools_sees_new_tools",
        "test_search_after_each_index_tool_sees_it",
        "test_search_after_reindex_sees_new_definition",
        "test_state_machine_matches_dict_model",
    ],
    "duplicates-reindexed-tool": [
        "test_reindex_does_not_duplicate",
        "test_reindex_replaces_old_description",
    ],
    "unsorted-scores": [
        "test_exact_name_ranks_that_tool_first",
        "test_state_machine_matches_dict_model",
    ],
    "ignores-names": [
        "test_tool_without_description_is_findable_by_name",
    ],
    "leaks-regex-error": [
        "test_odd_query_returns_or_raises_value_error[open-paren]",
        "test_odd_query_returns_or_raises_value_error[open-bracket]",
        "test_odd_query_returns_or_raises_value_error[named-group]",
    ],
    "hangs-on-backtracking": [
        "test_odd_query_returns_or_raises_value_error[catastrophic]",
    ],
    "races-between-threads": [
        "test_threads_indexing_and_searching_see_only_their_own",
    ],
}

#: Tests no broken index may fail: they do not touch any of the bugs.
MUST_PASS = [
    "test_standard_tests_are_not_overridden_without_xfail",
    "test_max_results_below_one_is_value_error[0]",
    "test_empty_session_id_is_value_error",
    "test_clear_unknown_session_is_harmless",
]


def _ident(kind: str) -> str:
    return kind.replace("-", "_")


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """Outcome of every suite test for every broken index: {kind: {test: outcome}}."""
    source = MODULE + "".join(
        CLASS.format(ident=_ident(kind), kind=kind) for kind in BROKEN_INDEXES
    )
    # A fixed Hypothesis seed: which generated examples expose each bug must not change
    # from run to run, or a broken index is caught only most of the time.
    run = run_suite(tmp_path_factory.mktemp("broken"), source, "--hypothesis-seed=0")
    assert run.outcomes, f"the suite did not run:\n{run.output}"
    return {kind: run.of(f"Test_{_ident(kind)}") for kind in BROKEN_INDEXES}


def test_every_broken_index_has_expectations() -> None:
    assert set(MUST_FAIL) == set(BROKEN_INDEXES)


@pytest.mark.parametrize("kind", sorted(BROKEN_INDEXES))
def test_suite_fails_the_broken_index(kind: str, outcomes: dict[str, dict[str, str]]) -> None:
    results = outcomes[kind]
    assert results, f"no suite tests ran against {kind}"
    missed = [name for name in MUST_FAIL[kind] if results.get(name) != "failed"]
    assert not missed, f"the suite did not catch {kind!r} in: {missed}"


@pytest.mark.parametrize("kind", sorted(BROKEN_INDEXES))
def test_suite_failures_are_specific(kind: str, outcomes: dict[str, dict[str, str]]) -> None:
    results = outcomes[kind]
    wrongly_failed = [name for name in MUST_PASS if results.get(name) != "passed"]
    assert not wrongly_failed, f"{kind!r} should pass {wrongly_failed}"
    failed = sum(outcome == "failed" for outcome in results.values())
    assert failed <= len(results) // 3, (
        f"{kind!r} failed {failed} of {len(results)} tests: the suite should fail the tests "
        "aimed at the bug, not nearly everything"
    )
