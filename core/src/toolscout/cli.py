"""The `toolscout` command: list backends, search a catalog, run the demo, evaluate backends.

    toolscout backends [--json]
    toolscout search QUERY [--catalog PATH] [--backend NAME] [--max-results N] [--json]
    toolscout demo [--backend NAME] [--max-results N] [--json]
    toolscout eval --catalog TOOLS.jsonl --queries QUERIES.jsonl [--backend NAME ...]
                   [--infeasible QUERIES.jsonl] [--limit-queries N] [--json]
    toolscout config [--json]
    toolscout completion bash|zsh|fish

Every command takes `--color auto|always|never` (and honours `NO_COLOR`); `--catalog -`
reads the catalog from standard input. `python -m toolscout` runs the same CLI.

`search`, `demo` and `eval` take backend options as repeatable `--option KEY=VALUE`, layered
on top of the configuration (`[tool.toolscout.backends.NAME]`). A value is parsed as JSON
when it parses (`5`, `true`, `0.5`) and kept as text otherwise, and always kept as text for
an option the backend's `Options` model types as text. With several backends,
`--option NAME.KEY=VALUE` gives an option to backend NAME only.

Exit status: 0 when the command ran (a search that finds nothing included), 2 for bad
input (missing files, bad JSON, unknown backends, bad options) with one line on stderr, 1
for a bug (a traceback), 130 when interrupted. `main(argv)` returns the exit status, so
the CLI is testable in-process.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from importlib import resources
from itertools import pairwise
from pathlib import Path
from typing import Any, NoReturn, TextIO

from toolscout import __version__
from toolscout.cli_options import (
    add_option_argument,
    coerce_options,
    options_for,
    options_model,
    parse_options,
    parse_value,
)
from toolscout.color import CHOICES as COLOR_CHOICES
from toolscout.color import Style, wants_color
from toolscout.errors import ToolscoutError
from toolscout.types import MAX_SCHEMA_DEPTH, ToolReference, ToolSearchRequest

__all__ = [
    "DEMO_QUERIES",
    "UsageError",
    "build_parser",
    "catalog_session",
    "coerce_options",
    "index_catalog",
    "main",
    "options_for",
    "parse_options",
    "parse_value",
]

#: Exit status for bad input or usage (the argparse convention).
EXIT_USAGE = 2
#: Exit status after Ctrl-C (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130

#: `--catalog -` reads the catalog from standard input.
STDIN = "-"

#: The CLI indexes a catalog into the session `toolscout-cli-<digest of its definitions>`
#: (`catalog_session`): on a persistent store each catalog keeps its own session, so a
#: search never answers from another catalog, and the same catalog is not indexed again.
CLI_SESSION = "toolscout-cli"

#: What `toolscout demo` asks: the short capability descriptions a model passes to
#: tool_search, one per service family of the demo catalog.
DEMO_QUERIES: tuple[str, ...] = (
    "send a message to a chat channel",
    "open a pull request",
    "create a bug ticket in the issue tracker",
    "create a calendar event and invite attendees",
    "upload a file to cloud storage",
    "refund a card payment",
    "weather forecast for a city",
)


class UsageError(Exception):
    """A command line argparse rejected; reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are raised, so `main` prints them as one line."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


# --- argument types -----------------------------------------------------------------------


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


# --- shared helpers -------------------------------------------------------------------------


@contextmanager
def demo_catalog_path() -> Iterator[Path]:
    """The demo catalog shipped inside core (`toolscout/data/demo_tools.jsonl`)."""
    resource = resources.files("toolscout") / "data" / "demo_tools.jsonl"
    if not resource.is_file():
        raise ToolscoutError(
            "the demo catalog toolscout/data/demo_tools.jsonl is missing from this install; "
            "reinstall toolscout or pass --catalog PATH"
        )
    with resources.as_file(resource) as path:
        yield path


def _load_tools(catalog: str | None) -> list[ToolReference]:
    from toolscout.catalog import load_catalog

    if catalog == STDIN:
        tools = _stdin_catalog()
    elif catalog is not None:
        tools = load_catalog(catalog)
    else:
        with demo_catalog_path() as path:
            tools = load_catalog(path)
    if not tools:
        raise ToolscoutError(f"the catalog {_catalog_name(catalog)} holds no tools")
    return tools


