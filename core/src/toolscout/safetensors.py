"""Read a `.safetensors` file into numpy arrays, without the safetensors or torch packages.

The format is an 8-byte little-endian header length, a JSON header naming each tensor's
dtype, shape and byte range, then the raw little-endian data. The file is memory-mapped, so
only the tensors that are read are paged in. A file that is not in this format, or whose
data is cut short (a partial copy or download), raises a one-line `ConfigError` naming the
file; numpy is imported on first use.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolscout.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["read_safetensors"]

# Each dtype's numpy type and size in bytes.
_DTYPES = {
    "F64": ("<f8", 8),
    "F32": ("<f4", 4),
    "F16": ("<f2", 2),
    "BF16": ("<u2", 2),  # read as its bits, then widened to float32
    "I64": ("<i8", 8),
    "I32": ("<i4", 4),
    "I16": ("<i2", 2),
    "I8": ("i1", 1),
    "U8": ("u1", 1),
    "BOOL": ("?", 1),
}
_HEADER_LIMIT = 100 << 20


def _entry(path: Path, name: str, entry: Any, size: int) -> tuple[str, list[int], int, int]:
    """A header entry's dtype, shape and byte range, checked against the data's size."""
    if not isinstance(entry, dict):
        raise ConfigError(f"{path} is not a readable safetensors file: bad entry for {name!r}")
    kind, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if not isinstance(kind, str) or kind not in _DTYPES:
        raise ConfigError(f"{path}: tensor {name!r} has an unsupported dtype {kind}")
    if not (
        isinstance(shape, list)
        and all(isinstance(n, int) and n >= 0 for n in shape)
        and isinstance(offsets, list)
        and len(offsets) == 2
        and all(isinstance(n, int) for n in offsets)
        and 0 <= offsets[0] <= offsets[1]
    ):
        raise ConfigError(f"{path} is not a readable safetensors file: bad entry for {name!r}")
    start, end = offsets
    itemsize = _DTYPES[kind][1]
    if end - start != math.prod(shape) * itemsize:
        raise ConfigError(
            f"{path}: tensor {name!r} of shape {shape} does not fit its {end - start} bytes "
            "(a damaged file)"
        )
    if end > size:
        raise ConfigError(
            f"{path} is cut short: tensor {name!r} ends at byte {end} of the data, which has "
            f"{size} (a partial copy or download)"
        )
    return kind, shape, start, end


def read_safetensors(path: Path) -> dict[str, npt.NDArray[np.generic]]:
    """Every tensor of `path` by name; floating point tensors as float32."""
    import numpy as np

    try:
        total = path.stat().st_size
        with path.open("rb") as handle:
            (length,) = struct.unpack("<Q", handle.read(8))
            if length > _HEADER_LIMIT or 8 + length > total:
                raise ValueError(f"header of {length} bytes in a file of {total}")
            header = json.loads(handle.read(length))
        if not isinstance(header, dict):
            raise ValueError("the header is not a JSON object")
    except (OSError, ValueError, struct.error) as error:
        raise ConfigError(f"{path} is not a readable safetensors file: {error}") from None
    size = total - 8 - length
    entries = {
        name: _entry(path, name, entry, size)
        for name, entry in header.items()
        if name != "__metadata__"
    }
    data: npt.NDArray[np.uint8] = (
        np.memmap(path, dtype=np.uint8, mode="r", offset=8 + length)
        if size
        else np.zeros(0, dtype=np.uint8)
    )
    tensors: dict[str, npt.NDArray[np.generic]] = {}
    for name, (kind, shape, start, end) in entries.items():
        array: npt.NDArray[Any] = data[start:end].view(_DTYPES[kind][0])
        if kind == "BF16":
            # bfloat16 is the top half of a float32.
            array = (array.astype(np.uint32) << 16).view(np.float32)
        array = array.reshape(shape)
        if array.dtype.kind == "f" and array.dtype != np.float32:
            array = array.astype(np.float32)
        tensors[name] = array
    return tensors
