"""`toolscout usage show | export | clear`: what a usage store holds (docs/learning.md): a
file (`--path`), or a backend's own store (`--backend postgres -o dsn=...`)."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from toolscout.cli_options import (
    add_option_argument,
    coerce_options,
    options_model,
    parse_options,
)
from toolscout.errors import ToolscoutError
from toolscout.usage import (
    FileUsageStore,
    UsageStore,
    UsageStoreDamaged,
    Use,
    default_usage_path,
    read_uses,
    write_uses,
)

__all__ = ["add_command"]


def add_command(commands: Any) -> None:
    """Add `toolscout usage show|export|clear` to the CLI's sub-parsers."""
    usage = commands.add_parser("usage", help="show, export or clear the recorded tool uses")
    actions = usage.add_subparsers(dest="usage_command", metavar="ACTION")
    show = actions.add_parser("show", help="uses per tenant, and the tools used most")
    export = actions.add_parser("export", help="every use, one JSON object a line")
    clear = actions.add_parser("clear", help="forget the uses (one tenant's with --tenant)")
    for parser in (show, export, clear):
        parser.add_argument(
            "--path",
            metavar="FILE",
            help="the usage store (default: TOOLSCOUT_USAGE_PATH, else <cache>/usage/uses.jsonl)",
        )
        parser.add_argument(
            "--backend",
            "-b",
            metavar="NAME",
            help="the usage store of this backend's index instead, opened with its config "
            "and --option settings (e.g. -b postgres -o dsn=...)",
        )
        add_option_argument(
            parser,
            help="backend option on top of config (with --backend); repeatable; VALUE is "
            "JSON when it parses",
        )
        parser.add_argument("--tenant", metavar="NAME", help="only this tenant's uses")
        parser.add_argument("--json", action="store_true", help="print JSON")
    show.set_defaults(handler=cmd_show)
    export.set_defaults(handler=cmd_export)
    clear.set_defaults(handler=cmd_clear)
    usage.set_defaults(
        handler=cmd_show, json=False, path=None, tenant=None, backend=None, option=[]
    )


def _path(args: argparse.Namespace) -> Path:
    return Path(args.path).expanduser() if args.path else default_usage_path()


@contextmanager
def _backend_store(args: argparse.Namespace) -> Iterator[UsageStore | None]:
    """`--backend`'s usage store, closed afterwards: its class's `open_usage_store(**options)`
    (a shared store, without opening the index), else the store beside its index
    (`store_beside`). None without `--backend`, or when that store is a file: `args.path`
    then names it."""
    if args.backend is None:
        yield None
        return
    if args.path:
        raise ValueError("give --path or --backend, not both")
    from toolscout.config import load_settings
    from toolscout.plugins import registry

    settings = load_settings()
    cls = registry.backend(args.backend).cls
    given = coerce_options(parse_options(args.option), options_model(cls))
    opener = getattr(cls, "open_usage_store", None)
    if callable(opener):
        store = opener(**{**settings.backend_options(args.backend), **given})
        try:
            yield store
        finally:
            store.close()
        return
    from toolscout.learning import store_beside
    from toolscout.loading import load_index

    index = load_index(args.backend, settings=settings, **given)
    try:
        beside = store_beside(index)
        if beside is None:
            raise ToolscoutError(
                f"backend {args.backend!r} keeps its uses in the process (an index in "
                "memory), so there is no store to read: give it a `path` option, or --path"
            )
        if isinstance(beside, FileUsageStore):
            args.path = str(beside.path)
            yield None
        else:
            yield beside
    finally:
        close = getattr(index, "close", None)
        if callable(close):
            close()


def _uses(args: argparse.Namespace) -> tuple[str, list[Use]] | None:
    """Where the store is and its uses (of `--tenant`), or None after printing the damage
    as one line."""
    try:
        with _backend_store(args) as store:
            if store is not None:
                names = [args.tenant] if args.tenant is not None else store.tenants()
                return str(store), [use for name in names for use in store.uses(name)]
        found = list(read_uses(_path(args)))
    except UsageStoreDamaged as error:
        sys.stderr.write(f"error: {error}\n")
        return None
    kept = [use for use in found if args.tenant is None or use.tenant == args.tenant]
    return str(_path(args)), kept


def _where(args: argparse.Namespace, where: str) -> dict[str, str]:
    """The store as JSON names it: a file's `path`, a backend's `store`."""
    return {"store": where} if args.backend is not None and not args.path else {"path": where}


def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    found = _uses(args)
    if found is None:
        return 2
    where, uses = found
    tenants: dict[str, dict[str, Any]] = {}
    for use in uses:
        entry = tenants.setdefault(
            use.tenant, {"uses": 0, "failed": 0, "sessions": set(), "tools": Counter()}
        )
        entry["uses"] += 1
        entry["failed"] += not use.success
        entry["sessions"].add(use.session)
        entry["tools"][use.tool] += 1
    report: dict[str, Any] = {
        **_where(args, where),
        "uses": len(uses),
        "tenants": {
            name: {
                "uses": entry["uses"],
                "failed": entry["failed"],
                "sessions": len(entry["sessions"]),
                "tools": len(entry["tools"]),
                "most_used": entry["tools"].most_common(5),
            }
            for name, entry in sorted(tenants.items())
        },
    }
    if args.json:
        out.write(json.dumps(report, indent=2) + "\n")
        return 0
    out.write(f"usage store: {where} ({len(uses):,} uses)\n")
    for name, entry in report["tenants"].items():
        out.write(
            f"tenant {name}: {entry['uses']:,} uses ({entry['failed']:,} failed) in "
            f"{entry['sessions']:,} sessions, {entry['tools']:,} tools\n"
        )
        for tool, count in entry["most_used"]:
            out.write(f"  {tool}: {count:,}\n")
    return 0


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    found = _uses(args)
    if found is None:
        return 2
    _, uses = found
    if args.json:
        out.write(json.dumps({"uses": [use.to_dict() for use in uses]}, indent=2) + "\n")
        return 0
    for use in uses:
        out.write(json.dumps(use.to_dict(), ensure_ascii=False) + "\n")
    return 0


def cmd_clear(args: argparse.Namespace, out: TextIO) -> int:
    with _backend_store(args) as store:
        if store is not None:
            try:
                forgotten = store.clear(args.tenant)
            except UsageStoreDamaged as error:
                sys.stderr.write(f"error: {error}\n")
                return 2
            return _cleared(args, out, str(store), forgotten)
    path = _path(args)
    if args.tenant is None:
        try:
            forgotten = sum(1 for _ in read_uses(path))
        except UsageStoreDamaged:
            forgotten = 0  # what a damaged file held is not known; it goes all the same
        path.unlink(missing_ok=True)
    else:
        found = _uses(argparse.Namespace(path=str(path), tenant=None, backend=None))
        if found is None:
            sys.stderr.write("  (clear the whole store, without --tenant, to start afresh)\n")
            return 2
        uses = found[1]
        kept = [use for use in uses if use.tenant != args.tenant]
        forgotten = len(uses) - len(kept)
        if path.exists():
            write_uses(path, kept)
    return _cleared(args, out, str(path), forgotten)


def _cleared(args: argparse.Namespace, out: TextIO, where: str, forgotten: int) -> int:
    if args.json:
        out.write(json.dumps({**_where(args, where), "forgotten": forgotten}) + "\n")
    else:
        out.write(f"forgot {forgotten:,} uses in {where}\n")
    return 0
