"""What toolscout keeps in its cache directory, and removing it (`toolscout cache`).

    toolscout cache show [--json]
    toolscout cache clear [PART ...] [--model MODEL_ID] [--json]

The cache directory is `TOOLSCOUT_CACHE_DIR`, else the user cache directory
(`~/.cache/toolscout` on Linux). Core keeps two parts there: `vectors`, the vectors of
tool texts by model id and text (`vectors/vectors.sqlite3`), and `tokens`, the token
counts of tool definitions (`tokens/counts.sqlite3`). Plugins name their own folders with
the `register_cache_folders` hook (toolscout-onnx: `onnx`, its built models); each is a
part too, listed entry by entry.

`show` reports a vector or token-count file SQLite cannot read as damaged instead of
failing, and `clear` deletes the files of what it clears: the disk space comes back, and a
damaged file goes as well.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import argparse

__all__ = ["CORE_PARTS", "add_command", "cache_report", "clear_cache"]

#: Core's parts of the cache directory, by name.
CORE_PARTS = {
    "vectors": "vectors of tool texts, by model",
    "tokens": "token counts of tool definitions",
}


def _plugin_folders() -> dict[str, str]:
    from toolscout.plugins import registry

    return {
        name: description
        for name, description in registry.cache_folders().items()
        if name not in CORE_PARTS
    }


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def _folder_report(folder: Path, description: str) -> dict[str, Any]:
    entries = (
        [
            {"name": entry.name, "path": str(entry), "bytes": _size(entry)}
            for entry in sorted(folder.iterdir())
            if not entry.name.startswith(".")
        ]
        if folder.is_dir()
        else []
    )
    return {
        "name": folder.name,
        "description": description,
        "path": str(folder),
        "bytes": sum(entry["bytes"] for entry in entries),
        "entries": entries,
    }


def _source() -> str:
    """Where the cache directory comes from: environment, settings or default."""
    from toolscout.embedders import CACHE_DIR_ENV, _setting

    if CACHE_DIR_ENV in os.environ:
        return "environment"
    return "settings" if _setting("cache_dir") is not None else "default"


def cache_report() -> dict[str, Any]:
    """Where the cache is and what it holds, as `toolscout cache show --json` prints it."""
    from toolscout.embedders import (
        CACHE_DIR_ENV,
        cache_max_bytes,
        cache_root,
        disk_cache_stats,
        vector_cache_dir,
    )
    from toolscout.tokens import token_cache_stats

    root = cache_root()
    vectors_dir = vector_cache_dir()
    stats = disk_cache_stats(vectors_dir) if vectors_dir is not None else None
    return {
        "directory": str(root),
        "set_by": CACHE_DIR_ENV,
        "source": _source(),
        "vectors": {
            "enabled": vectors_dir is not None,
            "path": None if vectors_dir is None else str(vectors_dir / "vectors.sqlite3"),
            "bytes": 0 if stats is None else stats["bytes"],
            "file_bytes": 0 if stats is None else stats["file_bytes"],
            "max_bytes": cache_max_bytes(),
            "models": [] if stats is None else stats["models"],
            "damaged": None if stats is None else stats["damaged"],
        },
        "tokens": token_cache_stats(),
        "folders": [
            _folder_report(root / name, description)
            for name, description in _plugin_folders().items()
        ],
    }


def clear_cache(parts: list[str] | None = None, *, model: str | None = None) -> dict[str, int]:
    """Remove what `parts` hold (default: every part; with `model`, that model id's
    vectors only), and return how much went, by part: vectors, token counts, or a
    plugin folder's entries."""
    import shutil

    from toolscout.embedders import cache_root, clear_disk_cache, forget_shared_vectors
    from toolscout.tokens import clear_token_cache

    folders = _plugin_folders()
    known = [*CORE_PARTS, *folders]
    if model is not None:
        if parts and parts != ["vectors"]:
            raise ValueError("--model picks one model's vectors: give no part, or `vectors`")
        parts = ["vectors"]
    wanted = parts or known
    unknown = [part for part in wanted if part not in known]
    if unknown:
        raise ValueError(
            f"no cache part {', '.join(map(repr, unknown))}; the parts are "
            f"{', '.join(known)} (see `toolscout cache show`)"
        )
    if model is not None:
        _check_model(model)
    root = cache_root()
    removed: dict[str, int] = {}
    for part in wanted:
        if part == "vectors":
            removed[part] = clear_disk_cache(model=model)
            forget_shared_vectors()
        elif part == "tokens":
            removed[part] = clear_token_cache()
        else:
            removed[part] = 0
            folder = root / part
            if folder.is_dir():
                for entry in folder.iterdir():
                    if entry.is_dir():
                        shutil.rmtree(entry, ignore_errors=True)
                    else:
                        entry.unlink(missing_ok=True)
                    if not entry.name.startswith("."):
                        removed[part] += 1
    return removed