def _stdin_catalog() -> list[ToolReference]:
    """The catalog piped to standard input (`--catalog -`)."""
    from toolscout.catalog import parse_catalog_text

    if sys.stdin is None or sys.stdin.isatty():
        raise ToolscoutError(
            "--catalog - reads the catalog from standard input, which is a terminal; pipe "
            "one in (toolscout search QUERY --catalog - < tools.jsonl) or pass --catalog PATH"
        )
    try:
        text = sys.stdin.buffer.read().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ToolscoutError(f"standard input: not UTF-8 text ({error})") from None
    return parse_catalog_text(text)


def _catalog_name(catalog: str | None) -> str:
    """The catalog as the output names it."""
    if catalog == STDIN:
        return "standard input"
    return catalog or "the demo catalog"


def _open_index(backend: str, options: Mapping[str, str], settings: Any) -> Any:
    from toolscout.loading import load_index
    from toolscout.plugins import registry

    values = coerce_options(options, options_model(registry.backend(backend).cls))
    return load_index(backend, settings=settings, **values)


def catalog_session(tools: Sequence[ToolReference]) -> str:
    """The session the CLI searches `tools` in: named after a digest of their definitions,
    so two catalogs (two users of one shared store) never share a session."""
    from toolscout.toolsets import set_fingerprint

    return f"{CLI_SESSION}-{set_fingerprint(tools)[:24]}"


def index_catalog(index: Any, tools: Sequence[ToolReference]) -> str:
    """Make `tools` the whole tool set of the catalog's session, and return the session.

    A store that persists keeps the session from an earlier run; replacing its set makes
    it exactly this catalog even so (an unchanged set is not indexed again)."""
    from toolscout.progress import shown

    session = catalog_session(tools)
    replace = getattr(index, "replace_tools", None)
    # A large catalog's first index embeds every tool text: a bar on a terminal says so.
    with shown(f"tool texts embedded ({len(tools):,} tools)"):
        if callable(replace):
            replace(session, tools)
        else:  # a backend with the protocol's methods only
            index.clear_index(session)
            index.index_tools(session, tools)
    return session


def _search_tool(settings: Any) -> ToolReference:
    from toolscout.savings import search_tool

    return search_tool(settings.max_results, settings.max_results_limit)


def _close(index: Any) -> None:
    close = getattr(index, "close", None)
    if callable(close):
        close()


def _emit_json(data: object, out: TextIO) -> None:
    out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def _by_name(tools: Sequence[ToolReference], names: Sequence[str]) -> list[ToolReference]:
    table = {tool.name: tool for tool in tools}
    return [table[name] for name in names if name in table]


# --- commands -------------------------------------------------------------------------------


def cmd_backends(args: argparse.Namespace, out: TextIO) -> int:
    """List installed backends and the plugins that failed to load."""
    from toolscout.plugins import install_hint, registry

    backends = sorted(registry.backends().values(), key=lambda entry: entry.name)
    failures = sorted(registry.failures.values(), key=lambda failure: failure.plugin)
    rows = [
        {
            "name": entry.name,
            "distribution": entry.distribution,
            "version": entry.version,
            "capabilities": _capabilities(entry.cls),
        }
        for entry in backends
    ]
    failed = [
        {
            "plugin": failure.plugin,
            "distribution": failure.distribution,
            "error": f"{type(failure.error).__name__}: {failure.error}",
        }
        for failure in failures
    ]
    if args.json:
        _emit_json({"backends": rows, "failures": failed}, out)
        return 0
    if not rows:
        out.write(f"no backends installed; for the default one, {install_hint('regex')}\n")
    else:
        table = [["name", "distribution", "version", "capabilities"]]
        table += [
            [entry.name, entry.distribution, entry.version, ", ".join(r["capabilities"]) or "-"]
            for entry, r in zip(backends, rows, strict=True)
        ]
        out.write(_table(table))
    for failure in failed:
        out.write(
            f"failed to load: plugin {failure['plugin']!r} from {failure['distribution']}: "
            f"{failure['error']}\n"
        )
    return 0


def _capabilities(cls: type[Any]) -> list[str]:
    capabilities = getattr(cls, "capabilities", None)
    enabled = getattr(capabilities, "enabled", None)
    return list(enabled()) if callable(enabled) else []


