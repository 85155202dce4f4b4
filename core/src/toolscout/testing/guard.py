"""The guard both standard suites share: a subclass may override a standard test only to
mark it `xfail` with a reason (langchain-tests' rule), so no one quietly drops part of the
contract."""

from __future__ import annotations

__all__ = ["has_xfail_reason", "overridden_without_xfail"]


def has_xfail_reason(function: object) -> bool:
    for mark in getattr(function, "pytestmark", []):
        if mark.name == "xfail":
            reason = mark.kwargs.get("reason")
            if isinstance(reason, str) and reason.strip():
                return True
    return False


def overridden_without_xfail(base: type, cls: type, guard: str) -> list[str]:
    """The standard tests of `base` that `cls` overrides (or removes) without an
    `xfail(reason=...)`; `guard` (the test doing this check) may not be overridden at all."""
    bad = []
    for name in sorted(n for n in dir(base) if n.startswith("test_")):
        mine = getattr(cls, name, None)
        if mine is getattr(base, name):
            continue
        if name == guard or not has_xfail_reason(mine):
            bad.append(name)
    return bad