def _check_model(model: str) -> None:
    """Refuse a model id the vector cache holds no vectors of, naming those it holds."""
    from toolscout.embedders import disk_cache_stats

    stats = disk_cache_stats()
    if stats is not None and stats["damaged"] is not None:
        raise OSError(
            f"the vector cache {stats['path']} is damaged ({stats['damaged']}); "
            "`toolscout cache clear vectors` removes it"
        )
    models = [entry["model"] for entry in stats["models"]] if stats is not None else []
    if model not in models:
        held = f"it holds vectors of {', '.join(models)}" if models else "it holds no vectors"
        raise ValueError(
            f"no vectors of model {model!r} in the vector cache; {held} "
            "(see `toolscout cache show`)"
        )


# --- the command ------------------------------------------------------------------------


def add_command(commands: Any) -> None:
    """Add `toolscout cache show|clear` to the CLI's sub-parsers."""
    cache = commands.add_parser("cache", help="show or clear what toolscout caches on disk")
    actions = cache.add_subparsers(dest="cache_command", metavar="ACTION")
    show = actions.add_parser("show", help="where the cache is, what it holds, its bound")
    show.add_argument("--json", action="store_true", help="print JSON")
    show.set_defaults(handler=cmd_show)
    clear = actions.add_parser("clear", help="remove cached vectors, token counts, models")
    clear.add_argument(
        "parts",
        nargs="*",
        metavar="PART",
        help="vectors, tokens, or a plugin's folder (e.g. onnx); default: all",
    )
    clear.add_argument("--model", metavar="MODEL_ID", help="only the vectors of this model id")
    clear.add_argument("--json", action="store_true", help="print JSON")
    clear.set_defaults(handler=cmd_clear)
    cache.set_defaults(handler=cmd_show, json=False)


def _mb(size: int) -> str:
    return f"{size / (1 << 20):,.1f} MB"


def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    report = cache_report()
    if getattr(args, "json", False):
        out.write(json.dumps(report, indent=2) + "\n")
        return 0
    vectors = report["vectors"]
    where = {
        "environment": f"from {report['set_by']}",
        "settings": "from the cache_dir setting",
        "default": f"set {report['set_by']} to move it",
    }[report["source"]]
    out.write(f"cache directory: {report['directory']} ({where})\n")
    if not vectors["enabled"]:
        out.write(f"vectors: off ({report['set_by']}=off)\n")
    elif vectors["damaged"] is not None:
        out.write(
            f"vectors: {vectors['path']}\n  damaged ({vectors['damaged']}; file "
            f"{_mb(vectors['file_bytes'])}): `toolscout cache clear vectors` removes it\n"
        )
    else:
        out.write(
            f"vectors: {vectors['path']}\n"
            f"  {_mb(vectors['bytes'])} stored of {_mb(vectors['max_bytes'])} "
            f"(file {_mb(vectors['file_bytes'])}); least recently used go first past the bound\n"
        )
        for entry in vectors["models"]:
            out.write(f"  {entry['model']}: {entry['vectors']:,} vectors of {entry['dimension']}\n")
        if not vectors["models"]:
            out.write("  no vectors yet\n")
    tokens = report["tokens"]
    if tokens["path"] is None:
        out.write(f"tokens: off ({report['set_by']}=off)\n")
    elif tokens["damaged"] is not None:
        out.write(
            f"tokens: {tokens['path']}\n  damaged ({tokens['damaged']}; file "
            f"{_mb(tokens['file_bytes'])}): `toolscout cache clear tokens` removes it\n"
        )
    else:
        out.write(
            f"tokens: {tokens['path']}\n  {tokens['counts']:,} token counts "
            f"(file {_mb(tokens['file_bytes'])})\n"
        )
    for folder in report["folders"]:
        out.write(
            f"{folder['name']}: {folder['description']}: {len(folder['entries'])} entries, "
            f"{_mb(folder['bytes'])}\n"
        )
        for entry in folder["entries"]:
            out.write(f"  {entry['path']} ({_mb(entry['bytes'])})\n")
    return 0


def cmd_clear(args: argparse.Namespace, out: TextIO) -> int:
    removed = clear_cache(list(args.parts), model=args.model)
    if args.json:
        out.write(json.dumps(removed) + "\n")
    else:
        out.write(f"removed {', '.join(f'{part}: {n:,}' for part, n in removed.items())}\n")
    return 0
