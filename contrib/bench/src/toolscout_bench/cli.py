"""The `toolscout bench` command (also `python -m toolscout_bench`).

    toolscout bench [--quick] [--json] [--output docs/benchmarks.md | --no-report]
                    [--data DIR] [--backend NAME ...] [--option [NAME.]KEY=VALUE ...]
                    [--section quality|scale|memory|abstention ...] [--dataset NAME ...]
                    [--sizes 100,1000] [--sessions 1,100] [--repeat N] [--budget SECONDS]

Without `--backend` every installed backend runs, plus the two references. Progress goes
to stderr; `--json` prints every figure on stdout. Bad input exits with status 2 and one
line on stderr.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from toolscout.errors import ToolscoutError

from toolscout_bench.runner import SECTIONS, Plan, Progress, run, with_overrides

__all__ = ["build_parser", "main"]

EXIT_USAGE = 2


class UsageError(Exception):
    """A command line the parser rejected."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def _sizes(text: str) -> tuple[int, ...]:
    try:
        values = tuple(int(part.replace("_", "")) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated whole numbers (e.g. 100,1000), got {text!r}"
        ) from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected numbers of at least 1, got {text!r}")
    return tuple(sorted(set(values)))


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {text!r}")
    return value


def build_parser(prog: str = "toolscout bench") -> argparse.ArgumentParser:
    """The argument parser of `toolscout bench`."""
    parser = _Parser(
        prog=prog,
        description="Benchmark every installed backend beside plain BM25 and Spring AI's "
        "regex searcher: quality, latency, index time, memory, token savings, abstention.",
    )
    parser.add_argument("--quick", action="store_true", help="small samples (CI smoke run)")
    parser.add_argument("--json", action="store_true", help="print every figure as JSON")
    parser.add_argument(
        "--output",
        type=Path,
        default=Path("docs/benchmarks.md"),
        metavar="PAGE.md",
        help="Markdown report; plots go to a folder named after it (default docs/benchmarks.md)",
    )
    parser.add_argument("--no-report", action="store_true", help="write no Markdown or plots")
    parser.add_argument(
        "--data", type=Path, metavar="DIR", help="evaluation data (default ../shared/eval)"
    )
    parser.add_argument(
        "--backend",
        "-b",
        action="append",
        metavar="NAME",
        help="backend to run; repeatable (default: every installed backend)",
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
    parser.add_argument("--sizes", type=_sizes, metavar="N,N", help="catalog sizes to time")
    parser.add_argument("--sessions", type=_sizes, metavar="N,N", help="session counts (memory)")
    parser.add_argument("--repeat", type=int, metavar="N", help="repeat each size's timing")
    parser.add_argument(
        "--budget",
        type=_positive,
        metavar="SECONDS",
        help="skip a size predicted to take longer than this (default 600, quick 20)",
    )
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")
    return parser


def _backend_options(
    pairs: Sequence[str], backends: Sequence[str] | None
) -> dict[str, dict[str, Any]]:
    """Options per backend name, typed by each backend's `Options` model as the CLI does."""
    from toolscout.cli import coerce_options, options_for, parse_options
    from toolscout.plugins import registry

    if not pairs:
        return {}
    parsed = parse_options(pairs)
    names = list(backends or registry.backends())
    options: dict[str, dict[str, Any]] = {}
    for name in names:
        chosen = options_for(name, parsed, names)
        if chosen:
            model = getattr(registry.backend(name).cls, "Options", None)
            options[name] = coerce_options(chosen, model if isinstance(model, type) else None)
    return options


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run `toolscout bench` with `argv` (default `sys.argv[1:]`); return the exit status."""
    out = out if out is not None else sys.stdout
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
    except UsageError as error:
        sys.stderr.write(f"{error}\n")
        return EXIT_USAGE
    except SystemExit as stop:  # --help
        return stop.code if isinstance(stop.code, int) else 0
    if args.repeat is not None and args.repeat < 1:
        sys.stderr.write("toolscout bench: error: --repeat must be at least 1\n")
        return EXIT_USAGE
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
    try:
        from toolscout_bench.data import find_data_dir

        data_dir = args.data if args.data is not None else find_data_dir()
        options = _backend_options(args.option, args.backend)
        results = run(
            plan,
            data_dir,
            backends=args.backend,
            options=options,
            progress=Progress(quiet=args.quiet),
            command=shlex.join(["toolscout", "bench", *argv]),
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
    return 0
