"""Test helpers: the conformance suites of backends and integrations, a reference index.

A backend author subclasses `ToolIndexConformance`, overrides the `index` fixture to return
an empty index of their backend, and runs pytest. An agent-framework integration's author
subclasses `IntegrationConformance` and supplies a model fixture and three adapter methods
(`toolscout.testing.integration`). Install with `pip install "./core[testing]"` from a clone.

`ReferenceToolIndex` needs neither pytest nor Hypothesis; the suite (imported on first use
of `ToolIndexConformance`) needs both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscout.lazy import lazy_attributes
from toolscout.testing.reference import ReferenceToolIndex

if TYPE_CHECKING:
    from toolscout.testing.conformance import ToolIndexConformance
    from toolscout.testing.integration import IntegrationConformance
    from toolscout.testing.shared_store import SharedStoreConformance
    from toolscout.testing.stateful import ToolIndexStateMachine

__all__ = [
    "IntegrationConformance",
    "ReferenceToolIndex",
    "SharedStoreConformance",
    "ToolIndexConformance",
    "ToolIndexStateMachine",
]

# Imported on first use: they import pytest and Hypothesis (the `testing` extra).
_LAZY = {
    "ToolIndexConformance": "toolscout.testing.conformance",
    "IntegrationConformance": "toolscout.testing.integration",
    "SharedStoreConformance": "toolscout.testing.shared_store",
    "ToolIndexStateMachine": "toolscout.testing.stateful",
}

__getattr__ = lazy_attributes(__name__, _LAZY)
