"""The conventions of a Python CLI: `python -m toolscout`, shell completion, colour
(`--color`, `NO_COLOR`), `--catalog -`, examples in `--help`, exit statuses.

In-process through `main(argv)` where the behaviour is the command's; a real process or
shell where it is the process's (`python -m`) or the shell's (completion scripts).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import TOOLS, assert_one_line_error, run
from test_cli import backends as backends  # autouse: the reference backends, an empty cwd
from toolscout.color import Style, wants_color


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    path = tmp_path / "tools.jsonl"
    path.write_text("\n".join(json.dumps(tool) for tool in TOOLS) + "\n", encoding="utf-8")
    return path


class Terminal(io.StringIO):
    """A text stream that says it is a terminal, as a console's stdout does."""

    def isatty(self) -> bool:
        return True


def piped_stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    stream = io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stream)


# --- python -m toolscout --------------------------------------------------------------------


def test_python_dash_m_toolscout_runs_the_cli() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "toolscout", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("toolscout ")


# --- colour ---------------------------------------------------------------------------------


def test_auto_colours_a_terminal_only() -> None:
    assert wants_color(Terminal(), "auto", environ={}) is True
    assert wants_color(io.StringIO(), "auto", environ={}) is False


def test_no_color_turns_auto_colour_off_unless_empty() -> None:
    assert wants_color(Terminal(), "auto", environ={"NO_COLOR": "1"}) is False
    assert wants_color(Terminal(), "auto", environ={"NO_COLOR": ""}) is True
    assert wants_color(Terminal(), "auto", environ={"TERM": "dumb"}) is False


def test_force_color_colours_a_pipe_but_no_color_wins() -> None:
    assert wants_color(io.StringIO(), "auto", environ={"FORCE_COLOR": "1"}) is True
    both = {"FORCE_COLOR": "1", "NO_COLOR": "1"}
    assert wants_color(io.StringIO(), "auto", environ=both) is False


def test_the_flag_overrides_the_environment() -> None:
    assert wants_color(io.StringIO(), "always", environ={"NO_COLOR": "1"}) is True
    assert wants_color(Terminal(), "never", environ={"FORCE_COLOR": "1"}) is False


def test_a_style_that_is_off_leaves_text_alone() -> None:
    assert Style(False).bold("x") == "x"
    assert Style(True).bold("x") == "\x1b[1mx\x1b[0m"


