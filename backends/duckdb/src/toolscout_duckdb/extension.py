"""Loading DuckDB's `fts` extension from its PyPI package, offline.

DuckDB would normally download `fts` on first use; here nothing may be downloaded, so the
extension comes from the `duckdb-extension-fts` wheel, which ships a build for exactly one
DuckDB version. The running DuckDB must be that version: `check_version` says so plainly
when it is not, and how to fix it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolscout.errors import ToolscoutError

if TYPE_CHECKING:
    import duckdb

__all__ = [
    "EXTENSION_PACKAGE",
    "FtsExtensionError",
    "check_version",
    "extension_file",
    "load_fts",
    "packaged_versions",
]

EXTENSION_PACKAGE = "duckdb-extension-fts"
_FILE_NAME = "fts.duckdb_extension"
_VERSION_DIR = re.compile(r"^v?(\d+\.\d+\.\d+\S*)$")


class FtsExtensionError(ToolscoutError, RuntimeError):
    """DuckDB's `fts` extension is missing or was built for another DuckDB version."""


def _package_dir() -> Path:
    try:
        import duckdb_extension_fts
    except ImportError:
        raise FtsExtensionError(
            f"DuckDB's fts extension is not installed; it comes from the {EXTENSION_PACKAGE} "
            "package, built for one exact DuckDB version. Fix: pip install toolscout-duckdb "
            f"(which pins both), or pip install 'duckdb==X' '{EXTENSION_PACKAGE}==X' "
            "with the same X"
        ) from None
    return Path(duckdb_extension_fts.__file__).parent / "extensions"


def packaged_versions(extensions_dir: Path | None = None) -> list[str]:
    """The DuckDB versions the installed extension package has an `fts` build for."""
    root = extensions_dir if extensions_dir is not None else _package_dir()
    versions = []
    if root.is_dir():
        for child in root.iterdir():
            match = _VERSION_DIR.match(child.name)
            if match and (child / _FILE_NAME).is_file():
                versions.append(match.group(1))
    return sorted(versions)


def check_version(duckdb_version: str, available: Sequence[str]) -> str:
    """Return `duckdb_version` (without a leading `v`) if an `fts` build exists for it.

    Otherwise raise `FtsExtensionError` naming the versions that work and the install
    command that fixes it. A pure function, so the error path is testable.
    """
    wanted = duckdb_version.strip().removeprefix("v")
    if wanted in available:
        return wanted
    if available:
        pins = " or ".join(
            f"pip install 'duckdb=={v}' '{EXTENSION_PACKAGE}=={v}'" for v in available
        )
        works = ", ".join(available)
        raise FtsExtensionError(
            f"DuckDB {wanted} is running, but the installed {EXTENSION_PACKAGE} ships the fts "
            f"extension only for DuckDB {works}; the versions must match exactly. Fix: {pins} "
            "(or reinstall toolscout-duckdb, which pins a matching pair)"
        )
    raise FtsExtensionError(
        f"the installed {EXTENSION_PACKAGE} has no fts extension build at all; reinstall it "
        f"with: pip install --force-reinstall 'duckdb=={wanted}' '{EXTENSION_PACKAGE}=={wanted}'"
    )


def extension_file(duckdb_version: str) -> Path:
    """The packaged `fts` build for this DuckDB version (checked with `check_version`)."""
    root = _package_dir()
    version = check_version(duckdb_version, packaged_versions(root))
    return root / f"v{version}" / _FILE_NAME


def load_fts(con: duckdb.DuckDBPyConnection) -> None:
    """Load `fts` into the database of `con` straight from the package's file.

    `LOAD 'file'` rather than `INSTALL`: nothing is copied into ~/.duckdb, so a read-only
    home directory works too. Loading is per database, so every cursor then has it.
    """
    row = con.execute("PRAGMA version").fetchone()
    assert row is not None
    path = extension_file(str(row[0]))
    con.execute(f"LOAD '{str(path).replace(chr(39), chr(39) * 2)}'")