def cmd_search(args: argparse.Namespace, out: TextIO) -> int:
    """Search a catalog (the demo catalog by default) and show what the search saved."""
    from toolscout.config import load_settings
    from toolscout.loading import chosen_backend
    from toolscout.savings import token_savings
    from toolscout.unmatched import reports_words, unmatched_words

    if not args.query.strip():
        # A blank query finds nothing on any backend; say so instead of "no tool matched".
        raise UsageError(
            'the query is empty; say what the tool should do, e.g. toolscout search "refund a '
            'card payment"'
        )
    settings = load_settings()
    options = parse_options(args.option)
    max_results = args.max_results or settings.max_results
    tools = _load_tools(args.catalog)  # a bad catalog is named before a backend is chosen
    backend = args.backend or chosen_backend(settings)
    index = _open_index(backend, options, settings)
    try:
        session = index_catalog(index, tools)
        response = index.search(ToolSearchRequest(session, args.query, max_results))
        if reports_words(index):
            missing = list(response.unmatched_words)
        else:  # a backend of its own: read its tools again
            missing = unmatched_words(index, session, args.query)
    finally:
        _close(index)
    savings = token_savings(tools, _by_name(tools, response.names), search=_search_tool(settings))
    if args.json:
        _emit_json(
            {
                "results": [_result(hit) for hit in response],
                "total_matches": response.total_matches,
                "confidence": response.confidence,
                "unmatched_words": missing,
                "empty_reason": response.empty_reason,
                "backend": backend,
                "tokens": _tokens(response, savings),
            },
            out,
        )
        return 0
    out.write(f"{_shown(args.query)}: {_shown_of(len(response), len(tools), args.catalog)}")
    out.write(f" ({backend})\n")
    floor = getattr(getattr(index, "options", None), "min_confidence", None)
    _write_hits(response, out, floor=floor, style=getattr(args, "style", None))
    if missing:
        out.write("  no tool mentions: " + ", ".join(repr(word) for word in missing) + "\n")
    out.write(_describe(response, savings) + "\n")
    return 0


#: The longest query the header of `toolscout search` shows whole.
SHOWN_QUERY_LENGTH = 80


def _shown(query: str) -> str:
    """The query as the header shows it: quoted, and cut short when long (the results
    matter, not 16 KB of echoed input)."""
    if len(query) <= SHOWN_QUERY_LENGTH:
        return repr(query)
    return f"{query[: SHOWN_QUERY_LENGTH - 1]!r}… ({len(query):,} characters)"


def _shown_of(shown: int, total: int, catalog: str | None) -> str:
    """What the header says the hits are: the best few of the catalog's tools, worded so
    that it does not read as a count of the tools that matched ("3 of 317 tools" did)."""
    tools = f"the {total:,} tools in {_catalog_name(catalog)}"
    if not shown:
        return f"none shown of {tools}"
    return f"the best {'one' if shown == 1 else shown} of {tools}"


#: Said under hits whose confidence does not fall with their rank.
ORDER_NOTE = (
    "  (listed in ranking order; confidence is how sure the search is of each hit alone, "
    "so it need not fall with the rank)"
)


def _write_hits(
    response: Any, out: TextIO, *, floor: float | None = None, style: Style | None = None
) -> None:
    style = style or Style(False)
    if not len(response):
        out.write(f"  {style.yellow(_why_empty(response, floor))}\n")
    for rank, hit in enumerate(response, 1):
        confidence = "" if hit.confidence is None else f", confidence {hit.confidence:.2f}"
        out.write(f"  {rank}. {style.bold(hit.name)}  (score {hit.score:.3g}{confidence})\n")
        if hit.summary:
            out.write(f"     {hit.summary}\n")
    if _confidence_rises(response):
        out.write(ORDER_NOTE + "\n")


def _confidence_rises(response: Any) -> bool:
    """Whether a hit is shown below one of lower confidence (as printed, to 2 places)."""
    shown = [round(hit.confidence, 2) for hit in response if hit.confidence is not None]
    return any(later > earlier for earlier, later in pairwise(shown))


def _why_empty(response: Any, floor: float | None) -> str:
    """Why a search shows nothing: no tool matched, or tools matched but the answer's
    confidence fell below the backend's floor (which an option lowers)."""
    if response.confidence is None:
        return "no tool matched"
    confidence = response.confidence
    digits = 2
    while floor and round(confidence, digits) >= floor and digits < 6:
        digits += 1  # 0.2996 is shown as such, not as 0.30 "below 0.3"
    below = f"below min_confidence {floor:g}" if floor else "below the confidence floor"
    return (
        f"no tool fits well enough: confidence {confidence:.{digits}f}, {below} "
        "(-o min_confidence=0 shows the nearest tools)"
    )


def _result(hit: Any) -> dict[str, Any]:
    """A hit as `--json` prints it."""
    return {"name": hit.name, "score": hit.score, "confidence": hit.confidence}


