"""The values that cross the `ToolIndex` boundary: what is indexed, asked and answered.

All of them are frozen dataclasses whose mappings are read-only, so a reference handed to
an index can never be changed behind its back, and all of them round-trip through JSON
(`to_dict` / `from_dict`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolscout.text import ToolText

__all__ = [
    "MAX_RESULTS_LIMIT",
    "FrozenDict",
    "SearchMetadata",
    "ToolHit",
    "ToolReference",
    "ToolSearchRequest",
    "ToolSearchResponse",
]

#: Largest `max_results` a request keeps; larger values are clamped to it (documented).
MAX_RESULTS_LIMIT = 10_000


class FrozenDict(dict[str, Any]):
    """A `dict` that refuses changes; `json.dumps` still sees a plain dict."""

    __slots__ = ()

    def _readonly(self, *args: object, **kwargs: object) -> Any:
        raise TypeError("this mapping is read-only; build a new ToolReference instead")

    __setitem__ = __delitem__ = _readonly
    clear = pop = popitem = setdefault = update = _readonly
    __ior__ = _readonly

    def __hash__(self) -> int:  # type: ignore[override]
        # Consistent with dict equality, which treats 1, 1.0 and True alike (as hash() does).
        try:
            return hash(frozenset(self.items()))
        except TypeError:  # built directly around unhashable values instead of by freeze()
            return hash(json.dumps(self, sort_keys=True, default=str))

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_frozen, (dict(self),))


def _rebuild_frozen(data: dict[str, Any]) -> FrozenDict:
    frozen: FrozenDict = freeze(data)
    return frozen


def freeze(value: Any) -> Any:
    """Deep-copy JSON-like data into read-only containers (dicts and tuples)."""
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, Mapping):
        frozen = FrozenDict()
        for key, item in value.items():
            dict.__setitem__(frozen, str(key), freeze(item))
        return frozen
    if isinstance(value, (list, tuple)):
        return tuple(freeze(item) for item in value)
    return value


def thaw(value: Any) -> Any:
    """The inverse of `freeze`: plain dicts and lists, for JSON or for mutation by a caller."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return [thaw(item) for item in value]
    return value


@dataclass(frozen=True, eq=False)
class ToolReference:
    """One tool definition as it is indexed and searched.

    `input_schema` is the tool's JSON Schema for its arguments (OpenAI `parameters`,
    Anthropic `input_schema`, MCP `inputSchema`); `metadata` carries anything else a caller
    wants to filter or display by, such as the MCP server a tool came from.
    """

    name: str
    description: str = ""
    input_schema: Mapping[str, Any] | None = None
    metadata: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(f"ToolReference.name must be a str, got {type(self.name).__name__}")
        name = self.name.strip()
        if not name:
            raise ValueError("ToolReference.name must be a non-empty string")
        if "\x00" in name:
            raise ValueError(f"ToolReference.name must not contain NUL bytes: {name!r}")
        object.__setattr__(self, "name", name)
        description = self.description
        if description is None:
            description = ""
        if not isinstance(description, str):
            raise TypeError(
                f"ToolReference.description of {name!r} must be a str, "
                f"got {type(description).__name__}"
            )
        object.__setattr__(self, "description", description.replace("\x00", " "))
        for attr in ("input_schema", "metadata"):
            value = getattr(self, attr)
            if value is not None and not isinstance(value, Mapping):
                raise TypeError(
                    f"ToolReference.{attr} of {name!r} must be a mapping or None, "
                    f"got {type(value).__name__}"
                )
            object.__setattr__(self, attr, None if value is None else freeze(value))

    def __eq__(self, other: object) -> bool:
        # Equal means the same definition as JSON (so equal tools share a fingerprint and a
        # hash; `{"minimum": 1}` and `{"minimum": 1.0}` differ), plus equal metadata.
        if not isinstance(other, ToolReference):
            return NotImplemented
        return self.fingerprint == other.fingerprint and self.metadata == other.metadata

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    @cached_property
    def fingerprint(self) -> str:
        """A stable digest of name, description and schema: equal tools share it."""
        import hashlib

        payload = json.dumps(
            [self.name, self.description, self.input_schema], sort_keys=True, default=str
        )
        return hashlib.blake2b(payload.encode(), digest_size=16).hexdigest()

    @cached_property
    def text(self) -> ToolText:
        """The searchable text of this tool, built once (see `toolscout.text`)."""
        from toolscout.text import tool_text

        return tool_text(self)

    @property
    def summary(self) -> str:
        """The description's first sentence, at most 160 characters."""
        from toolscout.text import summarize

        return summarize(self.description)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "description": self.description}
        if self.input_schema is not None:
            data["input_schema"] = thaw(self.input_schema)
        if self.metadata is not None:
            data["metadata"] = thaw(self.metadata)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolReference:
        return cls(
            name=data["name"],
            description=data.get("description") or "",
            input_schema=data.get("input_schema"),
            metadata=data.get("metadata"),
        )


