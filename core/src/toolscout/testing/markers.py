"""Names of the pytest markers the conformance suite uses (registered by its plugin)."""

from __future__ import annotations

__all__ = ["CAPABILITY_MARKER", "CONFORMANCE_MARKER"]

#: `@pytest.mark.toolscout_capability("remove_tools")`: skip unless the backend declares it.
CAPABILITY_MARKER = "toolscout_capability"

#: Carried by every conformance test, so `-m toolscout_conformance` selects the suite.
CONFORMANCE_MARKER = "toolscout_conformance"
