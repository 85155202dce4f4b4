"""The `toolscout` command, run in-process through `main(argv)`.

Core's tests run with no backend installed, so a throwaway plugin registers the reference
index (and a variant with options) as backends for the length of each test.
"""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any, ClassVar

import pytest
import toolscout
import toolscout.cli
import toolscout.loading
import toolscout.plugins
from toolscout.cli import DEMO_QUERIES, coerce_options, main, options_for, parse_options
from toolscout.options import IndexOptions
from toolscout.plugins import PluginRegistry, registry
from toolscout.progress import ProgressBar
from toolscout.savings import search_tool
from toolscout.testing import ReferenceToolIndex
from toolscout.tokens import tool_tokens
from toolscout.types import SearchMetadata, ToolSearchResponse

TOOLS = [
    {
        "name": "slack_send_message",
        "description": "Send a message to a Slack channel.",
        "input_schema": {
            "type": "object",
            "properties": {
                "channel": {"type": "string", "description": "Channel to post in."},
                "text": {"type": "string", "description": "Message text."},
            },
            "required": ["channel", "text"],
        },
    },
    {
        "name": "github_create_pull_request",
        "description": "Open a pull request on a GitHub repository.",
        "input_schema": {
            "type": "object",
            "properties": {"repo": {"type": "string"}, "head": {"type": "string"}},
        },
    },
    {
        "name": "get_weather_forecast",
        "description": "Weather forecast for a city, a few days ahead.",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
    {
        "name": "calendar_create_event",
        "description": "Schedule a meeting on a calendar.",
        "input_schema": {"type": "object", "properties": {"start": {"type": "string"}}},
    },
    {"name": "stripe_refund_payment", "description": "Refund a card payment to a customer."},
    {"name": "drive_upload_file", "description": "Upload a file to shared storage."},
]


class TunedIndex(ReferenceToolIndex):
    """The reference index with typed options, to check what the CLI hands a backend."""

    name: ClassVar[str] = "tuned"
    built: ClassVar[list[TunedIndex]] = []

    class Options(IndexOptions):
        boost: float = 0.0
        label: str = ""
        exact: bool = False

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.boost, self.label, self.exact = (
            self.options.boost,
            self.options.label,
            self.options.exact,
        )
        TunedIndex.built.append(self)


class _Plugin:
    @toolscout.hookimpl
    def register_backends(self, register: Callable[[type[Any]], None]) -> None:
        register(ReferenceToolIndex)
        register(TunedIndex)


@pytest.fixture(autouse=True)
def backends(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Register the test backends; run in an empty directory with no config from outside."""
    for key in [k for k in os.environ if k.upper().startswith("TOOLSCOUT_")]:
        monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    TunedIndex.built.clear()
    registry.register_plugin(_Plugin(), name="cli-test-backends")
    yield
    registry.unregister_plugin("cli-test-backends")


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    path = tmp_path / "tools.jsonl"
    path.write_text("\n".join(json.dumps(tool) for tool in TOOLS) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def demo_catalog(monkeypatch: pytest.MonkeyPatch, catalog: Path) -> None:
    """The shipped demo catalog, or the test catalog while core does not ship one yet."""
    try:
        with toolscout.cli.demo_catalog_path():
            return
    except toolscout.ToolscoutError:
        pass

    # Big enough that searching beats sending everything, as with the real demo catalog.
    path = catalog.with_name("demo_tools.jsonl")
    filler = [
        {
            "name": f"service_{i}_operation",
            "description": f"Perform operation number {i} on the internal service {i}.",
            "input_schema": {
                "type": "object",
                "properties": {"id": {"type": "string", "description": "Record id."}},
            },
        }
        for i in range(40)
    ]
    path.write_text("\n".join(json.dumps(t) for t in TOOLS + filler) + "\n", encoding="utf-8")

    @contextmanager
    def stand_in() -> Iterator[Path]:
        yield path

    monkeypatch.setattr(toolscout.cli, "demo_catalog_path", stand_in)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def assert_one_line_error(code: int, out: str, err: str, *needles: str) -> None:
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err


# --- backends -------------------------------------------------------------------------------


def test_backends_json_lists_name_distribution_version_and_capabilities(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = run_json(capsys, "backends")
    by_name = {row["name"]: row for row in data["backends"]}
    assert by_name["reference"] == {
        "name": "reference",
        "distribution": "local",
        "version": "",
        "capabilities": ["remove_tools", "metadata_filter", "min_score"],
    }
    assert "tuned" in by_name
    assert isinstance(data["failures"], list)


def test_backends_table_shows_each_backend(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "backends")
    assert code == 0
    header, *rows = out.splitlines()
    assert header.split() == ["name", "distribution", "version", "capabilities"]
    assert any(row.startswith("reference") and "remove_tools" in row for row in rows)


def test_backends_reports_a_plugin_that_fails_to_import(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A real installed distribution whose entry point names a module that does not exist.
    site = tmp_path / "site"
    info = site / "toolscout_broken-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toolscout-broken\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[toolscout]\nbroken = toolscout_broken_no_such_module\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(toolscout.plugins, "registry", PluginRegistry())
    data = run_json(capsys, "backends")
    failures = {f["plugin"]: f for f in data["failures"]}
    assert failures["broken"]["distribution"] == "toolscout-broken"
    assert "toolscout_broken_no_such_module" in failures["broken"]["error"]
    code, out, _err = run(capsys, "backends")
    assert code == 0
    assert "failed to load: plugin 'broken' from toolscout-broken" in out


def test_a_backend_whose_dependency_is_missing_is_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The plugin module imports fine; its hook imports the backend, whose dependency is gone.
    site = tmp_path / "site"
    info = site / "toolscout_hookfail-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: toolscout-hookfail\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[toolscout]\nhookfail = toolscout_hookfail_plugin\n", encoding="utf-8"
    )
    (site / "toolscout_hookfail_plugin.py").write_text(
        "import toolscout\n\n"
        "@toolscout.hookimpl\n"
        "def register_backends(register):\n"
        "    import toolscout_hookfail_missing_dependency  # noqa: F401\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(site))
    fresh = PluginRegistry()
    monkeypatch.setattr(toolscout.plugins, "registry", fresh)
    monkeypatch.setattr(toolscout.loading, "registry", fresh)
    code, out, err = run(capsys, "search", "x", "-b", "hookfail")
    assert_one_line_error(code, out, err, "toolscout_hookfail_missing_dependency")


# --- search ---------------------------------------------------------------------------------


def test_search_json_ranks_the_matching_tool_first(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    data = run_json(
        capsys, "search", "refund a payment", "--catalog", str(catalog), "--backend", "reference"
    )
    assert data["results"][0]["name"] == "stripe_refund_payment"
    assert all(set(hit) == {"name", "score", "confidence"} for hit in data["results"])
    scores = [hit["score"] for hit in data["results"]]
    assert scores == sorted(scores, reverse=True)


def test_search_says_how_confident_the_answer_is_and_how_many_tools_matched(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    argv = ["search", "refund a card payment", "--catalog", str(catalog), "-b", "reference"]
    data = run_json(capsys, *argv, "--max-results", "1")
    (hit,) = data["results"]
    assert 0.3 <= hit["confidence"] <= 1.0
    assert data["confidence"] == hit["confidence"]
    assert data["total_matches"] > 1  # "a" and "payment" match more than the one shown
    code, out, _err = run(capsys, *argv, "--max-results", "1")
    assert code == 0
    assert f"1. stripe_refund_payment  (score {hit['score']:.3g}, confidence " in out


def test_search_below_the_confidence_floor_says_so_and_how_to_see_the_nearest_tools(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    # "a" is in every tool's words for the reference engine: it matches, but says nothing.
    argv = ["search", "a", "--catalog", str(catalog), "-b", "reference"]
    nearest = run_json(capsys, *argv, "-o", "min_confidence=0")
    assert nearest["results"] and nearest["confidence"] < 0.3
    data = run_json(capsys, *argv)
    assert data["results"] == [] and data["total_matches"] == 0
    assert data["confidence"] == nearest["confidence"]
    # --json says what the text says: why it is empty, and that nothing was saved.
    assert data["empty_reason"] == "below_confidence" and nearest["empty_reason"] is None
    assert data["tokens"]["saved_tokens"] == 0 and data["tokens"]["saved_percent"] == 0.0
    # A floor just above the confidence: the number shown is below the floor shown.
    floor = nearest["confidence"] + 1e-4
    code, out, _err = run(capsys, *argv, "-o", f"min_confidence={floor}")
    assert code == 0
    line = out.splitlines()[1]
    assert line.startswith("  no tool fits well enough: confidence ")
    assert line.endswith(
        f"below min_confidence {floor:g} (-o min_confidence=0 shows the nearest tools)"
    )
    shown = float(line.split("confidence ")[1].split(",")[0])
    assert shown < floor
    assert "no tool matched" not in out


@pytest.mark.parametrize(
    ("confidence", "floor", "shown"),
    [(0.2134, 0.3, "0.21"), (0.2996, 0.3, "0.2996"), (0.29951, 0.2996, "0.2995")],
)
def test_a_confidence_just_below_the_floor_is_not_rounded_up_to_it(
    confidence: float, floor: float, shown: str
) -> None:
    response = ToolSearchResponse((), 0, SearchMetadata("reference", 0.0), confidence)
    assert toolscout.cli._why_empty(response, floor).startswith(
        f"no tool fits well enough: confidence {shown}, below min_confidence {floor:g} "
    )


def test_search_names_the_query_words_no_tool_has(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    argv = ["search", "refund a payment in bitcoin", "--catalog", str(catalog), "-b", "reference"]
    assert run_json(capsys, *argv)["unmatched_words"] == ["bitcoin"]
    code, out, _err = run(capsys, *argv)
    assert code == 0
    assert "  no tool mentions: 'bitcoin'\n" in out
    assert (
        run_json(
            capsys, "search", "refund a payment", "--catalog", str(catalog), "-b", "reference"
        )["unmatched_words"]
        == []
    )


def test_search_counts_the_tokens_it_saved(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    data = run_json(
        capsys, "search", "weather forecast", "--catalog", str(catalog), "-b", "reference"
    )
    tools = toolscout.load_catalog(catalog)
    returned = [t for t in tools if t.name in {hit["name"] for hit in data["results"]}]
    tokens = data["tokens"]
    assert tokens["catalog_tokens"] == tool_tokens(tools)
    assert tokens["sent_tokens"] == tool_tokens([search_tool(), *returned])
    assert tokens["saved_tokens"] == tokens["catalog_tokens"] - tokens["sent_tokens"]
    assert tokens["returned_tools"] == len(returned)


def test_search_max_results_caps_the_results(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    # "a" is in every tool's words for the reference engine; it says nothing, so the
    # confidence floor (which would answer it with nothing) is off here.
    argv = ["search", "a", "--catalog", str(catalog), "-b", "reference"]
    argv += ["--option", "min_confidence=0"]
    assert len(run_json(capsys, *argv)["results"]) > 1
    assert len(run_json(capsys, *argv, "--max-results", "1")["results"]) == 1


def test_search_prints_hits_and_savings_for_people(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    code, out, _err = run(
        capsys, "search", "upload a file", "--catalog", str(catalog), "-b", "reference"
    )
    assert code == 0
    assert "1. drive_upload_file" in out
    assert "tokens (o200k_base): sent" in out


def test_the_search_header_does_not_read_as_a_match_count(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    """Issue 38, 14: "3 of 317 tools" read as "3 tools matched"; the header says these are
    the best few shown of the catalog's tools."""
    argv = ["search", "upload a file", "--catalog", str(catalog), "-b", "reference"]
    code, out, _err = run(capsys, *argv, "-n", "2", "-o", "min_confidence=0")
    header = out.splitlines()[0]
    assert (
        header == f"'upload a file': the best 2 of the {len(TOOLS)} tools in {catalog} (reference)"
    )
    code, out, _err = run(capsys, *argv, "-n", "1")
    assert code == 0
    assert out.splitlines()[0].startswith("'upload a file': the best one of the ")
    _code, out, _err = run(
        capsys, "search", "zzzz qqqq", "--catalog", str(catalog), "-b", "reference"
    )
    assert out.splitlines()[0] == (
        f"'zzzz qqqq': none shown of the {len(TOOLS)} tools in {catalog} (reference)"
    )


class _Hits(list[Any]):
    confidence: float | None = 0.9


def _hit(name: str, confidence: float | None) -> Any:
    from types import SimpleNamespace

    return SimpleNamespace(name=name, score=0.34, confidence=confidence, summary="")


@pytest.mark.parametrize(
    ("confidences", "noted"),
    [
        ([0.52, 0.55, 0.55], True),  # the demo's bug-ticket search
        ([0.95, 0.91, 0.91], False),
        ([0.554, 0.551], False),  # equal as printed
        ([None, None], False),
        ([0.8], False),
    ],
)
def test_a_hit_above_a_more_confident_one_is_explained(
    confidences: list[float | None], noted: bool
) -> None:
    """Issue 38, 14: a hit of confidence 0.52 ranked above one of 0.55 had nothing to say
    why; the hits are in the ranking's order, and confidence is judged per hit."""
    out = io.StringIO()
    toolscout.cli._write_hits(_Hits(_hit(f"tool_{n}", c) for n, c in enumerate(confidences)), out)
    assert (toolscout.cli.ORDER_NOTE in out.getvalue()) is noted


def test_the_demo_explains_its_order_where_confidence_rises(
    capsys: pytest.CaptureFixture[str],
) -> None:
    if "regex" not in registry.backends():
        pytest.skip("the demo's own backend, regex, is not installed")
    data = run_json(capsys, "demo", "-b", "regex")
    code, out, _err = run(capsys, "demo", "-b", "regex")
    assert code == 0
    blocks = out.split("\n> ")[1:]
    for search, block in zip(data["searches"], blocks, strict=True):
        shown = [round(r["confidence"], 2) for r in search["results"] if r["confidence"]]
        rises = any(b > a for a, b in pairwise(shown))
        assert (toolscout.cli.ORDER_NOTE in block) is rises, search["query"]


def test_search_on_a_catalog_smaller_than_the_search_tool_says_it_costs_more(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    catalog = tmp_path / "one.json"
    catalog.write_text(json.dumps([{"name": "ping", "description": "Ping."}]))
    code, out, _err = run(capsys, "search", "ping", "--catalog", str(catalog), "-b", "reference")
    assert code == 0
    savings = out.strip().splitlines()[-1]
    assert "for all 1 tool:" in savings and "more than sending every tool" in savings
    assert "saved" not in savings and "-" not in savings.split(":", 1)[1]


def test_search_uses_the_configured_backend(
    capsys: pytest.CaptureFixture[str], catalog: Path, tmp_path: Path
) -> None:
    (tmp_path / "toolscout.toml").write_text('backend = "tuned"\n', encoding="utf-8")
    data = run_json(capsys, "search", "weather", "--catalog", str(catalog))
    assert data["backend"] == "tuned"
    assert len(TunedIndex.built) == 1


def test_search_without_catalog_searches_the_demo_catalog(
    capsys: pytest.CaptureFixture[str], demo_catalog: None
) -> None:
    data = run_json(capsys, "search", "send a message to a channel", "-b", "reference")
    assert data["results"]
    assert data["tokens"]["saved_tokens"] > 0


# --- options --------------------------------------------------------------------------------


def test_options_are_parsed_as_json_when_they_parse(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    run_json(
        capsys,
        "search", "weather", "--catalog", str(catalog), "-b", "tuned",
        "--option", "boost=0.5", "--option", "exact=true", "-o", "label=weather desk",
    )  # fmt: skip
    (index,) = TunedIndex.built
    assert (index.boost, index.exact, index.label) == (0.5, True, "weather desk")


def test_an_option_typed_as_text_stays_text(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    run_json(
        capsys, "search", "weather", "--catalog", str(catalog), "-b", "tuned", "-o", "label=2024"
    )
    assert TunedIndex.built[0].label == "2024"


def test_options_layer_on_top_of_config(
    capsys: pytest.CaptureFixture[str], catalog: Path, tmp_path: Path
) -> None:
    (tmp_path / "toolscout.toml").write_text(
        '[backends.tuned]\nlabel = "from config"\nboost = 2.0\n', encoding="utf-8"
    )
    run_json(capsys, "search", "weather", "--catalog", str(catalog), "-b", "tuned", "-o", "boost=3")
    (index,) = TunedIndex.built
    assert (index.label, index.boost) == ("from config", 3.0)


def test_an_unknown_option_is_one_line_naming_it(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    code, out, err = run(
        capsys, "search", "x", "--catalog", str(catalog), "-b", "tuned", "-o", "bost=1"
    )
    assert_one_line_error(code, out, err, "bost", "did you mean 'boost'")


def test_an_option_without_equals_sign_is_rejected(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    code, out, err = run(
        capsys, "search", "x", "--catalog", str(catalog), "-b", "tuned", "-o", "boost"
    )
    assert_one_line_error(code, out, err, "KEY=VALUE", "'boost'")


def test_an_option_without_equals_sign_never_echoes_a_password() -> None:
    with pytest.raises(ValueError, match="KEY=VALUE") as raised:
        parse_options(["postgresql://searcher:hunter2@db.internal/tools"])
    assert "hunter2" not in str(raised.value)


def test_option_helpers() -> None:
    assert parse_options(["a=1", "b=x=y", "a=2"]) == {"a": "2", "b": "x=y"}
    scoped = options_for(
        "tuned", {"k": "1", "tuned.boost": "2", "reference.q": "3"}, ["tuned", "reference"]
    )
    assert scoped == {"k": "1", "boost": "2"}
    assert coerce_options({"n": "5", "on": "false", "s": "text"}, None) == {
        "n": 5,
        "on": False,
        "s": "text",
    }


# --- errors ---------------------------------------------------------------------------------


def test_an_unknown_backend_is_one_line_listing_installed_ones(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    code, out, err = run(capsys, "search", "x", "--catalog", str(catalog), "-b", "nosuch")
    assert_one_line_error(code, out, err, "unknown backend 'nosuch'", "reference")


def test_a_first_party_backend_not_installed_names_the_pip_line(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    if "lancedb" in registry.backends():
        pytest.skip("toolscout-lancedb is installed here")
    code, out, err = run(capsys, "search", "x", "--catalog", str(catalog), "-b", "lancedb")
    assert_one_line_error(code, out, err, "pip install toolscout-lancedb")


def test_a_missing_catalog_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    code, out, err = run(capsys, "search", "x", "--catalog", str(missing), "-b", "reference")
    assert_one_line_error(code, out, err, "not found", "nope.jsonl")


def test_bad_catalog_json_is_one_line_with_the_line_number(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(TOOLS[0]) + "\n{oops\n", encoding="utf-8")
    code, out, err = run(capsys, "search", "x", "--catalog", str(path), "-b", "reference")
    assert_one_line_error(code, out, err, "bad.jsonl:2", "invalid JSON")


@pytest.mark.parametrize("value", ["0", "-3", "many"])
def test_a_bad_max_results_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], catalog: Path, value: str
) -> None:
    code, out, err = run(capsys, "search", "x", "--catalog", str(catalog), "--max-results", value)
    assert_one_line_error(code, out, err, "--max-results", "--help")


def test_a_bad_config_file_is_one_line(
    capsys: pytest.CaptureFixture[str], catalog: Path, tmp_path: Path
) -> None:
    (tmp_path / "toolscout.toml").write_text("max_result = 3\n", encoding="utf-8")
    code, out, err = run(capsys, "search", "x", "--catalog", str(catalog), "-b", "reference")
    assert_one_line_error(code, out, err, "max_result", "max_results")


def test_no_command_is_a_usage_error_with_the_help_on_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys)
    assert code == 2
    assert out == ""  # a script reading stdout gets nothing to mistake for output
    assert "backends" in err and "search" in err and "completion" in err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "--version")
    assert code == 0
    assert out.strip() == f"toolscout {toolscout.__version__}"


def test_the_command_line_entry_point_exits_cleanly_on_bad_input(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "toolscout.cli", "search", "x", "--catalog", "missing.jsonl"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


# --- demo -----------------------------------------------------------------------------------


def test_demo_runs_every_search_and_reports_savings(
    capsys: pytest.CaptureFixture[str], demo_catalog: None
) -> None:
    code, out, _err = run(capsys, "demo", "-b", "reference")
    assert code == 0
    for query in DEMO_QUERIES:
        assert f"> {query}" in out
    assert out.count("saved") == len(DEMO_QUERIES)
    assert "fewer" in out


def test_demo_json_has_one_entry_per_search(
    capsys: pytest.CaptureFixture[str], demo_catalog: None
) -> None:
    data = run_json(capsys, "demo", "-b", "reference", "--max-results", "2")
    assert [s["query"] for s in data["searches"]] == list(DEMO_QUERIES)
    assert all(len(s["results"]) <= 2 for s in data["searches"])
    assert all(s["tokens"]["catalog_tokens"] == data["catalog_tokens"] for s in data["searches"])


# --- eval -----------------------------------------------------------------------------------


@pytest.fixture
def queries(tmp_path: Path) -> Path:
    path = tmp_path / "queries.jsonl"
    rows = [
        {"query": "weather forecast for a city", "relevant": ["get_weather_forecast"]},
        {"query": "refund a card payment", "relevant": ["stripe_refund_payment"]},
        {"query": "zzzz qqqq", "relevant": ["drive_upload_file"], "category": "unanswerable"},
    ]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    return path


EVAL_KEYS = {"backend", "queries", "hit@5", "recall@5", "ndcg@10", "mrr@10"}
EVAL_KEYS |= {"p50_ms", "p99_ms", "index_s", "answered", "abstained", "infeasible"}


def test_eval_json_reports_the_metrics_of_each_backend(
    capsys: pytest.CaptureFixture[str], catalog: Path, queries: Path
) -> None:
    data = run_json(
        capsys, "eval", "--catalog", str(catalog), "--queries", str(queries),
        "-b", "reference", "-b", "tuned",
    )  # fmt: skip
    assert [r["backend"] for r in data["results"]] == ["reference", "tuned"]
    for result in data["results"]:
        assert set(result) == EVAL_KEYS
        assert result["queries"] == 3
        # Two of three queries find their tool first; the third finds nothing.
        assert result["hit@5"] == pytest.approx(0.6667)
        assert result["mrr@10"] == pytest.approx(0.6667)
        assert 0 <= result["p50_ms"] <= result["p99_ms"]


@pytest.mark.parametrize("flag", ["--queries", "--infeasible"])
@pytest.mark.parametrize("indent", [None, 2])
def test_eval_given_a_json_array_says_it_wants_jsonl(
    capsys: pytest.CaptureFixture[str],
    catalog: Path,
    queries: Path,
    tmp_path: Path,
    flag: str,
    indent: int | None,
) -> None:
    """Issue 38, 14: a JSON array (on one line or pretty-printed) is named as such, with
    the line format the file needs, not "invalid JSON: Expecting value"."""
    rows = [{"query": "weather forecast for a city", "relevant": ["get_weather_forecast"]}]
    if flag == "--infeasible":
        rows = [{"query": "bake a sourdough loaf", "kind": "tool_absent"}]
    array = tmp_path / "array.json"
    array.write_text(json.dumps(rows, indent=indent) + "\n", encoding="utf-8")
    argv = ["eval", "--catalog", str(catalog), "--queries", str(queries), "-b", "reference"]
    code, out, err = run(capsys, *argv, flag, str(array))
    assert_one_line_error(code, out, err, f"{array} holds a JSON array", "JSONL")
    assert "one JSON object per line" in err and "jq -c '.[]'" in err
    assert "invalid JSON" not in err


def test_eval_reports_answered_and_abstention_per_kind_of_infeasible_query(
    capsys: pytest.CaptureFixture[str], catalog: Path, queries: Path, tmp_path: Path
) -> None:
    infeasible = tmp_path / "infeasible.jsonl"
    rows = [
        {"query": "bake a sourdough loaf", "relevant": [], "kind": "tool_absent"},
        {"query": "knit a chunky wool scarf", "relevant": [], "kind": "no_tool_needed"},
    ]
    infeasible.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    argv = ["eval", "--catalog", str(catalog), "--queries", str(queries), "-b", "reference"]
    code, out, _err = run(capsys, *argv, "--infeasible", str(infeasible))
    assert code == 0
    assert "answered" in out and "abstained:tool_absent" in out
    assert "abstained:no_tool_needed" in out and "abstained:all" in out
    result = run_json(capsys, *argv, "--infeasible", str(infeasible))["results"][0]
    # The query "zzzz qqqq" matches nothing: two of three answerable queries keep a result.
    assert result["answered"] == pytest.approx(0.6667)
    assert result["abstained"] == {"tool_absent": 1.0, "no_tool_needed": 1.0, "all": 1.0}
    assert result["infeasible"] == {"tool_absent": 1, "no_tool_needed": 1, "all": 2}


def test_eval_limit_queries_scores_the_first_n(
    capsys: pytest.CaptureFixture[str], catalog: Path, queries: Path
) -> None:
    data = run_json(
        capsys, "eval", "--catalog", str(catalog), "--queries", str(queries), "-b", "reference",
        "--limit-queries", "2",
    )  # fmt: skip
    assert data["results"][0]["queries"] == 2
    assert data["results"][0]["hit@5"] == 1.0


def test_eval_scoped_options_reach_only_their_backend(
    capsys: pytest.CaptureFixture[str], catalog: Path, queries: Path
) -> None:
    # An unscoped `boost` would make the reference index (which takes no options) fail.
    data = run_json(
        capsys, "eval", "--catalog", str(catalog), "--queries", str(queries),
        "-b", "reference", "-b", "tuned", "-o", "tuned.boost=1.5",
    )  # fmt: skip
    assert len(data["results"]) == 2
    assert TunedIndex.built[0].boost == 1.5


def test_eval_table_for_people(
    capsys: pytest.CaptureFixture[str], catalog: Path, queries: Path
) -> None:
    code, out, _err = run(
        capsys, "eval", "--catalog", str(catalog), "--queries", str(queries), "-b", "reference"
    )
    assert code == 0
    header, row = out.splitlines()
    assert header.split()[:3] == ["backend", "queries", "hit@5"]
    assert row.split()[:3] == ["reference", "3", "0.667"]


def test_eval_notes_relevant_tools_missing_from_the_catalog(
    capsys: pytest.CaptureFixture[str], catalog: Path, tmp_path: Path
) -> None:
    path = tmp_path / "other.jsonl"
    path.write_text('{"query": "weather", "relevant": ["not_in_catalog"]}\n', encoding="utf-8")
    code, _out, err = run(
        capsys, "eval", "--catalog", str(catalog), "--queries", str(path), "-b", "reference"
    )
    assert code == 0
    assert "1 of 1 queries name relevant tools that are not in" in err


def test_eval_bad_queries_file_is_one_line(
    capsys: pytest.CaptureFixture[str], catalog: Path, tmp_path: Path
) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"query": "x", "relevant": ["a"]}\n{"query": "y", "match": "most"}\n', encoding="utf-8"
    )
    code, out, err = run(
        capsys, "eval", "--catalog", str(catalog), "--queries", str(path), "-b", "reference"
    )
    assert_one_line_error(code, out, err, "q.jsonl:2", "match")
    code, out, err = run(
        capsys, "eval", "--catalog", str(catalog), "--queries", str(tmp_path / "none.jsonl")
    )
    assert_one_line_error(code, out, err, "none.jsonl")


def test_eval_requires_catalog_and_queries(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "eval", "-b", "reference")
    assert_one_line_error(code, out, err, "--catalog", "--queries")


# --- progress bar ---------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_draws_on_a_terminal() -> None:
    stream = _Terminal()
    bar = ProgressBar(4, "queries", stream=stream)
    bar.update(2)
    bar.update(4)
    bar.close()
    text = stream.getvalue()
    assert "[" + "#" * 15 + "." * 15 + "] 2/4 queries" in text
    assert "[" + "#" * 30 + "] 4/4 queries" in text


def test_progress_bar_is_silent_when_not_a_terminal() -> None:
    stream = io.StringIO()
    bar = ProgressBar(4, "queries", stream=stream)
    bar.message("indexing")
    bar.update(4)
    bar.close()
    assert stream.getvalue() == ""


# --- hostile input: one line and status 2, never a traceback or a flood ---------------------


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
def test_a_blank_query_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], catalog: Path, query: str
) -> None:
    code, out, err = run(capsys, "search", query, "--catalog", str(catalog), "-b", "reference")
    assert_one_line_error(code, out, err, "the query is empty", 'toolscout search "')


def test_a_long_query_is_cut_short_in_the_header(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    query = "weather forecast " * 900  # 15,300 characters: under core's limit, so it runs
    code, out, _err = run(capsys, "search", query, "--catalog", str(catalog), "-b", "reference")
    assert code == 0
    header = out.splitlines()[0]
    assert len(header) - len(str(catalog)) < 150 and "(15,300 characters)" in header
    assert "get_weather_forecast" in out
    assert len(out) < 2_000


def test_a_query_over_the_limit_is_one_short_line(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    query = "q" * 100_000
    code, out, err = run(capsys, "search", query, "--catalog", str(catalog), "-b", "reference")
    assert_one_line_error(code, out, err, "100,000 characters", "16,384")
    assert len(err) < 300


def test_eval_with_a_missing_queries_file_names_it_in_one_line(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    code, out, err = run(
        capsys, "eval", "--catalog", str(catalog), "--queries", "missing.jsonl", "-b", "reference"
    )
    assert_one_line_error(code, out, err, "queries file not found: missing.jsonl")
    assert "Errno" not in err


def _nested_json(depth: int) -> str:
    return '{"type": "object", "properties": {"p": ' * depth + "{}" + "}}" * depth


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_catalog_nested_past_pythons_recursion_limit_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str
) -> None:
    path = tmp_path / f"deep{suffix}"
    path.write_text(f'{{"name": "deep", "input_schema": {_nested_json(5_000)}}}\n')
    code, out, err = run(capsys, "search", "x", "--catalog", str(path), "-b", "reference")
    assert_one_line_error(code, out, err, f"deep{suffix}", "nested too deeply", "64 levels")


def test_a_queries_file_nested_past_the_recursion_limit_is_one_line(
    capsys: pytest.CaptureFixture[str], catalog: Path, tmp_path: Path
) -> None:
    path = tmp_path / "deep_queries.jsonl"
    path.write_text(f'{{"query": "x", "relevant": {_nested_json(5_000)}}}\n')
    code, out, err = run(
        capsys, "eval", "--catalog", str(catalog), "--queries", str(path), "-b", "reference"
    )
    assert_one_line_error(code, out, err, "deep_queries.jsonl:1", "nested too deeply")


# --- issue 24: a closed pipe, nothing found, warnings, bad pyproject (5, 10, 15) ------------


class _ClosedPipe(io.StringIO):
    """A stdout whose reader left: every write fails as a closed pipe does."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_that_leaves_the_pipe_ends_the_command_quietly_with_status_0(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert main(["search", "weather", "--catalog", str(catalog), "-b", "reference"]) == 0
    assert capsys.readouterr().err == ""


def test_a_search_that_finds_nothing_says_nothing_was_saved(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    code, out, _err = run(capsys, "search", "zzqxv", "--catalog", str(catalog), "-b", "reference")
    assert code == 0
    assert "no tool matched" in out
    assert out.splitlines()[-1].endswith(
        "no tool found, so no tool definitions sent; nothing saved"
    )
    assert "saved " not in out


class _NoisyIndex(ReferenceToolIndex):
    """The reference index, logging what a backend with a failing cache logs."""

    name: ClassVar[str] = "noisy"

    def search(self, request: Any) -> Any:
        for _ in range(3):  # a cache that fails on every batch
            logging.getLogger("toolscout.embedders").warning("the cache at %s failed", "/x")
        logging.getLogger("toolscout_noisy.engine").warning("a plugin's own warning")
        logging.getLogger("toolscout.embedders").info("not a warning")
        logging.getLogger("urllib3").warning("another library's warning")
        return super().search(request)


class _NoisyPlugin:
    @toolscout.hookimpl
    def register_backends(self, register: Callable[[type[Any]], None]) -> None:
        register(_NoisyIndex)


@pytest.fixture
def noisy() -> Iterator[None]:
    registry.register_plugin(_NoisyPlugin(), name="cli-test-noisy")
    yield
    registry.unregister_plugin("cli-test-noisy")


def test_toolscout_warnings_reach_the_user_once_per_run(
    capsys: pytest.CaptureFixture[str], catalog: Path, noisy: None
) -> None:
    code, out, err = run(capsys, "search", "weather", "--catalog", str(catalog), "-b", "noisy")
    assert code == 0 and "get_weather_forecast" in out
    assert err.splitlines() == [
        "toolscout: warning: the cache at /x failed",
        "toolscout: warning: a plugin's own warning",
    ]


def test_a_failing_command_prints_its_error_alone(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, noisy: None
) -> None:
    missing = tmp_path / "missing.json"
    logging.getLogger("toolscout.plugins").warning("a warning before the failure")
    code, out, err = run(capsys, "search", "weather", "--catalog", str(missing), "-b", "noisy")
    assert_one_line_error(code, out, err, "missing.json")


def test_a_warning_with_a_secret_reaches_the_user_redacted(
    capsys: pytest.CaptureFixture[str], catalog: Path, noisy: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def leaky(self: Any, request: Any) -> Any:
        logging.getLogger("toolscout.x").warning(
            "cannot reach %s", "postgresql://app:pw-secret-1@db/tools"
        )
        return ReferenceToolIndex.search(self, request)

    monkeypatch.setattr(_NoisyIndex, "search", leaky)
    code, _out, err = run(capsys, "search", "weather", "--catalog", str(catalog), "-b", "noisy")
    assert code == 0 and "cannot reach" in err and "pw-secret-1" not in err


def test_a_damaged_token_count_cache_is_a_warning_naming_the_fix(
    capsys: pytest.CaptureFixture[str], catalog: Path, tmp_path: Path
) -> None:
    from toolscout import tokens

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TOOLSCOUT_CACHE_DIR", str(tmp_path / "cache"))
        (tmp_path / "cache" / "tokens").mkdir(parents=True)
        (tmp_path / "cache" / "tokens" / "counts.sqlite3").write_bytes(os.urandom(5000))
        tokens._CACHE.forget(close=True)  # this process opens the file again
        try:
            code, _out, err = run(
                capsys, "search", "weather", "--catalog", str(catalog), "-b", "reference"
            )
        finally:
            tokens._CACHE.forget(close=True)
    assert code == 0
    (line,) = err.splitlines()
    assert line.startswith("toolscout: warning: the token-count cache at ")
    assert "damaged" in line and "`toolscout cache clear tokens` removes it" in line


@pytest.mark.parametrize(
    "pyproject",
    ['[tool]\ntoolscout = "regex"\n', 'tool = "x"\n', "[tool]\ntoolscout = [1, 2]\n"],
)
@pytest.mark.parametrize("argv", [["search", "weather"], ["demo"], ["cache", "show"]])
def test_a_pyproject_whose_tool_table_is_not_a_table_is_one_line(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    demo_catalog: None,
    pyproject: str,
    argv: list[str],
) -> None:
    (tmp_path / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    code, out, err = run(capsys, *argv)
    assert_one_line_error(code, out, err, str(tmp_path / "pyproject.toml"), "must be a table")


class _ServePlugin:
    """A plugin command that warns, then fails, succeeds or keeps serving a while."""

    @toolscout.hookimpl
    def register_commands(self, subparsers: Any) -> None:
        serve = subparsers.add_parser("serve-test")
        serve.add_argument("outcome", choices=["fail", "ok", "serve"])
        serve.set_defaults(handler=self.run)

    @staticmethod
    def run(args: Any, out: Any) -> int:
        logging.getLogger("toolscout_serve_test").warning("an upstream is unreachable")
        if args.outcome == "fail":
            sys.stderr.write("toolscout serve-test: error: no servers\n")
            return 2
        if args.outcome == "serve":
            time.sleep(0.5)  # serving: the warning must not wait for the end
            out.write(f"served ({'warned' if 'unreachable' in _stderr_so_far() else 'held'})\n")
        return 0


def _stderr_so_far() -> str:
    return sys.stderr.getvalue() if isinstance(sys.stderr, io.StringIO) else ""


@pytest.mark.parametrize(
    ("outcome", "err", "out"),
    [
        ("fail", ["toolscout serve-test: error: no servers"], ""),
        ("ok", ["toolscout: warning: an upstream is unreachable"], ""),
        ("serve", ["toolscout: warning: an upstream is unreachable"], "served (warned)\n"),
    ],
)
def test_a_plugin_commands_warnings_are_shown_live_unless_it_fails_at_once(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    outcome: str,
    err: list[str],
    out: str,
) -> None:
    monkeypatch.setattr(toolscout.cli, "PLUGIN_COMMAND_HOLD_S", 0.1)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    registry.register_plugin(_ServePlugin(), name="cli-test-serve")
    try:
        code = main(["serve-test", outcome])
    finally:
        registry.unregister_plugin("cli-test-serve")
    assert code == (2 if outcome == "fail" else 0)
    stderr = sys.stderr.getvalue()  # type: ignore[attr-defined]
    assert [line for line in stderr.splitlines() if "fixture" not in line] == err
    assert capsys.readouterr().out == out


def test_config_prints_each_setting_with_its_source(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 38, 13: `toolscout config` says which file was found (up from the working
    directory), each setting's value and where it came from, secrets hidden."""
    for key in list(os.environ):
        if key.upper().startswith("TOOLSCOUT_") and key != "TOOLSCOUT_LOAD_PLUGINS":
            monkeypatch.delenv(key)
    (tmp_path / "pyproject.toml").write_text(
        "[tool.toolscout]\nmax_results = 7\n[tool.toolscout.backends.postgres]\n"
        'dsn = "postgresql://app:hunter2@db/tools"\n[tool.toolscout.embedders.openai]\n'
        'api_key = "sk-very-secret"\n',
        encoding="utf-8",
    )
    (tmp_path / "app").mkdir()
    monkeypatch.chdir(tmp_path / "app")
    monkeypatch.setenv("TOOLSCOUT_MAX_ITERATIONS", "4")
    code, out, err = run(capsys, "config")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "config files: ../pyproject.toml"
    assert "max_results = 7" in out and "# ../pyproject.toml [tool.toolscout]" in out
    assert any(x.startswith("max_iterations = 4 ") and x.endswith("# TOOLSCOUT_MAX_ITERATIONS")
               for x in lines)  # fmt: skip
    assert any(x.startswith("max_results_limit = 20 ") and x.endswith("# default") for x in lines)
    assert "hunter2" not in out and "sk-very-secret" not in out
    assert 'embedders.openai.api_key = "***"' in out
    data = run_json(capsys, "config")
    assert data["files"] == [str(tmp_path / "pyproject.toml")]
    rows = {row["key"]: row for row in data["settings"]}
    assert rows["max_iterations"]["source"] == "TOOLSCOUT_MAX_ITERATIONS"
    assert "hunter2" not in json.dumps(data) and "sk-very-secret" not in json.dumps(data)


def test_config_without_a_file_says_where_it_looked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    monkeypatch.chdir(tmp_path / "src")
    code, out, err = run(capsys, "config")
    assert code == 0, err
    assert out.splitlines()[0] == (
        "config files: none (no toolscout.toml, nor pyproject.toml with [tool.toolscout], "
        "here or above up to the repository root ..)"
    )


@pytest.mark.parametrize("command", ["search", "eval"])
def test_a_bad_file_is_named_before_a_backend_is_chosen(
    capsys: pytest.CaptureFixture[str],
    catalog: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    """With no backend configured and no regex, several installed backends are an error
    (issue 38, 11); a missing file is still the error a command reports first."""
    monkeypatch.setattr(toolscout.loading, "chosen_backend", _no_choice)
    missing = str(tmp_path / "none.jsonl")
    argv = ["search", "x", "--catalog", missing]
    if command == "eval":
        argv = ["eval", "--catalog", str(catalog), "--queries", missing]
    code, out, err = run(capsys, *argv)
    assert_one_line_error(code, out, err, "none.jsonl")


def _no_choice(settings: Any) -> str:
    raise toolscout.UnknownBackendError("no backend is configured (test)")
