"""The `toolscout bench` command (also `python -m toolscout_bench`).

    toolscout bench [--quick] [--json] [--output docs/benchmarks.md | --no-report]
                    [--data DIR] [--backend NAME ...] [--option [NAME.]KEY=VALUE ...]
                    [--section quality|abstention|learning|scale|memory ...] [--dataset NAME ...]
                    [--sizes 100,1000] [--sessions 1,100] [--repeat N] [--budget SECONDS]

Without `--backend` every installed backend runs, plus the two references. Progress goes
to stderr; `--json` prints every figure on stdout. Bad input exits with status 2 and one
line on stderr.

Light on purpose: building the parser imports nothing but argparse, so `toolscout` can
register the command without loading the benchmark (matplotlib, bm25s) until it runs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from toolscout_bench import SECTIONS

__all__ = ["add_arguments", "add_command", "build_parser", "execute", "main"]

EXIT_USAGE = 2
EXIT_FAILED = 1

DEFAULT_OUTPUT = Path("docs/benchmarks.md")


class UsageError(Exception):
    """A command line the parser rejected."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def _counts(text: str) -> tuple[int, ...]:
    try:
        parts = [part.strip().replace("_", "") for part in text.split(",")]
        values = tuple(int(part) for part in parts if part)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated whole numbers (e.g. 100,1000), got {text!r}"
        ) from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected whole numbers of at least 1, got {text!r}")
    return tuple(sorted(set(values)))