@dataclass(frozen=True)
class ToolSearchRequest:
    """A query against one session's tools.

    `max_results=None` leaves the count to the index's configured default. Values must be
    integers of at least 1; anything above `MAX_RESULTS_LIMIT` is clamped to it.
    `metadata_filter` keeps only tools whose metadata has each given key equal to the given
    value; it needs an index with the `metadata_filter` capability.
    """

    session_id: str
    query: str
    max_results: int | None = None
    metadata_filter: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.session_id, str) or not self.session_id:
            raise ValueError(f"session_id must be a non-empty string, got {self.session_id!r}")
        if not isinstance(self.query, str):
            raise TypeError(f"query must be a str, got {type(self.query).__name__}")
        if self.max_results is not None:
            object.__setattr__(self, "max_results", validate_max_results(self.max_results))
        if self.metadata_filter is not None:
            if not isinstance(self.metadata_filter, Mapping):
                raise TypeError("metadata_filter must be a mapping of key to required value")
            object.__setattr__(self, "metadata_filter", freeze(self.metadata_filter))

    def limit(self, default: int) -> int:
        """The number of results to return, given the index's default."""
        return self.max_results if self.max_results is not None else default

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "query": self.query,
            "max_results": self.max_results,
            "metadata_filter": thaw(self.metadata_filter),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolSearchRequest:
        return cls(
            session_id=data["session_id"],
            query=data["query"],
            max_results=data.get("max_results"),
            metadata_filter=data.get("metadata_filter"),
        )


def validate_max_results(value: object) -> int:
    """Check a requested result count: an int ≥ 1, clamped to `MAX_RESULTS_LIMIT`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"max_results must be an integer, got {value!r}")
    if value < 1:
        raise ValueError(
            f"max_results must be at least 1, got {value}; pass None to use the index's default"
        )
    return min(value, MAX_RESULTS_LIMIT)


@dataclass(frozen=True)
class ToolHit:
    """One ranked result: the tool's name, its score (higher is better) and a summary."""

    name: str
    score: float
    summary: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "score": self.score, "summary": self.summary}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolHit:
        return cls(name=data["name"], score=float(data["score"]), summary=data.get("summary", ""))


@dataclass(frozen=True)
class SearchMetadata:
    """How a search was answered: by which backend and in how long."""

    backend: str
    elapsed_ms: float
    extra: Mapping[str, Any] = field(default_factory=FrozenDict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "extra", freeze(self.extra))

    def to_dict(self) -> dict[str, Any]:
        return {"backend": self.backend, "elapsed_ms": self.elapsed_ms, "extra": thaw(self.extra)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SearchMetadata:
        return cls(
            backend=data["backend"],
            elapsed_ms=float(data["elapsed_ms"]),
            extra=data.get("extra") or {},
        )


@dataclass(frozen=True)
class ToolSearchResponse:
    """The ranked hits of a search, best first, plus how many tools matched in all."""

    references: tuple[ToolHit, ...]
    total_matches: int
    metadata: SearchMetadata

    def __post_init__(self) -> None:
        object.__setattr__(self, "references", tuple(self.references))

    @property
    def names(self) -> list[str]:
        return [hit.name for hit in self.references]

    def __iter__(self) -> Iterator[ToolHit]:
        return iter(self.references)

    def __len__(self) -> int:
        return len(self.references)

    def to_dict(self) -> dict[str, Any]:
        return {
            "references": [hit.to_dict() for hit in self.references],
            "total_matches": self.total_matches,
            "metadata": self.metadata.to_dict(),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolSearchResponse:
        return cls(
            references=tuple(ToolHit.from_dict(hit) for hit in data["references"]),
            total_matches=int(data["total_matches"]),
            metadata=SearchMetadata.from_dict(data["metadata"]),
        )

    @classmethod
    def empty(cls, backend: str, elapsed_ms: float = 0.0) -> ToolSearchResponse:
        return cls((), 0, SearchMetadata(backend, elapsed_ms))
