"""The backend is found by name through the plugin system and validates its options."""

from __future__ import annotations

import subprocess
import sys

import pytest
import toolscout
from regex_helpers import CATALOG, SESSION
from toolscout import ConfigError, ToolSearchRequest
from toolscout.analysis import analyzer
from toolscout_regex import RegexToolIndex


def test_load_index_by_name_returns_a_working_regex_index() -> None:
    index = toolscout.load_index("regex")
    assert isinstance(index, RegexToolIndex)
    index.index_tools(SESSION, CATALOG)
    assert index.search(ToolSearchRequest(SESSION, "^github_")).total_matches == 2


def test_options_are_passed_through_load_index() -> None:
    index = toolscout.load_index("regex", name_weight=5.0, timeout_ms=10)
    assert index.options.name_weight == 5.0
    assert index.options.timeout_ms == 10


@pytest.mark.parametrize(
    ("options", "key"), [({"name_weight": -1}, "name_weight"), ({"nmae_weight": 1}, "nmae_weight")]
)
def test_bad_options_are_config_errors_naming_the_key(options: dict[str, object], key: str) -> None:
    with pytest.raises(ConfigError, match=key):
        toolscout.load_index("regex", **options)


def test_the_plugin_module_imports_no_backend_code() -> None:
    code = (
        "import sys, toolscout_regex.plugin; "
        "print('toolscout_regex.index' in sys.modules, 'regex' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_the_constructor_validates_options_as_load_index_does() -> None:
    with pytest.raises(ConfigError, match="timeout_ms"):
        RegexToolIndex(timeout_ms=0)


@pytest.mark.parametrize("old", ["stemmer", "stopwords", "name_boost", "min_similarity"])
def test_old_option_spellings_are_config_errors(old: str) -> None:
    with pytest.raises(ConfigError, match=old):
        RegexToolIndex(**{old: 1})


def test_the_backend_keeps_its_own_defaults_in_the_shared_vocabulary() -> None:
    options = RegexToolIndex().options
    assert (options.name_weight, options.parameters_weight, options.description_weight) == (
        3.0,
        1.1,
        1.0,
    )
    assert (options.name_coverage_weight, options.prefix_weight) == (5.0, 0.5)
    assert (options.timeout_ms, options.max_pattern_length, options.max_results) == (
        100.0,
        200,
        5,
    )


def test_text_analysis_is_cores() -> None:
    assert RegexToolIndex(stemming=False).analyzer is analyzer(stemming=False, stop_words=True)
