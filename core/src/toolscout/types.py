"""The values that cross the `ToolIndex` boundary: what is indexed, asked and answered.

All of them are frozen dataclasses whose mappings are read-only, so a reference handed to
an index can never be changed behind its back, and all of them round-trip through JSON
(`to_dict` / `from_dict`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolscout.text import ToolText

__all__ = [
    "BELOW_CONFIDENCE",
    "EMPTY_REASONS",
    "FILTERED",
    "MAX_QUERY_LENGTH",
    "MAX_RESULTS_LIMIT",
    "MAX_SCHEMA_DEPTH",
    "MAX_SESSION_ID_LENGTH",
    "MAX_TOOL_NAME_LENGTH",
    "NOT_PERMITTED",
    "NO_MATCH",
    "SERVER_UNAVAILABLE",
    "FrozenDict",
    "SearchMetadata",
    "ToolHit",
    "ToolReference",
    "ToolSearchRequest",
    "ToolSearchResponse",
]

#: Largest `max_results` a request keeps; larger values are clamped to it (documented).
MAX_RESULTS_LIMIT = 10_000
#: Longest session id, in characters: ids are keys, not documents.
MAX_SESSION_ID_LENGTH = 1_024
#: Longest tool name, in characters (providers allow 64; MCP servers sometimes more).
MAX_TOOL_NAME_LENGTH = 1_024
#: Longest query, in characters: a pasted page still searches, a pasted book is refused.
MAX_QUERY_LENGTH = 16_384
#: Deepest nesting of a tool's input schema or metadata (JSON objects and arrays).
MAX_SCHEMA_DEPTH = 64

_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogate(text: str) -> bool:
    """Whether `text` holds a lone surrogate (`"\\ud800"` decoded from JSON): not Unicode."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def clean_text(text: str) -> str:
    """Free text made valid Unicode: lone surrogates become U+FFFD, NUL a space.

    Descriptions, schema text and queries go through this, so every engine receives text
    it can encode; names and session ids are keys and are refused instead (a replaced
    character could make two different keys equal).
    """
    if "\x00" in text:
        text = text.replace("\x00", " ")
    if has_lone_surrogate(text):
        text = _SURROGATE.sub("\ufffd", text)
    return text


def check_key(kind: str, value: object, limit: int) -> str:
    """Validate a session id or tool name: a non-empty str, valid Unicode, not too long."""
    if not isinstance(value, str):
        raise TypeError(f"{kind} must be a str, got {type(value).__name__}")
    if not value:
        raise ValueError(f"{kind} must be a non-empty string")
    if len(value) > limit:
        raise ValueError(
            f"{kind} is {len(value):,} characters long; the limit is {limit:,}: "
            f"use a shorter {kind} (a hash of a long one works)"
        )
    if "\x00" in value:
        raise ValueError(f"{kind} must not contain NUL characters: {value[:80]!r}")
    if has_lone_surrogate(value):
        raise ValueError(
            f"{kind} {value[:80]!r} contains a lone surrogate, which is not valid Unicode; "
            "fix the source text (JSON escapes like \\ud800 without their pair)"
        )
    return value


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