def _at_least_one(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {text!r}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `toolscout bench`, on `parser`."""
    parser.add_argument("--quick", action="store_true", help="small samples (CI smoke run)")
    parser.add_argument("--json", action="store_true", help="print every figure as JSON")
    parser.add_argument(
        "--output",
        type=Path,
        default=DEFAULT_OUTPUT,
        metavar="PAGE.md",
        help="Markdown report; plots go to a folder named after it (default docs/benchmarks.md)",
    )
    parser.add_argument("--no-report", action="store_true", help="write no Markdown or plots")
    parser.add_argument(
        "--data",
        type=Path,
        metavar="DIR",
        help="evaluation data: a folder of data sets, each with tools.jsonl and queries.jsonl "
        "(default: $TOOLSCOUT_EVAL_DATA, else the first ../shared/eval above this folder)",
    )
    parser.add_argument(
        "--backend",
        "-b",
        action="append",
        metavar="NAME",
        help="backend to run; repeatable (default: every installed backend); the references "
        "bm25s and spring-regex always run",
    )
    parser.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="[NAME.]KEY=VALUE",
        help="backend option; NAME. scopes it to one backend; VALUE is JSON when it parses",
    )
    parser.add_argument(
        "--section",
        action="append",
        choices=SECTIONS,
        help="measure only these sections; repeatable (default: all)",
    )
    parser.add_argument("--dataset", action="append", metavar="NAME", help="data set; repeatable")
    parser.add_argument(
        "--sizes", type=_counts, metavar="N,N", help="catalog sizes to time and measure"
    )
    parser.add_argument("--sessions", type=_counts, metavar="N,N", help="session counts for memory")
    parser.add_argument(
        "--repeat", type=_at_least_one, metavar="N", help="repeat each size's timing"
    )
    parser.add_argument(
        "--budget",
        type=_positive,
        metavar="SECONDS",
        help="skip a size predicted to take longer than this (default 600, quick 15)",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit with status 1 when a backend failed anywhere (steps left out to stay "
        "within the time budget do not count)",
    )
    parser.add_argument(
        "--from-json",
        type=Path,
        metavar="RESULTS.json",
        help="measure nothing: write the report from the output of an earlier --json run",
    )


def build_parser(prog: str = "toolscout bench") -> argparse.ArgumentParser:
    """The argument parser of `toolscout bench` on its own (`python -m toolscout_bench`)."""
    parser = _Parser(prog=prog, description=_DESCRIPTION)
    add_arguments(parser)
    return parser


_DESCRIPTION = (
    "Benchmark every installed backend beside plain BM25 (bm25s) and Spring AI's regex "
    "searcher: quality, latency, index time, memory, token savings, abstention. Writes "
    "docs/benchmarks.md with its plots."
)


def add_command(subparsers: Any) -> None:
    """Add `bench` to the `toolscout` command's sub-parsers."""
    parser = subparsers.add_parser(
        "bench", help="benchmark the installed backends", description=_DESCRIPTION
    )
    add_arguments(parser)
    parser.set_defaults(handler=execute)


def _command_line(args: argparse.Namespace) -> str:
    """The command that reproduces this run, for the report."""
    import shlex

    words = ["toolscout", "bench"]
    if args.quick:
        words.append("--quick")
    if args.strict:
        words.append("--strict")
    for flag, values in (
        ("--backend", args.backend),
        ("--dataset", args.dataset),
        ("--section", args.section),
        ("--option", args.option),
    ):
        for value in values or ():
            words += [flag, value]
    for flag, value in (("--sizes", args.sizes), ("--sessions", args.sessions)):
        if value:
            words += [flag, ",".join(str(v) for v in value)]
    if args.repeat:
        words += ["--repeat", str(args.repeat)]
    if args.budget:
        words += ["--budget", f"{args.budget:g}"]
    if args.data is not None:
        words += ["--data", str(args.data)]
    if not args.no_report and args.output != DEFAULT_OUTPUT:
        words += ["--output", str(args.output)]
    return shlex.join(words)


def _backend_options(
    pairs: Sequence[str], backends: Sequence[str] | None
) -> dict[str, dict[str, Any]]:
    """Options per backend name, typed by each backend's `Options` model as the CLI does."""
    from toolscout.cli_options import coerce_options, options_for, options_model, parse_options
    from toolscout.plugins import registry

    from toolscout_bench.contenders import validate_options

    if not pairs:
        return {}
    parsed = parse_options(pairs)
    installed = registry.backends()
    names = [n for n in (backends or sorted(installed)) if n in installed]
    options: dict[str, dict[str, Any]] = {}
    for name in names:
        chosen = options_for(name, parsed, names)
        if chosen:
            options[name] = coerce_options(chosen, options_model(installed[name].cls))
            validate_options(name, options[name])
    return options


def _load_results(path: Path) -> dict[str, Any]:
    """The results an earlier `--json` run printed."""
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not JSON: {error.msg} (line {error.lineno})") from None
    keys = ("meta", "contenders", "quality", "scale", "memory_tools", "memory_sessions")
    missing = [key for key in keys if key not in results] if isinstance(results, dict) else []
    if not isinstance(results, dict) or missing:
        raise ValueError(
            f"{path} does not hold the output of `toolscout bench --json` "
            f"(missing: {', '.join(missing) or 'a JSON object'})"
        )
    results.setdefault("abstention", [])
    return results


def execute(args: argparse.Namespace, out: TextIO) -> int:
    """Run the benchmark the parsed `args` describe; return the exit status."""
    from toolscout.errors import ToolscoutError

    try:
        from toolscout_bench.contenders import check_names
        from toolscout_bench.data import find_data_dir
        from toolscout_bench.runner import Plan, Progress, run, with_overrides

        plan = with_overrides(
            Plan.quick() if args.quick else Plan.full(),
            sizes=args.sizes,
            memory_sizes=args.sizes,
            sessions=args.sessions,
            repeat=args.repeat,
            budget_s=args.budget,
            sections=tuple(args.section) if args.section else None,
            datasets=tuple(args.dataset) if args.dataset else None,
        )
        if args.from_json is not None:
            results = _load_results(args.from_json)
        else:
            data_dir = args.data if args.data is not None else find_data_dir()
            if args.backend:
                check_names(args.backend)
            options = _backend_options(args.option, args.backend)
            results = run(
                plan,
                data_dir,
                backends=args.backend,
                options=options,
                progress=Progress(quiet=args.quiet),
                command=_command_line(args),
            )
        if not args.no_report:
            from toolscout_bench.report import write_report

            written = write_report(results, args.output)
            if not args.quiet:
                sys.stderr.write("wrote " + ", ".join(str(p) for p in written) + "\n")
    except (ToolscoutError, OSError, ValueError) as error:
        sys.stderr.write(f"toolscout bench: error: {' '.join(str(error).split())}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("toolscout bench: interrupted\n")
        return 130
    if args.json:
        out.write(json.dumps(results, indent=2) + "\n")
    failed = [s for s in results.get("skipped", []) if s.get("failed", True)]
    if args.strict and failed:
        where = "; ".join(f"{s['name']} in {s['stage']}: {s['reason']}" for s in failed)
        sys.stderr.write(f"toolscout bench: {len(failed)} step(s) failed: {where}\n")
        return EXIT_FAILED
    return 0


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run `toolscout bench` with `argv` (default `sys.argv[1:]`); return the exit status."""
    try:
        args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    except UsageError as error:
        sys.stderr.write(f"{' '.join(str(error).split())}\n")
        return EXIT_USAGE
    except SystemExit as stop:  # --help
        return stop.code if isinstance(stop.code, int) else 0
    return execute(args, out if out is not None else sys.stdout)
