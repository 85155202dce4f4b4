"""`toolscout usage show | export | clear`: what a usage store on disk holds (docs/learning.md)."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any, TextIO

from toolscout.usage import UsageStoreDamaged, Use, default_usage_path, read_uses, write_uses

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
        parser.add_argument("--tenant", metavar="NAME", help="only this tenant's uses")
        parser.add_argument("--json", action="store_true", help="print JSON")
    show.set_defaults(handler=cmd_show)
    export.set_defaults(handler=cmd_export)
    clear.set_defaults(handler=cmd_clear)
    usage.set_defaults(handler=cmd_show, json=False, path=None, tenant=None)


def _path(args: argparse.Namespace) -> Path:
    return Path(args.path).expanduser() if args.path else default_usage_path()


def _uses(args: argparse.Namespace) -> list[Use] | None:
    """The store's uses (of `--tenant`), or None after printing the damage as one line."""
    try:
        found = list(read_uses(_path(args)))
    except UsageStoreDamaged as error:
        sys.stderr.write(f"error: {error}\n")
        return None
    return [use for use in found if args.tenant is None or use.tenant == args.tenant]


def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    uses = _uses(args)
    if uses is None:
        return 2
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
        "path": str(_path(args)),
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
    out.write(f"usage store: {report['path']} ({len(uses):,} uses)\n")
    for name, entry in report["tenants"].items():
        out.write(
            f"tenant {name}: {entry['uses']:,} uses ({entry['failed']:,} failed) in "
            f"{entry['sessions']:,} sessions, {entry['tools']:,} tools\n"
        )
        for tool, count in entry["most_used"]:
            out.write(f"  {tool}: {count:,}\n")
    return 0


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    uses = _uses(args)
    if uses is None:
        return 2
    if args.json:
        out.write(json.dumps({"uses": [use.to_dict() for use in uses]}, indent=2) + "\n")
        return 0
    for use in uses:
        out.write(json.dumps(use.to_dict(), ensure_ascii=False) + "\n")
    return 0


def cmd_clear(args: argparse.Namespace, out: TextIO) -> int:
    path = _path(args)
    if args.tenant is None:
        try:
            forgotten = sum(1 for _ in read_uses(path))
        except UsageStoreDamaged:
            forgotten = 0  # what a damaged file held is not known; it goes all the same
        path.unlink(missing_ok=True)
    else:
        uses = _uses(argparse.Namespace(path=args.path, tenant=None))
        if uses is None:
            sys.stderr.write("  (clear the whole store, without --tenant, to start afresh)\n")
            return 2
        kept = [use for use in uses if use.tenant != args.tenant]
        forgotten = len(uses) - len(kept)
        if path.exists():
            write_uses(path, kept)
    if args.json:
        out.write(json.dumps({"path": str(path), "forgotten": forgotten}) + "\n")
    else:
        out.write(f"forgot {forgotten:,} uses in {path}\n")
    return 0
