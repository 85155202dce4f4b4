"""`FixtureIndex`: the reference index under another name, with one validated option."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict
from toolscout.testing import ReferenceToolIndex


class FixtureIndex(ReferenceToolIndex):
    """Searches like `ReferenceToolIndex`; `label` shows which options reached it."""

    name: ClassVar[str] = "fixture_good"

    class Options(BaseModel):
        model_config = ConfigDict(extra="forbid")
        label: str = "default"

    def __init__(self, label: str = "default") -> None:
        super().__init__()
        self.label = label
