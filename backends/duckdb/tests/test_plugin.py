"""The plugin registers through the entry point and imports nothing heavy."""

from __future__ import annotations

import subprocess
import sys

import toolscout
from toolscout_duckdb import DuckDBToolIndex


def test_load_index_by_name_builds_the_backend() -> None:
    index = toolscout.load_index("duckdb")
    assert isinstance(index, DuckDBToolIndex)
    assert index.name == "duckdb"
    assert index.capabilities.persistent and not index.capabilities.arrow_ingest
    index.close()


def test_backend_selected_in_config(tmp_path: object) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path))
    (folder / "toolscout.toml").write_text(
        'backend = "duckdb"\n[backends.duckdb]\nstemming = false\nname_weight = 2.0\n'
    )
    settings = toolscout.load_settings(folder)
    index = toolscout.load_index(settings=settings)
    assert isinstance(index, DuckDBToolIndex)
    assert (index.options.stemming, index.options.name_weight) == (False, 2.0)
    index.close()


def test_importing_the_plugin_does_not_import_duckdb() -> None:
    code = (
        "import sys, toolscout_duckdb.plugin, toolscout_duckdb; "
        "print([m for m in ('duckdb', 'pyarrow', 'numpy') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