class NestingError(ValueError):
    """Data nested deeper than `MAX_SCHEMA_DEPTH`, or containing itself."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


def freeze(
    value: Any, _depth: int = 0, _path: tuple[str, ...] = (), _open: tuple[int, ...] = ()
) -> Any:
    """Deep-copy JSON-like data into read-only containers (dicts and tuples).

    Lone surrogates in strings become U+FFFD (see `clean_text`). Raises `NestingError` for
    data nested deeper than `MAX_SCHEMA_DEPTH` or containing itself, naming the path.
    """
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value) if has_lone_surrogate(value) else value
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, (Mapping, list, tuple)):
        where = "/".join(_path) or "(top)"
        if id(value) in _open:
            raise NestingError(f"it contains itself at {where}", where)
        if _depth >= MAX_SCHEMA_DEPTH:
            raise NestingError(
                f"it is nested more than {MAX_SCHEMA_DEPTH} levels deep at {where[:200]}", where
            )
        inner = (*_open, id(value))
        if isinstance(value, Mapping):
            frozen = FrozenDict()
            for key, item in value.items():
                name = str(key)
                key_text = _SURROGATE.sub("\ufffd", name) if has_lone_surrogate(name) else name
                dict.__setitem__(frozen, key_text, freeze(item, _depth + 1, (*_path, name), inner))
            return frozen
        return tuple(
            freeze(item, _depth + 1, (*_path, str(i)), inner) for i, item in enumerate(value)
        )
    return value


def _tagged(value: object) -> object:
    # Not JSON: tagged with its type, so it can't pass for the string of its repr.
    return {"\x00type": type(value).__qualname__, "repr": repr(value)}


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
        name = check_key("ToolReference.name", self.name.strip(), MAX_TOOL_NAME_LENGTH)
        object.__setattr__(self, "name", name)
        description = self.description
        if description is None:
            description = ""
        if not isinstance(description, str):
            raise TypeError(
                f"ToolReference.description of {name!r} must be a str, "
                f"got {type(description).__name__}"
            )
        object.__setattr__(self, "description", clean_text(description))
        for attr in ("input_schema", "metadata"):
            value = getattr(self, attr)
            if value is not None and not isinstance(value, Mapping):
                raise TypeError(
                    f"ToolReference.{attr} of {name!r} must be a mapping or None, "
                    f"got {type(value).__name__}"
                )
            try:
                frozen = None if value is None else freeze(value)
            except NestingError as error:
                from toolscout.errors import CatalogError

                raise CatalogError(
                    f"tool {name!r}: its {attr} cannot be indexed: {error}; flatten the "
                    f"schema or remove the cycle (at most {MAX_SCHEMA_DEPTH} levels)"
                ) from None
            object.__setattr__(self, attr, frozen)

    def __eq__(self, other: object) -> bool:
        # Equal means the same definition as JSON, metadata included (so equal tools share a
        # fingerprint and a hash; `{"minimum": 1}` and `{"minimum": 1.0}` differ).
        if not isinstance(other, ToolReference):
            return NotImplemented
        return self.fingerprint == other.fingerprint

    def __hash__(self) -> int:
        return hash(self.fingerprint)

    @cached_property
    def fingerprint(self) -> str:
        """A collision-free digest of the whole definition, metadata included.

        A hash of canonical JSON (`[name, description, schema, metadata]`, keys sorted):
        JSON quotes and escapes every string, so no choice of names and descriptions can
        make two different definitions serialise alike, unlike fields joined by a
        separator. Cached on the (immutable) reference: a catalog shared by many sessions
        is hashed once.
        """
        import hashlib

        payload = json.dumps(
            [self.name, self.description, thaw(self.input_schema), thaw(self.metadata)],
            sort_keys=True,
            ensure_ascii=True,
            separators=(",", ":"),
            default=_tagged,
        )
        return hashlib.blake2b(payload.encode("ascii"), digest_size=16).hexdigest()

    @cached_property
    def text(self) -> ToolText:
        """The searchable text of this tool, built once (see `toolscout.text`)."""
        from toolscout.text import tool_text

        return tool_text(self.name, self.description, self.input_schema)

    @cached_property
    def summary(self) -> str:
        """The description's first sentence, at most 160 characters (built once: every
        hit carries it)."""
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
        check_key("session_id", self.session_id, MAX_SESSION_ID_LENGTH)
        if not isinstance(self.query, str):
            raise TypeError(f"query must be a str, got {type(self.query).__name__}")
        if len(self.query) > MAX_QUERY_LENGTH:
            raise ValueError(
                f"query is {len(self.query):,} characters long; the limit is "
                f"{MAX_QUERY_LENGTH:,}: search with the words that matter"
            )
        object.__setattr__(self, "query", clean_text(self.query))
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
    """One ranked result: the tool's name, its score (higher is better, on the backend's own
    scale) and a summary. `confidence` (0 to 1, on one scale in every catalog and backend;
    see `toolscout.confidence`) is set by core once the engine has ranked."""

    name: str
    score: float
    summary: str = ""
    confidence: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "score": self.score,
            "summary": self.summary,
            "confidence": self.confidence,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolHit:
        confidence = data.get("confidence")
        return cls(
            name=data["name"],
            score=float(data["score"]),
            summary=data.get("summary", ""),
            confidence=None if confidence is None else float(confidence),
        )


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


#: Why an answer is empty (`ToolSearchResponse.empty_reason`): no tool matched the query
#: (or the session holds none) ...
NO_MATCH = "no_match"
#: ... tools matched, but the answer's confidence is below the index's `min_confidence` ...
BELOW_CONFIDENCE = "below_confidence"
#: ... the request's metadata filter let no tool through ...
FILTERED = "filtered"
#: ... (a gateway) the servers that would answer are down ...
SERVER_UNAVAILABLE = "server_unavailable"
#: ... (a gateway) the caller may see none of the tools that matched.
NOT_PERMITTED = "not_permitted"
EMPTY_REASONS = (NO_MATCH, BELOW_CONFIDENCE, FILTERED, SERVER_UNAVAILABLE, NOT_PERMITTED)


@dataclass(frozen=True)
class ToolSearchResponse:
    """The ranked hits of a search, best first, plus how many tools matched in all.

    What the model and the user are told is worked out here, once, where the search runs;
    `tool_search`, the command line and `--json` render it:

    - `confidence` is the answer's (its best hits', 0 to 1; see `toolscout.confidence`),
      also when the answer is empty because it fell below the index's `min_confidence`;
      None when no confidence was computed (nothing matched, or a backend of its own).
    - `unmatched_words`: the query's words no tool of the session (of those a metadata
      filter lets through) contains, as written (at most `toolscout.unmatched.MAX_LISTED_WORDS`).
    - `empty_reason`: why an empty answer is empty (None when there are hits): one of
      `EMPTY_REASONS`.
    """

    references: tuple[ToolHit, ...]
    total_matches: int
    metadata: SearchMetadata
    confidence: float | None = None
    unmatched_words: tuple[str, ...] = ()
    empty_reason: str | None = None

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
            "confidence": self.confidence,
            "unmatched_words": list(self.unmatched_words),
            "empty_reason": self.empty_reason,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ToolSearchResponse:
        return cls(
            references=tuple(ToolHit.from_dict(hit) for hit in data["references"]),
            total_matches=int(data["total_matches"]),
            metadata=SearchMetadata.from_dict(data["metadata"]),
            confidence=None if data.get("confidence") is None else float(data["confidence"]),
            unmatched_words=tuple(data.get("unmatched_words") or ()),
            empty_reason=data.get("empty_reason"),
        )

    @classmethod
    def empty(
        cls,
        backend: str,
        elapsed_ms: float = 0.0,
        reason: str = NO_MATCH,
        unmatched_words: Sequence[str] = (),
    ) -> ToolSearchResponse:
        return cls(
            (),
            0,
            SearchMetadata(backend, elapsed_ms),
            unmatched_words=tuple(unmatched_words),
            empty_reason=reason,
        )
