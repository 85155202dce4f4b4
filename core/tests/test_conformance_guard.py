"""The suite's guard and pytest plugin: overrides need an xfail reason, markers and options
are registered, a missing `index` fixture says what to do."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from suite_runner import run_suite
from toolscout.testing import ReferenceToolIndex, ToolIndexConformance
from toolscout.testing.conformance import GUARD_TEST, overrides_without_xfail

HEADER = textwrap.dedent(
    """
    import pytest
    from toolscout.testing import ReferenceToolIndex, ToolIndexConformance


    class Base(ToolIndexConformance):
        @pytest.fixture
        def index(self):
            return ReferenceToolIndex()
    """
)


def _class(name: str, body: str) -> str:
    return f"\n\nclass {name}(Base):\n" + textwrap.indent(textwrap.dedent(body), "    ")


class Overrides(ToolIndexConformance):
    def test_max_results_is_respected(self, index: object) -> None:
        pass


class XfailWithReason(ToolIndexConformance):
    @pytest.mark.xfail(reason="this backend cannot bound results yet")
    def test_max_results_is_respected(self, index: object) -> None:
        raise AssertionError


class XfailWithoutReason(ToolIndexConformance):
    @pytest.mark.xfail
    def test_max_results_is_respected(self, index: object) -> None:
        raise AssertionError


class Deletes(ToolIndexConformance):
    test_clear_index_forgets_the_session = None  # type: ignore[assignment]


class SkipsInstead(ToolIndexConformance):
    @pytest.mark.skip(reason="not supported")
    def test_max_results_is_respected(self, index: object) -> None:
        pass


def test_plain_override_is_reported() -> None:
    assert overrides_without_xfail(Overrides) == ["test_max_results_is_respected"]


def test_override_marked_xfail_with_reason_is_allowed() -> None:
    assert overrides_without_xfail(XfailWithReason) == []


def test_xfail_without_reason_is_reported() -> None:
    assert overrides_without_xfail(XfailWithoutReason) == ["test_max_results_is_respected"]


def test_deleting_a_standard_test_is_reported() -> None:
    assert overrides_without_xfail(Deletes) == ["test_clear_index_forgets_the_session"]


def test_skip_is_not_a_substitute_for_xfail() -> None:
    assert overrides_without_xfail(SkipsInstead) == ["test_max_results_is_respected"]


def test_untouched_subclass_is_clean() -> None:
    class Clean(ToolIndexConformance):
        pass

    assert overrides_without_xfail(Clean) == []


def test_guard_and_plugin_in_a_real_run(tmp_path: Path) -> None:
    """In a pytest run: the guard fails the overriding class only; an xfail override
    counts as xfailed; the capability marker skips with a reason; options are accepted."""
    source = (
        HEADER
        + _class("TestClean", "pass\n")
        + _class(
            "TestOverrides",
            """
            def test_max_results_is_respected(self, index):
                pass
            """,
        )
        + _class(
            "TestXfail",
            """
            @pytest.mark.xfail(reason="documented gap", strict=True)
            def test_max_results_is_respected(self, index):
                raise AssertionError("gap")
            """,
        )
    )
    run = run_suite(
        tmp_path,
        source,
        "--strict-markers",
        "--toolscout-max-examples=3",
        "-m",
        "toolscout_conformance",
        "-k",
        f"{GUARD_TEST} or test_max_results_is_respected or survive_reopen",
        "-rsx",
    )
    assert run.of("TestClean")[GUARD_TEST] == "passed"
    assert run.of("TestOverrides")[GUARD_TEST] == "failed"
    assert run.of("TestXfail")[GUARD_TEST] == "passed"
    assert run.of("TestXfail")["test_max_results_is_respected"] == "skipped"  # xfailed
    assert run.of("TestClean")["test_tools_survive_reopen"] == "skipped"
    assert "does not declare the 'persistent' capability" in run.output
    assert "test_max_results_is_respected" in run.output  # named in the guard's failure


def test_overriding_the_guard_itself_stops_the_run(tmp_path: Path) -> None:
    source = HEADER + _class(
        "TestSneaky",
        f"""
        @pytest.mark.xfail(reason="sneaky")
        def {GUARD_TEST}(self):
            raise AssertionError
        """,
    )
    run = run_suite(tmp_path, source)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.output
    assert f"overrides {GUARD_TEST}" in run.output


def test_missing_index_fixture_says_how_to_fix_it(tmp_path: Path) -> None:
    source = textwrap.dedent(
        """
        from toolscout.testing import ToolIndexConformance

        class TestForgotIndex(ToolIndexConformance):
            pass
        """
    )
    run = run_suite(tmp_path, source, "-k", "test_max_results_is_respected")
    assert run.of("TestForgotIndex")["test_max_results_is_respected"] == "failed"
    assert "must override the `index` fixture" in run.output


def test_plugin_fixtures_are_offered(toolscout_reference_index: ReferenceToolIndex) -> None:
    """The plugin offers `toolscout_reference_index`, `toolscout_session` and the catalog."""
    assert isinstance(toolscout_reference_index, ReferenceToolIndex)


def test_plugin_session_and_catalog_fixtures(
    toolscout_session: str, toolscout_sample_tools: list[object]
) -> None:
    assert toolscout_session.startswith("s-") and len(toolscout_sample_tools) == 30


OPT_IN_TEST = """
def test_uses_a_plugin_fixture(toolscout_reference_index):
    assert toolscout_reference_index is not None
"""


def _pytest_in(folder: Path) -> subprocess.CompletedProcess[str]:
    (folder / "test_opt_in.py").write_text(OPT_IN_TEST)
    options = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--rootdir", str(folder)]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *options, "test_opt_in.py"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_plugin_is_not_loaded_into_projects_that_do_not_ask(tmp_path: Path) -> None:
    """Installing toolscout adds no pytest11 entry point: other projects never see it."""
    from importlib import metadata

    assert not [ep for ep in metadata.entry_points(group="pytest11") if "toolscout" in ep.value]
    run = _pytest_in(tmp_path)
    assert run.returncode != 0
    assert "fixture 'toolscout_reference_index' not found" in run.stdout + run.stderr


def test_a_conftest_turns_the_plugin_on(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["toolscout.testing.plugin"]\n')
    run = _pytest_in(tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr


def test_every_plugin_fixture_is_prefixed() -> None:
    from toolscout.testing import plugin

    markers = ("_fixture_function_marker", "_pytestfixturefunction")  # pytest 8.4+, older
    fixtures = [
        name
        for name, value in vars(plugin).items()
        if any(hasattr(value, marker) for marker in markers)
    ]
    assert len(fixtures) == 3
    assert all(name.startswith("toolscout_") for name in fixtures), fixtures
