"""The toolscout plugin of toolscout-bench: adds the `toolscout bench` command.

Light on purpose: registering the command builds an argparse parser and nothing more; the
benchmark (matplotlib, bm25s, the backends) is imported when the command runs.
"""

from __future__ import annotations

from typing import Any

import toolscout


@toolscout.hookimpl
def register_commands(subparsers: Any) -> None:
    from toolscout_bench.cli import add_command

    add_command(subparsers)
