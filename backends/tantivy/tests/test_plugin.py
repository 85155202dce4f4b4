"""The plugin: found by name through the entry point, and light to import."""

from __future__ import annotations

import subprocess
import sys

import toolscout
from toolscout.plugins import registry
from toolscout_tantivy import TantivyToolIndex


def test_the_backend_is_registered_under_its_name() -> None:
    entry = registry.backend("tantivy")
    assert entry.cls is TantivyToolIndex
    assert entry.distribution == "toolscout-tantivy"


def test_load_index_builds_a_ram_index_by_default() -> None:
    index = toolscout.load_index("tantivy")
    try:
        assert isinstance(index, TantivyToolIndex)
        assert index.options.path is None
    finally:
        index.close()


def test_the_capabilities_are_declared_on_the_class() -> None:
    enabled = set(TantivyToolIndex.capabilities.enabled())
    assert enabled == {"remove_tools", "persistent", "metadata_filter", "min_score"}


def test_importing_the_plugin_module_imports_neither_tantivy_nor_the_index() -> None:
    code = (
        "import sys, toolscout_tantivy.plugin; "
        "print(sorted(m for m in ('tantivy', 'toolscout_tantivy.index') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
