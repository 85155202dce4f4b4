"""Loading the packaged fts extension, and the error when DuckDB's version has no build."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from toolscout_duckdb.extension import (
    FtsExtensionError,
    check_version,
    extension_file,
    load_fts,
    packaged_versions,
)


def test_the_installed_package_has_a_build_for_the_running_duckdb() -> None:
    assert duckdb.__version__ in packaged_versions()
    assert extension_file(f"v{duckdb.__version__}").is_file()


def test_matching_version_is_accepted_with_or_without_leading_v() -> None:
    assert check_version("v1.5.5", ["1.5.5"]) == "1.5.5"
    assert check_version("1.5.5", ["1.4.4", "1.5.5"]) == "1.5.5"


def test_other_version_names_the_versions_that_work_and_the_fix() -> None:
    with pytest.raises(FtsExtensionError) as caught:
        check_version("v1.9.0", ["1.5.5"])
    message = str(caught.value)
    assert "DuckDB 1.9.0 is running" in message
    assert "only for DuckDB 1.5.5" in message
    assert "pip install 'duckdb==1.5.5' 'duckdb-extension-fts==1.5.5'" in message


def test_package_without_any_build_says_to_reinstall() -> None:
    with pytest.raises(FtsExtensionError, match="no fts extension build at all"):
        check_version("1.5.5", [])


def test_packaged_versions_reads_version_folders(tmp_path: Path) -> None:
    for version in ("v1.4.4", "v1.5.5"):
        (tmp_path / version).mkdir()
        (tmp_path / version / "fts.duckdb_extension").write_bytes(b"")
    (tmp_path / "v9.9.9").mkdir()  # no extension file in it: not a usable build
    (tmp_path / "README").write_text("")
    assert packaged_versions(tmp_path) == ["1.4.4", "1.5.5"]


def test_load_fts_gives_every_cursor_the_stemmer() -> None:
    con = duckdb.connect()
    load_fts(con)
    cursor = con.cursor()
    row = cursor.execute("SELECT stem('running', 'porter'), stem('searches', 'english')").fetchone()
    assert row == ("run", "search")
    con.close()
