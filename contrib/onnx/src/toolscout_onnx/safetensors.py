"""Read a `.safetensors` file into numpy arrays, without the safetensors or torch packages.

The format is an 8-byte little-endian header length, a JSON header naming each tensor's
dtype, shape and byte range, then the raw little-endian data. The file is memory-mapped, so
only the tensors that are read are paged in.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import TYPE_CHECKING

from toolscout import ConfigError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["read_safetensors"]

_DTYPES = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U8": "u1",
    "BOOL": "?",
}
_HEADER_LIMIT = 100 << 20


def read_safetensors(path: Path) -> dict[str, npt.NDArray[np.generic]]:
    """Every tensor of `path` by name; floating point tensors as float32."""
    import numpy as np

    try:
        with path.open("rb") as handle:
            (length,) = struct.unpack("<Q", handle.read(8))
            if length > _HEADER_LIMIT:
                raise ValueError(f"header of {length} bytes")
            header = json.loads(handle.read(length))
    except (OSError, ValueError, struct.error) as error:
        raise ConfigError(f"{path} is not a readable safetensors file: {error}") from None
    data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + length)
    tensors: dict[str, npt.NDArray[np.generic]] = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        start, end = entry["data_offsets"]
        raw = data[start:end]
        kind = entry["dtype"]
        if kind == "BF16":
            # bfloat16 is the top half of a float32.
            array = (raw.view("<u2").astype(np.uint32) << 16).view(np.float32)
        elif kind in _DTYPES:
            array = raw.view(_DTYPES[kind])
        else:
            raise ConfigError(f"{path}: tensor {name!r} has an unsupported dtype {kind}")
        array = array.reshape(entry["shape"])
        if array.dtype.kind == "f" and array.dtype != np.float32:
            array = array.astype(np.float32)
        tensors[name] = array
    return tensors
