"""The conformance suite's pytest plugin. Opt-in: a test suite turns it on in its top-level
`conftest.py` with

    pytest_plugins = ["toolscout.testing.plugin"]

or on the command line with `pytest -p toolscout.testing.plugin`. Installing toolscout does
not load it into other projects' test runs.

It registers the suite's markers and its command-line option, offers helper fixtures (all
named `toolscout_*`), and refuses to run a conformance subclass that overrides the guard
test (which would let it drop standard tests unnoticed). It imports nothing heavy: the suite
itself is imported only by test modules that use it.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from toolscout.testing.markers import CAPABILITY_MARKER, CONFORMANCE_MARKER


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolscout", "toolscout conformance suite")
    group.addoption(
        "--toolscout-max-examples",
        dest="toolscout_max_examples",
        type=int,
        default=None,
        help="Hypothesis examples per conformance property test and state machine "
        "(default: the class's max_examples, 20)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{CONFORMANCE_MARKER}: a test of the toolscout ToolIndex conformance suite"
    )
    config.addinivalue_line(
        "markers",
        f"{CAPABILITY_MARKER}(name): needs the backend capability `name` "
        "(skipped when the backend's Capabilities do not declare it)",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Each standard suite (backends', integrations') that a test module imported.
    suites = [
        (module.__dict__[base], module.GUARD_TEST)
        for name, base in (
            ("toolscout.testing.conformance", "ToolIndexConformance"),
            ("toolscout.testing.integration", "IntegrationConformance"),
        )
        if (module := sys.modules.get(name)) is not None
    ]
    for cls in {getattr(item, "cls", None) for item in items}:
        for base, guard in suites:
            if (
                isinstance(cls, type)
                and issubclass(cls, base)
                and getattr(cls, guard) is not (getattr(base, guard))
            ):
                raise pytest.UsageError(
                    f"{cls.__module__}.{cls.__qualname__} overrides {guard}, the guard that "
                    "keeps conformance tests from being dropped; remove that override"
                )


@pytest.fixture
def toolscout_session() -> str:
    """A session id unique to this test."""
    from toolscout.testing.support import unique_session

    return unique_session()


@pytest.fixture
def toolscout_sample_tools() -> list[Any]:
    """The suite's small realistic catalog (30 `ToolReference`s)."""
    from toolscout.testing.sample_catalog import sample_tools

    return sample_tools()


@pytest.fixture
def toolscout_reference_index() -> Any:
    """An empty `ReferenceToolIndex`, the suite's model of a correct backend."""
    from toolscout.testing.reference import ReferenceToolIndex

    return ReferenceToolIndex()
