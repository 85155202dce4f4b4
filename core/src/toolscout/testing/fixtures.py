"""The fixtures and knobs every conformance test class shares.

A backend author overrides `index` (required) and, if the backend can, `reopen` and
`min_score_index`; class attributes tune deadlines and Hypothesis effort.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, settings

from toolscout.index import ToolIndex
from toolscout.testing.markers import CAPABILITY_MARKER
from toolscout.testing.support import DEFAULT_DEADLINE_S

__all__ = ["CAPABILITY_MARKER", "BuildWithOptions", "ConformanceFixtures", "OpenAgain", "Reopen"]

#: Takes the index under test, closes it, and opens a new one over the same storage.
Reopen = Callable[[ToolIndex], ToolIndex]
#: Takes the index under test and opens a second one over the same storage, leaving the
#: first open.
OpenAgain = Callable[[ToolIndex], ToolIndex]
#: Builds an index of the backend under test from keyword options.
BuildWithOptions = Callable[..., ToolIndex]


class ConformanceFixtures:
    """Fixtures for the suite. Override `index`; the rest have working defaults."""

    #: Seconds one call with odd input may take before it counts as a hang.
    deadline_s: ClassVar[float] = DEFAULT_DEADLINE_S
    #: Hypothesis examples per property test.
    max_examples: ClassVar[int] = 20
    #: Runs of the state machine, and steps per run.
    stateful_max_examples: ClassVar[int] = 10
    stateful_step_count: ClassVar[int] = 15

    @pytest.fixture
    def index(self) -> Any:
        """An empty index of the backend under test. Subclasses must override this."""
        pytest.fail(
            f"{type(self).__name__} must override the `index` fixture to return an empty "
            "index of the backend under test, e.g.\n\n"
            "    @pytest.fixture\n"
            "    def index(self):\n"
            "        return MyIndex()\n"
        )

    @pytest.fixture
    def reopen(self) -> Reopen | None:
        """For persistent backends: a function that closes the index under test and opens
        a new one over the same storage. None (the default) skips the persistence tests."""
        return None

    @pytest.fixture
    def open_again(self) -> OpenAgain | None:
        """For persistent backends: a function that opens a second index over the storage
        of the index under test, leaving the first open. None skips that test."""
        return None

    @pytest.fixture
    def build_with_options(self, index: Any) -> BuildWithOptions:
        """Builds an index of the backend under test from keyword options (the default
        calls its class with them; override it when the constructor needs more)."""
        return type(index)

    @pytest.fixture
    def min_score_index(self) -> ToolIndex | None:
        """For `min_score` backends: an empty index configured with a minimum score, so an
        unrelated query returns nothing. None (the default) skips the min_score tests."""
        return None

    @pytest.fixture
    def hypothesis_settings(self, request: pytest.FixtureRequest) -> settings:
        """Hypothesis settings for the suite's property tests (and, via
        `stateful_settings`, its state machine).

        `--toolscout-max-examples N` overrides `max_examples` for the whole run.
        """
        examples = request.config.getoption("toolscout_max_examples", default=None)
        return settings(
            max_examples=int(examples or self.max_examples),
            stateful_step_count=self.stateful_step_count,
            deadline=None,  # shared CI machines make per-example timing meaningless
            database=None,  # failures print a reproduction blob instead
            print_blob=True,
            suppress_health_check=[
                HealthCheck.too_slow,
                HealthCheck.function_scoped_fixture,
                HealthCheck.data_too_large,
                HealthCheck.filter_too_much,
            ],
        )

    @pytest.fixture
    def stateful_settings(
        self, request: pytest.FixtureRequest, hypothesis_settings: settings
    ) -> settings:
        """Hypothesis settings for the state machine: `hypothesis_settings` with
        `stateful_max_examples` runs (`--toolscout-max-examples N` overrides it too)."""
        examples = request.config.getoption("toolscout_max_examples", default=None)
        return settings(
            hypothesis_settings,
            max_examples=int(examples or self.stateful_max_examples),
            stateful_step_count=self.stateful_step_count,
        )

    @pytest.fixture(autouse=True)
    def _toolscout_capability_gate(self, request: pytest.FixtureRequest) -> None:
        """Skip a test marked `toolscout_capability(NAME)` when the backend lacks NAME."""
        marker = request.node.get_closest_marker(CAPABILITY_MARKER)
        if marker is None:
            return
        capability = str(marker.args[0])
        index = request.getfixturevalue("index")
        capabilities = getattr(index, "capabilities", None)
        if not getattr(capabilities, capability, False):
            pytest.skip(
                f"backend {getattr(index, 'name', type(index).__name__)!r} does not declare "
                f"the {capability!r} capability (Capabilities({capability}=True) enables it)"
            )
