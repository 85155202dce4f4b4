"""`FixtureIndex`: the reference index under another name, with one validated option."""

from __future__ import annotations

from typing import Any, ClassVar

from toolscout.options import IndexOptions
from toolscout.testing import ReferenceToolIndex


class FixtureOptions(IndexOptions):
    label: str = "default"


class FixtureIndex(ReferenceToolIndex):
    """Searches like `ReferenceToolIndex`; `label` shows which options reached it."""

    name: ClassVar[str] = "fixture_good"
    Options: ClassVar[type[IndexOptions] | None] = FixtureOptions

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.label = self.options.label
