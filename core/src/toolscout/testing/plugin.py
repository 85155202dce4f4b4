"""The pytest plugin toolscout registers (entry point `pytest11`)."""

from __future__ import annotations