def _tokens(response: Any, savings: Any) -> dict[str, Any]:
    """What the search saved, as `--json` prints it: as the text says, an answer with no
    tool sends no definitions and saves nothing."""
    found = savings.to_dict()
    if not len(response):
        found.update(sent_tokens=0, saved_tokens=0, saved_percent=0.0)
    return dict(found)


def _describe(response: Any, savings: Any) -> str:
    """What the search saved, as one line; a search that found nothing saved nothing."""
    if not len(response):
        return (
            f"tokens ({savings.encoding}): no tool found, so no tool definitions sent; "
            "nothing saved"
        )
    return str(savings.describe())


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    """Run everyday searches on the demo catalog and show the tokens each one saved."""
    from toolscout.config import load_settings
    from toolscout.loading import chosen_backend
    from toolscout.savings import token_savings
    from toolscout.tokens import tool_tokens

    settings = load_settings()
    backend = args.backend or chosen_backend(settings)
    options = parse_options(args.option)
    tools = _load_tools(None)
    catalog_tokens = tool_tokens(tools)
    search = _search_tool(settings)
    index = _open_index(backend, options, settings)
    searches = []
    try:
        session = index_catalog(index, tools)
        for query in DEMO_QUERIES:
            response = index.search(ToolSearchRequest(session, query, args.max_results))
            savings = token_savings(
                tools,
                _by_name(tools, response.names),
                catalog_tokens=catalog_tokens,
                search=search,
            )
            searches.append((query, response, savings))
    finally:
        _close(index)
    if args.json:
        _emit_json(
            {
                "backend": backend,
                "catalog_tools": len(tools),
                "catalog_tokens": catalog_tokens,
                "searches": [
                    {
                        "query": query,
                        "results": [_result(hit) for hit in response],
                        "tokens": _tokens(response, savings),
                    }
                    for query, response, savings in searches
                ],
            },
            out,
        )
        return 0
    out.write(
        f"toolscout demo: {len(tools):,} tools in the demo catalog, {catalog_tokens:,} tokens "
        f"as tool definitions; backend {backend!r}\n"
        "Instead of sending every definition, the model gets one tool_search tool and only "
        "the tools it finds.\nEach search below is what a model would pass to tool_search.\n"
    )
    for query, response, savings in searches:
        out.write(f"\n> {query}\n")
        _write_hits(response, out, style=getattr(args, "style", None))
        out.write(f"  {_describe(response, savings)}\n")
    sent = sum(s.sent_tokens for _q, _r, s in searches) / len(searches)
    out.write(
        f"\nOn average a request sent {sent:,.0f} tokens of tool definitions instead of "
        f"{catalog_tokens:,} ({100.0 * (1 - sent / catalog_tokens):.1f}% fewer).\n"
        'Try your own: toolscout search "QUERY" [--catalog tools.jsonl]\n'
    )
    return 0


#: The longest value `toolscout config` shows whole (the JSON output shows all), and the
#: widest `key = value` that the column of sources is aligned after.
SHOWN_VALUE_LENGTH = 60
SOURCE_COLUMN = 48


def cmd_config(args: argparse.Namespace, out: TextIO) -> int:
    """Print the effective settings and where each came from: a file, an environment
    variable or the default. Secret-named values and URLs' credentials are hidden."""
    from toolscout.config import CONFIG_FILES, explain_settings, find_config_dir, shown_value

    settings, origins = explain_settings()
    here = Path.cwd()
    folder = find_config_dir(here)
    files = [folder / name for name in CONFIG_FILES] if folder is not None else []
    files = [path for path in files if any(o.source.startswith(str(path)) for o in origins)]
    for origin in origins:
        if origin.key == "backend" and origin.source == "default":
            origin.value, origin.source = _default_backend(settings)
    if args.json:
        settings_rows = [
            {"key": o.key, "value": shown_value(o.key, o.value), "source": o.source}
            for o in origins
        ]
        _emit_json({"files": [str(path) for path in files], "settings": settings_rows}, out)
        return 0
    if folder is None:
        root = next((f for f in (here, *here.parents) if (f / ".git").exists()), None)
        where = "here or in any folder above" if root is None else "here or above"
        if root is not None:
            where += " up to the repository root " + (
                "(here)" if root == here else os.path.relpath(root, here)
            )
        out.write(
            "config files: none (no toolscout.toml, nor pyproject.toml with "
            f"[tool.toolscout], {where})\n"
        )
    else:
        found = ", ".join(_relative(path, here) for path in files) or "none"
        out.write(f"config files: {found}\n")
    rows = [
        [f"{o.key} = {_setting_text(shown_value(o.key, o.value))}", _source(o.source, here)]
        for o in origins
    ]
    # Sources in one column, but a long value (the system message) does not push it out.
    width = max(len(left) for left, _source in rows if len(left) <= SOURCE_COLUMN)
    out.writelines(f"{left.ljust(width)}  # {source}\n" for left, source in rows)
    return 0


