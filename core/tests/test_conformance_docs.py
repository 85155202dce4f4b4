"""docs/writing-a-backend.md: its example backend is real, registers, configures, and passes
the whole conformance suite, and the page shows exactly the files that are tested.

`TestMiniBM25`, imported below from docs/examples/test_example_backend.py, is the page's
own test class; pytest collects it here, so core's run executes the documented suite.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import toolscout
from toolscout import ConfigError, ToolReference, ToolSearchRequest
from toolscout.config import Settings
from toolscout.plugins import registry

DOCS = Path(__file__).resolve().parents[2] / "docs"
EXAMPLES = DOCS / "examples"
PAGE = DOCS / "writing-a-backend.md"


def _load(name: str) -> ModuleType:
    # On sys.path too: the shared-store cases import the example again in the processes
    # they start.
    if str(EXAMPLES) not in sys.path:
        sys.path.append(str(EXAMPLES))
    loaded = sys.modules.get(name)
    if loaded is not None and getattr(loaded, "__file__", None) == str(EXAMPLES / f"{name}.py"):
        return loaded  # collected from docs/examples in the same run: its classes must stay
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # the docs' test module imports `example_backend`
    spec.loader.exec_module(module)
    return module


example_backend = _load("example_backend")
TestMiniBM25 = _load("test_example_backend").TestMiniBM25
shared_store = _load("shared_store")
TestSQLiteSharedIndex = _load("test_shared_store").TestSQLiteSharedIndex
vector_backend = _load("vector_backend")
vector_tests = _load("test_vector_backend")
# The vector example embeds with toolscout-onnx: core's own session (no plugin installed)
# skips it, and nox's integration session, with every distribution, runs it.
_ONNX = importlib.util.find_spec("toolscout_onnx") is not None
TestSQLiteVectorHybrid = pytest.mark.skipif(
    not _ONNX, reason="embeds with toolscout-onnx: pip install ./core ./contrib/onnx"
)(vector_tests.TestSQLiteVectorHybrid)
TestSQLiteVectorOnly = vector_tests.TestSQLiteVectorOnly


def _titled_block(title: str) -> str:
    match = re.search(rf'```python title="{re.escape(title)}"\n(.*?)```', PAGE.read_text(), re.S)
    assert match, f'{PAGE.name} has no ```python title="{title}" block'
    return match.group(1)


@pytest.mark.parametrize(
    "name",
    [
        "conftest.py",
        "example_backend.py",
        "test_example_backend.py",
        "shared_store.py",
        "test_shared_store.py",
        "vector_backend.py",
        "test_vector_backend.py",
    ],
)
def test_page_shows_the_tested_file_verbatim(name: str) -> None:
    assert _titled_block(name) == (EXAMPLES / name).read_text(), (
        f"docs/writing-a-backend.md and docs/examples/{name} differ; copy the file into the page"
    )


@pytest.fixture
def registered() -> Iterator[None]:
    registry.register_plugin(example_backend, name="minibm25-docs-example")
    yield
    registry.unregister_plugin("minibm25-docs-example")


def test_example_registers_and_loads_by_name(registered: None) -> None:
    index = toolscout.load_index("minibm25", settings=Settings(), k1=1.5, name_weight=2)
    assert isinstance(index, example_backend.MiniBM25Index)
    assert (index.k1, index.b, index.name_weight) == (1.5, 0.75, 2)
    index.index_tools("s", [ToolReference("get_weather", "Current weather for a city.")])
    assert index.search(ToolSearchRequest("s", "weather")).names == ["get_weather"]


@pytest.mark.parametrize(
    ("options", "named"),
    [({"k_1": 1.5}, "k_1"), ({"b": 2}, "b"), ({"name_weight": 0}, "name_weight")],
)
def test_example_options_reject_bad_keys_and_values(
    registered: None, options: dict[str, Any], named: str
) -> None:
    with pytest.raises(ConfigError, match=named):
        toolscout.load_index("minibm25", settings=Settings(), **options)