def test_search_output_is_plain_when_piped_and_coloured_when_asked(
    capsys: pytest.CaptureFixture[str], catalog: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    argv = ["search", "refund a card payment", "--catalog", str(catalog), "-b", "reference"]
    code, plain, _err = run(capsys, *argv)
    assert code == 0 and "stripe_refund_payment" in plain
    assert "\x1b[" not in plain
    for flag in (["--color", "always", *argv], [*argv, "--color", "always"]):
        code, coloured, _err = run(capsys, *flag)
        assert code == 0
        assert "\x1b[1mstripe_refund_payment\x1b[0m" in coloured


def test_no_color_keeps_even_forced_output_plain(
    capsys: pytest.CaptureFixture[str], catalog: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    code, out, _err = run(capsys, "search", "refund", "--catalog", str(catalog), "-b", "reference")
    assert code == 0 and "\x1b[" not in out


def test_an_error_line_is_red_only_when_coloured(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--color", "always", "search", "x", "--catalog", "missing.json")
    assert_one_line_error(code, out, err, "\x1b[1;31merror:\x1b[0m", "missing.json")
    code, out, err = run(capsys, "search", "x", "--catalog", "missing.json")
    assert_one_line_error(code, out, err, "toolscout search: error: catalog file not found")


def test_a_bad_color_value_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--color", "sometimes", "backends")
    assert_one_line_error(code, out, err, "--color", "'sometimes'", "auto")


# --- --catalog - ----------------------------------------------------------------------------


def test_catalog_dash_reads_jsonl_from_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    piped_stdin(monkeypatch, "\n".join(json.dumps(tool) for tool in TOOLS) + "\n")
    code, out, err = run(
        capsys, "search", "refund a card payment", "--catalog", "-", "-b", "reference"
    )
    assert code == 0, err
    assert f"the {len(TOOLS)} tools in standard input" in out
    assert "stripe_refund_payment" in out


def test_catalog_dash_reads_a_json_list_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    piped_stdin(monkeypatch, json.dumps(TOOLS, indent=2))
    code, out, err = run(capsys, "search", "weather", "--catalog", "-", "-b", "reference", "--json")
    assert code == 0, err
    assert json.loads(out)["results"][0]["name"] == "get_weather_forecast"


def test_catalog_dash_with_bad_input_names_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    piped_stdin(monkeypatch, '{"name": "a", "description": "b"}\n{not json\n')
    code, out, err = run(capsys, "search", "weather", "--catalog", "-")
    assert_one_line_error(code, out, err, "standard input:2: invalid JSON")
    piped_stdin(monkeypatch, "")
    code, out, err = run(capsys, "search", "weather", "--catalog", "-")
    assert_one_line_error(code, out, err, "standard input: no catalog")


def test_catalog_dash_from_a_terminal_says_to_pipe_one_in(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    leader, follower = os.openpty()  # a real terminal, so nothing waits for typing
    try:
        with open(follower, encoding="utf-8", closefd=False) as terminal:
            monkeypatch.setattr(sys, "stdin", terminal)
            code, out, err = run(capsys, "search", "weather", "--catalog", "-")
    finally:
        os.close(leader)
        os.close(follower)
    assert_one_line_error(code, out, err, "standard input, which is a terminal", "< tools.jsonl")


# --- help and exit statuses -----------------------------------------------------------------


def test_search_help_ends_with_examples(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "search", "--help")
    assert code == 0
    examples = out[out.index("examples:") :]
    assert "--catalog -" in examples
    # RawDescriptionHelpFormatter: one example a line, as written.
    assert '  toolscout search "send a message to a channel"\n' in examples
    assert "exit status: 0" in examples


def test_a_search_that_finds_nothing_exits_0(
    capsys: pytest.CaptureFixture[str], catalog: Path
) -> None:
    code, out, _err = run(
        capsys, "search", "bake sourdough", "--catalog", str(catalog), "-b", "reference"
    )
    assert code == 0 and "none shown" in out


# --- completion -----------------------------------------------------------------------------


def script(capsys: pytest.CaptureFixture[str], shell: str, tmp_path: Path) -> Path:
    code, out, err = run(capsys, "completion", shell)
    assert code == 0, err
    path = tmp_path / f"completion.{shell}"
    path.write_text(out, encoding="utf-8")
    return path


#: Command lines to complete (the last word is being typed) and what each must offer.
CASES = [
    ("toolscout ", {"search", "demo", "eval", "completion", "cache"}),
    ("toolscout se", {"search"}),
    ("toolscout search x --ca", {"--catalog"}),
    ("toolscout search x -b ", {"reference", "tuned"}),
    ("toolscout search x --backend ", {"reference", "tuned"}),
    ("toolscout search x -o ", {"boost=", "label=", "min_score="}),
    ("toolscout --color ", {"always", "auto", "never"}),
    ("toolscout completion ", {"bash", "fish", "zsh"}),
    ("toolscout cache ", {"clear", "show"}),
    ("toolscout search -n 3 --ma", {"--max-results"}),
]


def _offered(lines: str) -> list[set[str]]:
    return [set(line.split()) for line in lines.splitlines()]


def test_bash_completes_commands_flags_backends_and_option_keys(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = script(capsys, "bash", tmp_path)
    probe = [f"source {path}"]
    for line, _wanted in CASES:
        words = line.split(" ")
        probe.append(
            f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}; "
            'COMPREPLY=(); _toolscout; echo "${COMPREPLY[*]}"'
        )
    result = subprocess.run(
        ["bash", "--norc", "-c", "\n".join(probe)], capture_output=True, text=True, check=True
    )
    for (line, wanted), offered in zip(CASES, _offered(result.stdout), strict=True):
        assert wanted <= offered, f"{line!r} offers {sorted(offered)}"
    assert result.stdout.splitlines()[1] == "search"  # only what the typed word begins


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_completes_the_same(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = script(capsys, "zsh", tmp_path)
    # Outside a completion widget `words` and `CURRENT` are plain variables, and compadd
    # prints what it would offer: the script's own logic runs in a real zsh.
    probe = ["compdef() { :; }", 'compadd() { print -r -- "${@:#-*}"; }', f"source {path}"]
    for line, _wanted in CASES:
        words = line.split(" ")
        probe.append(
            f"words=({' '.join(repr(w) for w in words)}); CURRENT={len(words)}; _toolscout"
        )
    result = subprocess.run(
        ["zsh", "-f", "-c", "\n".join(probe)], capture_output=True, text=True, check=True
    )
    offered = _offered(result.stdout)
    for (line, wanted), got in zip(CASES[:1] + CASES[3:8], offered[:1] + offered[3:8], strict=True):
        assert wanted <= got, f"{line!r} offers {sorted(got)}"


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completes_the_same(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = script(capsys, "fish", tmp_path)
    probe = [f"source {path}"]
    for line, _wanted in CASES:
        probe += [f"complete -C {json.dumps(line)}", "echo ---"]
    result = subprocess.run(
        ["fish", "--no-config", "-c", "; ".join(probe)], capture_output=True, text=True, check=True
    )
    answers = result.stdout.split("---\n")[: len(CASES)]
    for (line, wanted), answer in zip(CASES, answers, strict=True):
        offered = {row.split("\t")[0] for row in answer.splitlines()}
        assert wanted <= offered, f"{line!r} offers {sorted(offered)}"


def test_completion_for_an_unknown_shell_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "completion", "powershell")
    assert_one_line_error(code, out, err, "'powershell'", "bash")
