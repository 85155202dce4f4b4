"""`toolscout cache show|clear`: what toolscout keeps in its cache directory, and removing it.

    toolscout cache show [--json]
    toolscout cache clear [--vectors | --models] [--model MODEL_ID]

The cache directory is `TOOLSCOUT_CACHE_DIR`, else the user cache directory
(`~/.cache/toolscout` on Linux). It holds the vector cache (`vectors/vectors.sqlite3`,
vectors of tool texts by model id and text) and built ONNX models (`onnx/<key>/`).
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path
from typing import Any, TextIO

__all__ = ["add_commands", "cache_report", "clear_cache"]


def add_commands(subparsers: Any) -> None:
    cache = subparsers.add_parser("cache", help="show or clear the vector cache and built models")
    commands = cache.add_subparsers(dest="cache_command", metavar="ACTION")
    show = commands.add_parser("show", help="where the cache is, what it holds, its bound")
    show.add_argument("--json", action="store_true", help="print JSON")
    show.set_defaults(handler=cmd_show)
    clear = commands.add_parser("clear", help="remove cached vectors and built models")
    what = clear.add_mutually_exclusive_group()
    what.add_argument("--vectors", action="store_true", help="only the vectors")
    what.add_argument("--models", action="store_true", help="only the built ONNX models")
    clear.add_argument("--model", metavar="MODEL_ID", help="only the vectors of this model id")
    clear.add_argument("--json", action="store_true", help="print JSON")
    clear.set_defaults(handler=cmd_clear)
    cache.set_defaults(handler=cmd_show, json=False)


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _built_models() -> list[dict[str, Any]]:
    from toolscout_onnx.build import models_dir

    folder = models_dir()
    if not folder.is_dir():
        return []
    return [
        {"key": entry.name, "path": str(entry), "bytes": _size(entry)}
        for entry in sorted(folder.iterdir())
        if entry.is_dir() and not entry.name.startswith(".")
    ]


def cache_report() -> dict[str, Any]:
    """Where the cache is and what it holds, as `toolscout cache show --json` prints it."""
    from toolscout.embedders import (
        CACHE_DIR_ENV,
        cache_max_bytes,
        cache_root,
        disk_cache_stats,
        vector_cache_dir,
    )

    vectors_dir = vector_cache_dir()
    stats = disk_cache_stats() if vectors_dir is not None else None
    return {
        "directory": str(cache_root()),
        "set_by": CACHE_DIR_ENV,
        "vectors": {
            "enabled": vectors_dir is not None,
            "path": None if vectors_dir is None else str(vectors_dir / "vectors.sqlite3"),
            "bytes": 0 if stats is None else stats["bytes"],
            "file_bytes": 0 if stats is None else stats["file_bytes"],
            "max_bytes": cache_max_bytes(),
            "models": [] if stats is None else stats["models"],
        },
        "built_models": _built_models(),
    }


def clear_cache(
    *, vectors: bool = True, models: bool = True, model: str | None = None
) -> dict[str, int]:
    """Remove cached vectors (all, or one model id's) and built ONNX models."""
    from toolscout.embedders import clear_disk_cache, shared_cache

    from toolscout_onnx.build import models_dir

    removed = {"vectors": 0, "built_models": 0}
    if vectors:
        removed["vectors"] = clear_disk_cache(model=model)
        shared_cache().clear()
    if models and model is None:
        folder = models_dir()
        if folder.is_dir():
            for entry in folder.iterdir():
                if entry.is_dir():
                    shutil.rmtree(entry, ignore_errors=True)
                    removed["built_models"] += 1
                else:
                    entry.unlink(missing_ok=True)
    return removed


def _mb(size: int) -> str:
    return f"{size / (1 << 20):,.1f} MB"


def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    report = cache_report()
    if getattr(args, "json", False):
        out.write(json.dumps(report, indent=2) + "\n")
        return 0
    vectors = report["vectors"]
    out.write(f"cache directory: {report['directory']} (set {report['set_by']} to move it)\n")
    if not vectors["enabled"]:
        out.write(f"vector cache: off ({report['set_by']}=off)\n")
    else:
        out.write(
            f"vector cache: {vectors['path']}\n"
            f"  {_mb(vectors['bytes'])} stored of {_mb(vectors['max_bytes'])} "
            f"(file {_mb(vectors['file_bytes'])}); least recently used go first past the bound\n"
        )
        for entry in vectors["models"]:
            out.write(f"  {entry['model']}: {entry['vectors']:,} vectors of {entry['dimension']}\n")
        if not vectors["models"]:
            out.write("  no vectors yet\n")
    built = report["built_models"]
    out.write(f"built models: {len(built)}, {_mb(sum(b['bytes'] for b in built))}\n")
    for entry in built:
        out.write(f"  {entry['path']} ({_mb(entry['bytes'])})\n")
    return 0


def cmd_clear(args: argparse.Namespace, out: TextIO) -> int:
    removed = clear_cache(
        vectors=not args.models, models=not args.vectors and args.model is None, model=args.model
    )
    if args.json:
        out.write(json.dumps(removed) + "\n")
    else:
        out.write(
            f"removed {removed['vectors']:,} vectors and {removed['built_models']} built models\n"
        )
    return 0
