"""Tool names as the model APIs accept them, and back.

OpenAI allows tool names matching `^[a-zA-Z0-9_-]{1,64}$` (Anthropic: up to 128
characters); catalogs use dots (`math.gcd`), slashes and spaces. Replacing every other
character by `_` is not enough: BFCL has both `math.gcd` and `math_gcd`. Here a name that is
already valid keeps itself; any other becomes its sanitised form, or, when that form is
taken (by a valid name, or by another name sanitising to it), the form cut short plus
`_` and 8 hex digits of the name's hash. Hashing the name keeps the result independent of
the order names arrive in, so a tools array stays byte-stable between requests (prompt
caches).

`wire_names(names)` maps a whole tool set at once (what the framework integrations do per
tool set); `WireNames` maps names one at a time for a client adapter that meets them as
requests go (the advisor's), never changing a name it has handed out.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence

__all__ = ["MAX_WIRE_NAME", "WireNames", "is_wire_safe", "wire_names"]

#: The longest tool name every supported API accepts (OpenAI; Anthropic takes 128).
MAX_WIRE_NAME = 64

_INVALID = re.compile(r"[^A-Za-z0-9_-]")


def is_wire_safe(name: str, max_length: int = MAX_WIRE_NAME) -> bool:
    """Whether `name` can go to a model API as it is."""
    return 0 < len(name) <= max_length and _INVALID.search(name) is None


def _sanitised(name: str, max_length: int) -> str:
    return _INVALID.sub("_", name)[:max_length] or "tool"


def _hashed(name: str, max_length: int, salt: int = 0) -> str:
    text = name if salt == 0 else f"{name}\x00{salt}"
    digest = hashlib.blake2b(text.encode(), digest_size=4).hexdigest()
    return f"{_sanitised(name, max_length)[: max_length - 9]}_{digest}"


def wire_names(names: Iterable[str], max_length: int = MAX_WIRE_NAME) -> dict[str, str]:
    """`{name: wire name}` for a tool set: unique, valid, and the same in any order.

    Only names that need a change are in the result; look names up with
    `.get(name, name)`.
    """
    unique = list(dict.fromkeys(names))
    taken = {name for name in unique if is_wire_safe(name, max_length)}
    wanted: dict[str, list[str]] = {}
    for name in unique:
        if name not in taken:
            wanted.setdefault(_sanitised(name, max_length), []).append(name)
    result: dict[str, str] = {}
    for candidate, claimants in sorted(wanted.items()):
        if candidate not in taken and len(claimants) == 1:
            result[claimants[0]] = candidate
            taken.add(candidate)
            continue
        for name in sorted(claimants):
            salt = 0
            wire = _hashed(name, max_length)
            while wire in taken:  # a clash of 32-bit hashes: practically never
                salt += 1
                wire = _hashed(name, max_length, salt)
            result[name] = wire
            taken.add(wire)
    return result


class WireNames:
    """Names mapped one at a time, each kept for the object's lifetime (one per adapter).

    `reserve(names)` first, with every name a request carries, lets valid names keep
    themselves even when an invalid one sanitising to them came earlier in the set.
    """

    def __init__(self, max_length: int = MAX_WIRE_NAME) -> None:
        self.max_length = max_length
        self._to_wire: dict[str, str] = {}
        self._from_wire: dict[str, str] = {}

    def reserve(self, names: Iterable[str]) -> None:
        """Map the valid names among `names` to themselves (unless already mapped)."""
        for name in names:
            if (
                name not in self._to_wire
                and name not in self._from_wire
                and is_wire_safe(name, self.max_length)
            ):
                self._to_wire[name] = self._from_wire[name] = name

    def wire(self, name: str) -> str:
        known = self._to_wire.get(name)
        if known is not None:
            return known
        candidate = (
            name if is_wire_safe(name, self.max_length) else _sanitised(name, self.max_length)
        )
        salt = 0
        while candidate in self._from_wire:
            candidate = _hashed(name, self.max_length, salt)
            salt += 1
        self._to_wire[name] = candidate
        self._from_wire[candidate] = name
        return candidate

    def name(self, wire: str) -> str:
        """The tool name a wire name stands for (unknown wire names pass through)."""
        return self._from_wire.get(wire, wire)

    def wire_all(self, names: Sequence[str]) -> list[str]:
        return [self.wire(n) for n in names]

    def mapping(self) -> Mapping[str, str]:
        """`{name: wire name}` of every name mapped so far."""
        return dict(self._to_wire)
