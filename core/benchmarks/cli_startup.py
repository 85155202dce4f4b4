"""Start-up time of the `toolscout` command, and the heavy modules it imports, fresh each run.

    python core/benchmarks/cli_startup.py                      # toolscout --help, 10 runs
    python core/benchmarks/cli_startup.py --runs 20 -- search "send a message" -b regex
    python core/benchmarks/cli_startup.py --importtime 15      # also the slowest imports

Runs the `toolscout` console script installed beside this interpreter (so run it with the
Python of the environment to measure, e.g. `.nox/integration/bin/python`, where every member
is installed) in a new process per run, after one warm-up run, and prints the wall time of
each run, then min and median. A second fresh process runs the same command line through
`toolscout.cli.main` and reports which heavy modules it left in `sys.modules`: `--help` must
import no backend module and no heavy dependency (the target is a median of at most 200 ms
with every member installed; see issue 14). It measures and prints; it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from typing import Any

#: Modules that `toolscout --help` must not import: backends and their engines.
HEAVY = (
    "toolscout_regex.index",
    "toolscout_duckdb.index",
    "toolscout_tantivy.index",
    "toolscout_lancedb.index",
    "regex",
    "duckdb",
    "tantivy",
    "lancedb",
    "pyarrow",
    "numpy",
    "torch",
    "sentence_transformers",
    "pydantic_settings",
)

TARGET_MS = 200.0

PROBE = """
import contextlib, io, json, sys
from importlib import metadata
import toolscout.cli
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = toolscout.cli.main({argv!r})
plugins = sorted(ep.module for ep in metadata.entry_points(group="toolscout"))
print(json.dumps({{
    "exit": code,
    "heavy": [m for m in {heavy!r} if m in sys.modules],
    "plugins": plugins,
    "plugin_modules": [m for m in plugins if m in sys.modules],
    "modules": len(sys.modules),
}}))
"""


def _command() -> list[str]:
    """The `toolscout` console script of this interpreter's environment."""
    script = shutil.which("toolscout", path=sysconfig.get_path("scripts"))
    if script is None:
        script = shutil.which("toolscout")
    if script is None:
        raise SystemExit("no `toolscout` console script found: install core first")
    return [script]


def _environment(bytecode: bool = True) -> dict[str, str]:
    """The caller's environment without TOOLSCOUT_* (every run sees the same settings).

    With `bytecode`, PYTHONDONTWRITEBYTECODE is dropped so that the warm-up run writes the
    `.pyc` caches an installed package normally has; otherwise each run would compile every
    module it imports from source, and measure the compiler.
    """
    environ = {k: v for k, v in os.environ.items() if not k.upper().startswith("TOOLSCOUT_")}
    if bytecode:
        environ.pop("PYTHONDONTWRITEBYTECODE", None)
    return environ


def time_runs(argv: list[str], runs: int, warmup: int, bytecode: bool) -> list[float]:
    """Wall seconds of each run of `toolscout ARGV`, a new process each time."""
    command = [*_command(), *argv]
    environ = _environment(bytecode)
    times = []
    for run in range(warmup + runs):
        start = time.perf_counter()
        subprocess.run(command, env=environ, stdout=subprocess.DEVNULL, check=False)
        elapsed = time.perf_counter() - start
        if run >= warmup:
            times.append(elapsed)
    return times


def probe(argv: list[str]) -> dict[str, Any]:
    """What `toolscout.cli.main(argv)` leaves in `sys.modules` of a fresh interpreter."""
    code = PROBE.format(argv=argv, heavy=HEAVY)
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=_environment(),
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return found


def slowest_imports(argv: list[str], count: int) -> list[tuple[int, str]]:
    """The `count` imports with the largest cumulative time (µs), from `-X importtime`."""
    code = f"import sys, toolscout.cli; sys.exit(toolscout.cli.main({argv!r}))"
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        env=_environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    rows = []
    for line in result.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _self, cumulative, name = line.removeprefix("import time:").split("|")
        rows.append((int(cumulative), name.rstrip()))
    return sorted(rows, reverse=True)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="timed runs (default 10)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs first (default 1)")
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="keep PYTHONDONTWRITEBYTECODE if set (every run then compiles from source)",
    )
    parser.add_argument(
        "--importtime", type=int, default=0, metavar="N", help="also print the N slowest imports"
    )
    parser.add_argument(
        "argv", nargs="*", default=["--help"], help="the toolscout command line (default --help)"
    )
    args = parser.parse_args()
    argv = args.argv or ["--help"]
    shown = " ".join(["toolscout", *argv])

    found = probe(argv)
    print(f"python {sys.version.split()[0]} at {sys.executable}")
    print(f"installed plugins: {', '.join(found['plugins']) or 'none'}")

    bytecode = not args.no_bytecode
    times = [t * 1e3 for t in time_runs(argv, args.runs, args.warmup, bytecode)]
    median = statistics.median(times)
    cached = "cached .pyc" if bytecode else "no .pyc written"
    print(
        f"\n{shown}: {len(times)} runs after {args.warmup} warm-up, a fresh process each ({cached})"
    )
    print("  runs (ms): " + ", ".join(f"{t:.0f}" for t in times))
    print(f"  min {min(times):.1f} ms, median {median:.1f} ms, max {max(times):.1f} ms")
    if argv == ["--help"]:
        verdict = "met" if median <= TARGET_MS else "NOT met"
        print(f"  target: median <= {TARGET_MS:.0f} ms with every member installed: {verdict}")

    heavy = found["heavy"]
    print(f"\nmodules after {shown}: {found['modules']} (exit status {found['exit']})")
    print(f"  plugin modules imported: {', '.join(found['plugin_modules']) or 'none'}")
    print(f"  heavy modules imported: {', '.join(heavy) or 'none'}")
    print(f"  (checked: {', '.join(HEAVY)})")

    if args.importtime:
        print(f"\nslowest imports of {shown} (cumulative, one run):")
        for micros, name in slowest_imports(argv, args.importtime):
            print(f"  {micros / 1e3:8.1f} ms  {name}")


if __name__ == "__main__":
    main()