def _default_backend(settings: Any) -> tuple[str, str]:
    """The backend used when none is configured, and why (`loading.chosen_backend`)."""
    from toolscout.loading import chosen_backend

    try:
        chosen = chosen_backend(settings)
    except ToolscoutError:
        return settings.backend, "default (not installed; several others are: choose one)"
    if chosen != settings.backend:
        return chosen, f"default: the only backend installed ({settings.backend} is not)"
    return chosen, "default"


def _relative(path: Path, here: Path) -> str:
    """`path` as seen from `here` when it is here or above (`../pyproject.toml`)."""
    try:
        return os.path.relpath(path, here) if here.is_relative_to(path.parent) else str(path)
    except ValueError:  # another drive
        return str(path)


def _source(source: str, here: Path) -> str:
    if source.startswith(("default", "TOOLSCOUT_")):
        return source
    path, _sep, table = source.partition(" ")
    return " ".join(part for part in (_relative(Path(path), here), table) if part)


def _setting_text(value: Any) -> str:
    """A value as TOML would spell it (`unset` for none), cut short when long."""
    text = "unset" if value is None else json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool):
        text = str(value).lower()
    if len(text) > SHOWN_VALUE_LENGTH:
        text = f"{text[: SHOWN_VALUE_LENGTH - 1]}… ({len(text):,} characters)"
    return text


def cmd_eval(args: argparse.Namespace, out: TextIO) -> int:
    """Score one or more backends on a catalog + queries pair (see toolscout.evaluation)."""
    from toolscout.catalog import load_catalog
    from toolscout.config import load_settings
    from toolscout.evaluation import evaluate, load_infeasible, load_queries
    from toolscout.loading import chosen_backend
    from toolscout.progress import ProgressBar

    settings = load_settings()
    options = parse_options(args.option)
    tools = _stdin_catalog() if args.catalog == STDIN else load_catalog(args.catalog)
    queries = load_queries(args.queries)
    infeasible = load_infeasible(args.infeasible) if args.infeasible else []
    # Chosen once the files are read: a bad file is named first, whatever is installed.
    backends = list(dict.fromkeys(args.backend or [chosen_backend(settings)]))
    if args.limit_queries is not None:
        queries = queries[: args.limit_queries]
        infeasible = infeasible[: args.limit_queries]
    known = {tool.name for tool in tools}
    missing = sum(1 for q in queries if not known.issuperset(q.relevant))
    if missing:
        sys.stderr.write(
            f"note: {missing} of {len(queries)} queries name relevant tools that are not in "
            f"{args.catalog}; check that the catalog and queries belong together\n"
        )
    history = _read_history(args.history) if args.history else None
    results = []
    for backend in backends:
        index = _open_index(backend, options_for(backend, options, backends), settings)
        if history is not None:
            _replay_history(index, tools, *history)
        bar = ProgressBar(len(queries) + len(infeasible), f"queries ({backend})")
        bar.message(f"indexing {len(tools):,} tools ({backend})…")
        try:
            results.append(
                evaluate(
                    index,
                    tools,
                    queries,
                    backend=backend,
                    infeasible=infeasible,
                    on_query=bar.update,
                )
            )
        finally:
            bar.close()
            _close(index)
    if args.json:
        _emit_json({"results": [result.to_dict() for result in results]}, out)
        return 0
    header = ["backend", "queries", "hit@5", "recall@5", "ndcg@10", "mrr@10"]
    header += ["p50_ms", "p99_ms", "index_s", "answered"]
    kinds = list(dict.fromkeys(kind for result in results for kind in result.abstained))
    rows = [header + [f"abstained:{kind}" for kind in kinds]]
    for result in results:
        data = result.to_dict()
        rows.append(
            [str(data["backend"]), str(data["queries"])]
            + [f"{data[key]:.3f}" for key in header[2:]]
            + [f"{result.abstained[kind]:.3f}" for kind in kinds]
        )
    out.write(_table(rows))
    if kinds:
        counts = ", ".join(f"{kind} {count}" for kind, count in results[0].infeasible.items())
        out.write(
            "answered: share of answerable queries with at least one result; abstained: "
            f"share of infeasible queries ({counts}) with none\n"
        )
    return 0


