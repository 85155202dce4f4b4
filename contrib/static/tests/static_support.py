"""Helpers of the tests: texts to compare tokenizers on, the evaluation catalogs (when
../shared/eval is there) and a safetensors writer for damaged model files."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path
from typing import Any

import numpy as np

#: Texts whose tokenization has edges: spaces, Unicode, bytes, added tokens.
EDGE_TEXTS = [
    "",
    " ",
    "  ",
    "   ",
    "\t",
    "\n",
    "a",
    " a",
    "a ",
    "  leading spaces",
    "trailing spaces   ",
    "   return x  ",
    "two  spaces and    four",
    "tabs\tand\nnewlines\r\nand\x0bvertical",
    "send a message to a channel",
    "get_weather(city: str, units='metric') -> dict",
    "refund a card payment; amount: number; currency: ISO 4217 code",
    "https://api.example.com/v2/users/{user_id}/repos?per_page=100&page=2",
    "Ünïcödé façade naïve coöperate",
    "日本語のテキストと中文文本和한국어",
    "emoji 😀👍🏽 and a family 👨‍👩‍👧‍👦 and flags 🇫🇷",
    "math ∑ ∫ √ ≤ ≥ ≠ ∞ and arrows → ← ↔",
    "zero\u200bwidth and non\u00a0breaking and ideographic\u3000space",
    "▁already▁has▁the▁space▁mark ▁ ▁▁",
    "<s> a </s> <unk> <<s>> </s></s><s>",
    "x<unk>y<s>z",
    "digits 0123456789 3.14159265358979 -122.4194 1e-10 0x1F",
    "CamelCaseToolName snake_case_tool_name kebab-case-name",
    "\x00\x01\x02\x7f control \x1b[31m escapes",
    "a" * 300,
    "antidisestablishmentarianism" * 8,
    "supercalifragilisticexpialidocious pneumonoultramicroscopicsilicovolcanoconiosis",
    "😀" * 20,
    "日本" * 60,
]


def eval_folder() -> Path | None:
    """../shared/eval (or TOOLSCOUT_EVAL_DATA), if there."""
    root = os.environ.get("TOOLSCOUT_EVAL_DATA")
    if root is not None:
        return Path(root) if Path(root).is_dir() else None
    here = Path(__file__).resolve()
    return next(
        (p / "shared" / "eval" for p in here.parents if (p / "shared" / "eval").is_dir()), None
    )


def catalog_texts() -> list[str]:
    """Tool names, descriptions and the texts vector backends embed, from BFCL's and
    Seal-Tools' catalogs (empty when the evaluation data is absent)."""
    folder = eval_folder()
    if folder is None:
        return []
    import toolscout
    from toolscout.vectors import embedding_text

    texts: list[str] = []
    for name in ("bfcl", "seal_tools"):
        path = folder / name / "tools.jsonl"
        if not path.is_file():
            continue
        for tool in toolscout.load_catalog(path):
            texts += [tool.name, tool.description, embedding_text(tool)]
        for line in path.read_text(encoding="utf-8").splitlines()[:300]:
            texts.append(line)  # the raw JSON: braces, quotes, escapes
    return texts


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    """The safetensors layout: header length, JSON header, raw little-endian data."""
    kinds = {"float16": "F16", "float32": "F32", "int64": "I64"}
    header: dict[str, Any] = {}
    blobs: list[bytes] = []
    offset = 0
    for name, array in tensors.items():
        blob = np.ascontiguousarray(array).tobytes()
        header[name] = {
            "dtype": kinds[array.dtype.name],
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(blob)],
        }
        blobs.append(blob)
        offset += len(blob)
    encoded = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(encoded)) + encoded + b"".join(blobs))
