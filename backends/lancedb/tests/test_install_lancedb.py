"""The lancedb the backend pins: fast to import, and its SQL filters hold any tool name.

lancedb 0.25 and later import a generated REST client (`lance_namespace_urllib3_client`,
hundreds of pydantic models) on `import lancedb`: 1.3-1.9 s where 0.24 takes 0.5-0.7 s, most
of a CLI search's start-up. The backend therefore pins lancedb below 0.25, where filters
are SQL strings (no `lancedb.expr`): names are quoted by doubling their quotes, which these
tests check on names that look like SQL.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
import pytest
from toolscout import ToolReference, ToolSearchRequest
from toolscout_lancedb import LanceDBToolIndex

#: The generated client lancedb 0.25+ imports at start-up.
SLOW_CLIENT = "lance_namespace_urllib3_client"

ODD_NAMES = [
    "it's_quoted",
    "x' OR '1'='1",
    "back\\slash",
    'double"quote',
    "名前_検索",
    "semi;colon -- comment",
]


class WordHashEmbedder:
    """A small real embedder: each word hashed into one of 64 dimensions."""

    name: ClassVar[str] = "word-hash"
    model_id = "test/word-hash-64"
    dimension = 64

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        matrix = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                matrix[row, hashlib.blake2b(word.encode()).digest()[0] % 64] += 1.0
        return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)


def test_importing_lancedb_does_not_import_the_generated_rest_client() -> None:
    code = f"import sys, lancedb; print({SLOW_CLIENT!r} in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert result.stdout.strip() == "False", (
        f"import lancedb imports {SLOW_CLIENT} (about a second): lancedb 0.25 or later is "
        "installed; the backend pins lancedb<0.25"
    )


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_names_that_look_like_sql_are_filtered_and_changed_exactly(mode: str) -> None:
    tools = [
        ToolReference(name, f"tool number {i} reads the weather", None, {"n": i})
        for i, name in enumerate(ODD_NAMES)
    ]
    index = LanceDBToolIndex(WordHashEmbedder(), mode=mode)
    index.index_tools("s", tools)
    for i, name in enumerate(ODD_NAMES):
        response = index.search(ToolSearchRequest("s", "weather", 10, {"n": i}))
        found = list(response.names)
        assert found == [name], f"the filter on {name!r} let {found} through"
    # A change in place deletes exactly the removed names, quotes and all.
    index.remove_tools("s", ["x' OR '1'='1", "it's_quoted"])
    left = index.search(ToolSearchRequest("s", "weather", 10)).names
    assert sorted(left) == sorted(set(ODD_NAMES) - {"x' OR '1'='1", "it's_quoted"})
