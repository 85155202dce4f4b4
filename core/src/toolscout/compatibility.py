"""Whether a plugin distribution was built for the installed core.

Each distribution declares the core range it was tested with (`toolscout>=0.1,<0.2`), so
pip refuses or warns about a wrong pair at install time. A pair that got past it anyway
(`--no-deps`, an upgrade of core alone, an editable checkout of another branch) shows up
when a plugin fails to load or to build: the registry then asks `core_mismatch`, and a
plugin built for another core is reported in one line naming both versions and the fix,
not as the `AttributeError` or `ImportError` the mismatch caused. A plugin that loads reads
no metadata for this (loading a backend by name stays a metadata-free path).
"""

from __future__ import annotations

from importlib import metadata

__all__ = ["CORE_DISTRIBUTION", "core_mismatch", "core_requirement"]

#: The distribution name of core.
CORE_DISTRIBUTION = "toolscout"


def _canonical(name: str) -> str:
    return name.replace("_", "-").replace(".", "-").lower()


def core_requirement(distribution: str) -> str | None:
    """The version range of core that `distribution` requires (`>=0.1,<0.2`), "" when it
    requires core with no range, or None when it does not require core (or is not installed).
    Requirements of its extras do not count: they apply only when asked for."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        declared = metadata.requires(distribution) or []
    except metadata.PackageNotFoundError:
        return None
    for line in declared:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        if _canonical(requirement.name) != CORE_DISTRIBUTION:
            continue
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        return str(requirement.specifier)
    return None


def core_mismatch(distribution: str, fix: str | None = None) -> str | None:
    """One line saying that `distribution` needs another core than the installed one, with
    the fix; None when the installed core is in its range (or either is not installed as a
    distribution, as when running from a source tree). `fix` replaces the generic advice
    (first-party plugins name the folders to install from)."""
    from packaging.specifiers import SpecifierSet
    from packaging.version import InvalidVersion, Version

    wanted = core_requirement(distribution)
    if not wanted:
        return None
    try:
        core = metadata.version(CORE_DISTRIBUTION)
        mine = metadata.version(distribution)
        compatible = SpecifierSet(wanted).contains(Version(core), prereleases=True)
    except (metadata.PackageNotFoundError, InvalidVersion):
        return None
    if compatible:
        return None
    advice = fix or (
        f"install a {distribution} release made for toolscout {core}, or the toolscout "
        f'it was made for: pip install "toolscout{wanted}"'
    )
    return (
        f"{distribution} {mine} was made for toolscout{wanted} but toolscout {core} is "
        f"installed; {advice}"
    )
