"""Test helpers for toolscout backends: the conformance suite and a reference index.

A backend author subclasses `ToolIndexConformance`, overrides the `index` fixture to return
an empty index of their backend, and runs pytest. Install with `pip install toolscout[testing]`.
"""

from __future__ import annotations

from toolscout.testing.reference import ReferenceToolIndex

__all__ = ["ReferenceToolIndex"]
