"""`ToolIndexConformance`: the whole conformance suite as one base class.

A backend's test module subclasses it and overrides the `index` fixture:

    import pytest
    from toolscout.testing import ToolIndexConformance
    from my_backend import MyIndex

    class TestMyIndex(ToolIndexConformance):
        @pytest.fixture
        def index(self):
            return MyIndex()

Persistent backends also override `reopen`, and `min_score` backends `min_score_index`
(see `toolscout.testing.fixtures`). A standard test may only be overridden to mark it
`xfail` with a reason; the guard test fails otherwise, so a backend cannot quietly drop
part of the contract.
"""

from __future__ import annotations

from typing import ClassVar

import pytest

from toolscout.testing.abstention import AbstentionTests
from toolscout.testing.capabilities import (
    MetadataFilterTests,
    MinScoreTests,
    PersistenceTests,
    RemoveToolsTests,
    SameStoreTests,
)
from toolscout.testing.contract import (
    ClearTests,
    FreshnessTests,
    ReindexTests,
    ResultLimitTests,
    SessionIsolationTests,
)
from toolscout.testing.guard import overridden_without_xfail
from toolscout.testing.markers import CONFORMANCE_MARKER
from toolscout.testing.quality import RankingFloorTests
from toolscout.testing.robustness import BadInputTests, ConcurrencyTests
from toolscout.testing.sharing import SharedSetTests
from toolscout.testing.stateful import StateMachineTests

__all__ = ["GUARD_TEST", "ToolIndexConformance", "overrides_without_xfail"]

#: The name of the guard test, which a subclass must not override at all.
GUARD_TEST = "test_standard_tests_are_not_overridden_without_xfail"


def overrides_without_xfail(cls: type) -> list[str]:
    """Standard tests that `cls` overrides (or removes) without an `xfail(reason=...)`."""
    return overridden_without_xfail(ToolIndexConformance, cls, GUARD_TEST)


class ToolIndexConformance(
    SessionIsolationTests,
    ResultLimitTests,
    ClearTests,
    ReindexTests,
    FreshnessTests,
    RankingFloorTests,
    AbstentionTests,
    BadInputTests,
    ConcurrencyTests,
    StateMachineTests,
    SharedSetTests,
    RemoveToolsTests,
    MetadataFilterTests,
    PersistenceTests,
    SameStoreTests,
    MinScoreTests,
):
    """Every conformance test. Subclass it as `Test...` and override the `index` fixture."""

    pytestmark: ClassVar[list[pytest.MarkDecorator]] = [getattr(pytest.mark, CONFORMANCE_MARKER)]

    def test_standard_tests_are_not_overridden_without_xfail(self) -> None:
        """Failure: this class overrides (or deletes) a standard conformance test without
        marking the override `@pytest.mark.xfail(reason="...")`. Remove the override, or
        mark it xfail saying why the backend cannot meet that part of the contract."""
        bad = overrides_without_xfail(type(self))
        assert not bad, (
            f"{type(self).__name__} overrides standard tests without "
            f'@pytest.mark.xfail(reason="..."): {", ".join(bad)}'
        )