def _read_history(path: str) -> tuple[Any, Any]:
    """`eval --history`: the past queries, and the report counting the lines left out."""
    from toolscout.history import HistoryReport, read_history

    report = HistoryReport()
    return read_history(path, report), report


def _replay_history(index: Any, tools: Sequence[Any], past: Any, report: Any) -> None:
    """Make `index` learn from use and record the history as past uses (learning.md)."""
    from toolscout.history import HistoryReport, replay_history
    from toolscout.learning import learn_from

    counted = HistoryReport(report.lines, 0, report.skipped.copy())
    replay_history(learn_from(index).store, tools, past, counted)
    sys.stderr.write(counted.summary() + "\n")


def _table(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[col]) for row in rows) for col in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    return "\n".join(lines) + "\n"


# --- parser and entry point -----------------------------------------------------------------


def add_color_option(parser: argparse.ArgumentParser, top: bool = False) -> None:
    """`--color WHEN`; on a subcommand it is unset unless given, so that
    `toolscout --color never search ...` and `toolscout search ... --color never` agree."""
    parser.add_argument(
        "--color",
        choices=COLOR_CHOICES,
        default="auto" if top else argparse.SUPPRESS,
        metavar="WHEN",
        help="colour the output: auto (on a terminal, unless NO_COLOR is set), always, never",
    )


#: `toolscout search --help` ends with these.
SEARCH_EXAMPLES = """\
examples:
  toolscout search "send a message to a channel"
  toolscout search "refund a card payment" --catalog tools.jsonl -n 3
  toolscout search "open a pull request" -b duckdb -o path=tools.duckdb
  cat tools.jsonl | toolscout search "create an invoice" --catalog - --json
  toolscout search "weather" -o min_confidence=0    # also the tools below the floor

exit status: 0 when the search ran, whether or not it found a tool; 2 for bad input
"""


