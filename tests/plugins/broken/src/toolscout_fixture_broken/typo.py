"""A plugin with a misspelled hook (`register_backend`), which must fail at start-up."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import toolscout


class TypoIndex:
    """Never registered: the misspelled hook below is rejected first."""

    name = "fixture_typo"


@toolscout.hookimpl
def register_backend(register: Callable[[type[Any]], None]) -> None:
    register(TypoIndex)
