"""The hooks a toolscout plugin can implement.

A plugin is a module named by an entry point in the `toolscout` group. It implements any
of these hooks with `@toolscout.hookimpl`; each hook receives a `register` callback
(the style of simonw/llm) rather than returning a list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy

hookspec = pluggy.HookspecMarker("toolscout")
hookimpl = pluggy.HookimplMarker("toolscout")


@hookspec
def register_backends(register: Callable[[type[Any]], None]) -> None:
    """Register `ToolIndex` classes by calling `register(cls)` for each.

    The class carries `name` (the backend name used in config), `capabilities`, and
    optionally an `Options` pydantic model that validates its configuration table.
    Runs only when a backend is asked for (or listed), not when the plugin module is
    imported; import the backend's module inside this hook, not at plugin import time.

    :param register: callback taking one backend class.

    .. versionadded:: 0.1
    """


@hookspec
def register_embedders(register: Callable[[type[Any]], None]) -> None:
    """Register `Embedder` classes by calling `register(cls)` for each.

    The class carries `name` (the embedder name used in config) and optionally an
    `Options` pydantic model, like a backend.

    :param register: callback taking one embedder class.

    .. versionadded:: 0.1
    """


@hookspec
def register_commands(subparsers: Any) -> None:
    """Add subcommands to the `toolscout` CLI (e.g. `toolscout mcp ...`).

    Call `subparsers.add_parser(NAME, help=...)` (an argparse sub-parsers action) and set
    `handler=func` on the new parser with `set_defaults`; the CLI calls
    `func(args, out) -> int` (the exit status). It runs for `toolscout --help` and for
    commands that are not built in, so build the parser with argparse alone and keep
    other imports inside the handler.

    :param subparsers: the `toolscout` parser's sub-parsers action.

    .. versionadded:: 0.1
    """


@hookspec
def register_cache_folders(register: Callable[[str, str], None]) -> None:
    """Name the folders this plugin keeps in toolscout's cache directory, by calling
    `register(folder, description)` for each (e.g. `register("onnx", "built ONNX
    models")`). `toolscout cache show` lists each folder's entries and size, and
    `toolscout cache clear` removes them (all parts, or the ones named). Entries whose
    names start with a dot are bookkeeping: removed with the rest, not listed.

    :param register: callback taking a folder name (one path component under the cache
        directory) and a short description.

    .. versionadded:: 0.1
    """