def build_parser(plugin_commands: bool = False) -> argparse.ArgumentParser:
    """The argument parser of the `toolscout` command.

    `plugin_commands` adds the commands installed plugins register (`register_commands`
    hook, e.g. `toolscout mcp`); it loads every plugin, so only when a command needs it.
    """
    parser = _Parser(
        prog="toolscout",
        description="Tool search for LLM agents: find the few tools a request needs.",
        epilog="exit status: 0 success, 2 bad input or usage, 130 interrupted (docs/cli.md)",
    )
    parser.add_argument("--version", action="version", version=f"toolscout {__version__}")
    add_color_option(parser, top=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    backends = commands.add_parser("backends", help="list installed backends")
    backends.add_argument("--json", action="store_true", help="print JSON")
    backends.set_defaults(handler=cmd_backends)

    search = commands.add_parser(
        "search",
        help="search a tool catalog",
        description="Index a tool catalog and show the tools that fit QUERY best.",
        epilog=SEARCH_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    search.add_argument("query", metavar="QUERY", help="what the tool should do")
    search.add_argument(
        "--catalog",
        metavar="PATH",
        help="tools as JSON/JSONL, - for standard input (default: the demo catalog)",
    )
    search.add_argument("--backend", "-b", metavar="NAME", help="backend (default: config)")
    search.add_argument(
        "--max-results", "-n", type=_positive_int, metavar="N", help="results (default: config)"
    )
    search.add_argument("--json", action="store_true", help="print JSON")
    add_option_argument(search)
    search.set_defaults(handler=cmd_search)

    demo = commands.add_parser("demo", help="run example searches on the demo catalog")
    demo.add_argument("--backend", "-b", metavar="NAME", help="backend (default: config)")
    demo.add_argument(
        "--max-results", "-n", type=_positive_int, default=3, metavar="N", help="default 3"
    )
    demo.add_argument("--json", action="store_true", help="print JSON")
    add_option_argument(demo)
    demo.set_defaults(handler=cmd_demo)

    evaluation = commands.add_parser("eval", help="score backends on a catalog and queries")
    evaluation.add_argument(
        "--catalog", required=True, metavar="TOOLS.jsonl", help="- for standard input"
    )
    evaluation.add_argument("--queries", required=True, metavar="QUERIES.jsonl")
    evaluation.add_argument(
        "--backend",
        "-b",
        action="append",
        metavar="NAME",
        help="backend to score; repeatable (default: config)",
    )
    evaluation.add_argument(
        "--infeasible",
        metavar="QUERIES.jsonl",
        help="queries no tool of the catalog answers ({query, kind?} a line): report the "
        "share of them that get no result, per kind",
    )
    evaluation.add_argument(
        "--limit-queries", type=_positive_int, metavar="N", help="score the first N queries only"
    )
    evaluation.add_argument(
        "--history",
        metavar="H.jsonl",
        help="past uses to learn from first, in the --queries format: each line's relevant "
        "tools count as called successfully after a search for its query (docs/learning.md)",
    )
    evaluation.add_argument("--json", action="store_true", help="print JSON")
    add_option_argument(evaluation)
    evaluation.set_defaults(handler=cmd_eval)
    config = commands.add_parser(
        "config", help="show the effective settings and where each came from"
    )
    config.add_argument("--json", action="store_true", help="print JSON")
    config.set_defaults(handler=cmd_config)
    from toolscout.caches import add_command as add_cache_command

    add_cache_command(commands)
    from toolscout.usage_cli import add_command as add_usage_command

    add_usage_command(commands)
    completion = commands.add_parser(
        "completion",
        help="print a shell completion script",
        description="Print the completion script of SHELL: commands, flags, the installed "
        "backends and their -o option keys. Write it again after installing a backend.",
        epilog=COMPLETION_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    completion.add_argument("shell", choices=("bash", "zsh", "fish"), metavar="SHELL")
    completion.set_defaults(handler=cmd_completion)
    if plugin_commands:
        _add_plugin_commands(commands)
    for name, subparser in commands.choices.items():
        if name != "completion":
            with suppress(argparse.ArgumentError):  # a plugin's command may have its own
                add_color_option(subparser)
    return parser


COMPLETION_EXAMPLES = """\
install (then open a new shell):
  bash: toolscout completion bash > ~/.local/share/bash-completion/completions/toolscout
  zsh:  toolscout completion zsh > "${fpath[1]}/_toolscout"
  fish: toolscout completion fish > ~/.config/fish/completions/toolscout.fish
"""


def cmd_completion(args: argparse.Namespace, out: TextIO) -> int:
    """Print the completion script of one shell, from the parser with plugin commands."""
    from toolscout.completion import completion_script, installed_backends

    backends, keys = installed_backends()
    out.write(completion_script(args.shell, build_parser(plugin_commands=True), backends, keys))
    return 0


#: Commands of core itself; anything else may come from a plugin.
BUILTIN_COMMANDS = frozenset(
    {"backends", "search", "demo", "eval", "config", "cache", "completion", "usage"}
)


def _add_plugin_commands(commands: Any) -> None:
    """Let each installed plugin add its commands; one that fails is named, not fatal.

    This imports the plugin modules (light by contract) but no backend or embedder.
    """
    from toolscout.plugins import registry

    for failure in registry.register_commands(commands):
        sys.stderr.write(
            f"toolscout: plugin {failure.plugin!r} could not add its commands: "
            f"{type(failure.error).__name__}: {_one_line(failure.error)}\n"
        )


def _wants_plugin_commands(argv: Sequence[str]) -> bool:
    """Whether `argv` names a command that is not built in, or asks for the full help."""
    first = next((arg for arg in argv if not arg.startswith("-")), None)
    if first is None:
        return not argv or "-h" in argv or "--help" in argv
    return first not in BUILTIN_COMMANDS


def _one_line(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return " ".join(text.split())


#: Seconds a plugin's command (which may serve for hours) holds warnings back: long
#: enough for a start-up failure to be its one error line, short enough to read them live.
PLUGIN_COMMAND_HOLD_S = 2.0


class _Warnings(logging.Handler):
    """toolscout's warnings (core's loggers and plugins', `toolscout_*`) for the CLI user:
    one line each, each distinct message once per run (a cache that fails on every batch
    warns once).

    While held, lines wait: a command that succeeds shows them after its output, a
    command that fails shows its one-line error alone (a plugin that failed to load is
    both a warning and the error of the command that asked for it)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self._held = True
        self._lines: list[str] = []
        self._seen: set[str] = set()
        self._timer: threading.Timer | None = None
        self.style = Style(False)  # set once the command line says (--color)

    def filter(self, record: logging.LogRecord) -> bool:
        return record.name.partition(".")[0].startswith("toolscout") and super().filter(record)

    def emit(self, record: logging.LogRecord) -> None:  # called holding self.lock
        text = " ".join(record.getMessage().split())
        if text in self._seen:
            return
        self._seen.add(text)
        level = self.style.yellow(f"{record.levelname.lower()}:")
        line = f"toolscout: {level} {text}\n"
        if self._held:
            self._lines.append(line)
        else:
            self._write(line)

    def show(self) -> None:
        """Write the held lines; later ones go out at once."""
        if self._timer is not None:
            self._timer.cancel()
        with self.lock:  # type: ignore[union-attr]  # created by Handler.__init__
            lines, self._lines, self._held = self._lines, [], False
            for line in lines:
                self._write(line)

    def show_after(self, seconds: float) -> None:
        """Hold the lines `seconds` more, then show them (unless the run ended first)."""
        self._timer = threading.Timer(seconds, self.show)
        self._timer.daemon = True
        self._timer.start()

    def drop(self) -> None:
        """Forget the held lines and hold any later ones (the command failed: its error
        is the one line)."""
        with self.lock:  # type: ignore[union-attr]
            self._lines, self._held = [], True

    def _write(self, line: str) -> None:
        with suppress(OSError, ValueError):  # stderr closed: nobody to tell
            sys.stderr.write(line)


@contextmanager
def _warnings_to_stderr() -> Iterator[_Warnings]:
    """Show toolscout's warnings on stderr while the CLI runs: the CLI is an
    application, and a library logs to nobody."""
    from toolscout.redaction import RedactingFilter

    handler = _Warnings()
    handler.addFilter(RedactingFilter())  # a URL's password or a --token value: blanked
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        handler.show()


def _quiet_stdout() -> None:
    """The reader of stdout left (`toolscout ... | head`): send what is still buffered
    nowhere, so the interpreter's final flush does not fail too."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (captured in tests)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI with `argv` (default: `sys.argv[1:]`) and return the exit status."""
    with _warnings_to_stderr() as warnings:
        return _main(argv, warnings)


def _fail(command: str, message: str, warnings: _Warnings) -> int:
    """Report a failed command in one line."""
    warnings.drop()
    sys.stderr.write(f"toolscout {command}: {warnings.style.red('error:')} {message}\n")
    return EXIT_USAGE


def _main(argv: Sequence[str] | None, warnings: _Warnings) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(plugin_commands=_wants_plugin_commands(argv))
    try:
        args = parser.parse_args(argv)
    except UsageError as error:
        warnings.drop()
        sys.stderr.write(f"{_one_line(error)}\n")
        return EXIT_USAGE
    except SystemExit as stop:  # --help and --version
        return stop.code if isinstance(stop.code, int) else 0
    args.style = Style(wants_color(sys.stdout, args.color))
    warnings.style = Style(wants_color(sys.stderr, args.color))
    handler: Callable[[argparse.Namespace, TextIO], int] | None = getattr(args, "handler", None)
    if handler is None:
        # No command is a usage error: the help goes where errors go.
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    if args.command not in BUILTIN_COMMANDS:
        warnings.show_after(PLUGIN_COMMAND_HOLD_S)  # it may serve for hours
    command = args.command
    try:
        status = handler(args, sys.stdout)
        sys.stdout.flush()  # a reader that left shows here, not at exit
        if status != 0:  # a plugin's command printed its own error line
            warnings.drop()
        return status
    except BrokenPipeError:
        # `toolscout ... | head`: the reader took what it wanted; not a failure.
        _quiet_stdout()
        return 0
    except (ToolscoutError, OSError, ValueError, UsageError) as error:
        return _fail(command, _one_line(error), warnings)
    except RecursionError:
        # Input nested deeper than Python recurses (JSON, schemas); the readers name the
        # file where they can, and this keeps the rest to one line too.
        return _fail(
            command,
            "the input is nested too deeply to read; flatten it (tool schemas may nest at "
            f"most {MAX_SCHEMA_DEPTH} levels)",
            warnings,
        )
    except ImportError as error:
        # A backend whose own dependency is missing: say which, and how to repair it.
        return _fail(
            command,
            f"a plugin failed to import: {type(error).__name__}: {_one_line(error)}; "
            "reinstall the backend's distribution so its dependencies are installed",
            warnings,
        )
    except KeyboardInterrupt:
        warnings.show()
        sys.stderr.write("toolscout: interrupted\n")
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover - `python -m toolscout.cli`
    raise SystemExit(main())
