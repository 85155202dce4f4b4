"""Searchable text for tools, built once in core so every backend searches the same words.

A tool's name is split into words (`get_weather_data`, `getWeatherData`, `weather.get` and
`repos/list:all` all become plain words), and its JSON Schema contributes parameter names
and descriptions. `toolscout.analysis` turns these fields into terms (stop words,
stemming) for every backend.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = [
    "ToolText",
    "first_sentence",
    "schema_properties",
    "split_identifier",
    "split_words",
    "summarize",
    "tool_text",
    "words",
]

_SEPARATORS = re.compile(r"[\s_.\-/:]+")
# lower→Upper ("getWeather"), UPPER→Upper+lower ("HTTPServer", but "OAuth" and "IPhone"
# stay whole), digit→Upper ("S3Bucket"). A plural acronym stays
# whole ("getURLs", "listIDsForUser"): a lone "s" ending an upper-case run is not the start
# of a new word. Letters and digits stay together (`s3`, `oauth2`, `sha256`): they name
# things, and `toolscout.analysis` indexes such a word both whole and split.
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z]{2})(?=[A-Z](?!s(?![a-z]))[a-z])")
_WORD = re.compile(r"\w+", re.UNICODE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def split_identifier(name: str) -> list[str]:
    """Split an identifier into its words: `getHTTPResponse_v2` → `get HTTP Response v2`."""
    return list(_split(name))


# A catalog repeats its words thousands of times (10,000 tools: 420,000 words, most of
# them plain lower-case ones), so each word is split once.
@lru_cache(maxsize=1 << 16)
def _split(name: str) -> tuple[str, ...]:
    if name.islower() and name.isalnum():
        return (name,)
    parts: list[str] = []
    for chunk in _SEPARATORS.split(name):
        if chunk:
            parts.extend(piece for piece in _CAMEL.split(chunk) if piece)
    return tuple(parts)


def split_words(text: str) -> str:
    """Free text with every identifier-like word split, for indexing or querying."""
    return " ".join(part for word in _WORD.findall(text) for part in _split(word))


def words(text: str) -> list[str]:
    """Lower-cased words of `text`, identifiers split: the simplest shared analyzer."""
    return [part.lower() for word in _WORD.findall(text) for part in _split(word)]


def first_sentence(description: str) -> str:
    """The first sentence of a description, whitespace collapsed: what the tool does."""
    text = " ".join(description.split())
    return _SENTENCE_END.split(text, maxsplit=1)[0] if text else ""


def summarize(description: str, limit: int = 160) -> str:
    """The first sentence of a description, cut to `limit` characters."""
    first = first_sentence(description)
    if len(first) > limit:
        first = first[: limit - 1].rstrip() + "…"
    return first


@dataclass(frozen=True, slots=True)
class ToolText:
    """The searchable fields of a tool.

    `name` holds the split name words, `parameters` the split parameter names followed by
    their descriptions, `description` the tool's description with identifiers split, and
    `parameter_names` the split parameter names alone.
    """

    name: str
    parameters: str
    description: str
    parameter_names: str = ""

    @property
    def all(self) -> str:
        return f"{self.name} {self.parameters} {self.description}"


def schema_properties(
    schema: Mapping[str, Any] | None, depth: int = 0
) -> Iterator[tuple[str, Mapping[str, Any] | None]]:
    """Every (name, property schema) of a JSON Schema, depth first: nested objects, array
    items and anyOf/oneOf/allOf included, at most five levels deep."""
    if not isinstance(schema, Mapping) or depth > 4:
        return
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        for name, prop in properties.items():
            yield str(name), prop if isinstance(prop, Mapping) else None
            yield from schema_properties(prop, depth + 1)
    items = schema.get("items")
    if isinstance(items, Mapping):
        yield from schema_properties(items, depth + 1)
    for combinator in ("anyOf", "oneOf", "allOf"):
        options = schema.get(combinator)
        if isinstance(options, (list, tuple)):
            for option in options:
                yield from schema_properties(option, depth + 1)
    for definition in _definitions(schema):
        yield from schema_properties(definition, depth + 1)


def _definitions(schema: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """The subschemas under `$defs` (and draft-7 `definitions`) that `$ref`s point at:
    what a pydantic model's parameters say about their nested types is written there."""
    for key in ("$defs", "definitions"):
        definitions = schema.get(key)
        if isinstance(definitions, Mapping):
            yield from (d for d in definitions.values() if isinstance(d, Mapping))


def _schema_parameters(schema: Mapping[str, Any] | None) -> tuple[str, str]:
    """The split parameter names each followed by its description (and the descriptions
    of the types under `$defs`), and the split names alone."""
    both: list[str] = []
    names: list[str] = []
    for name, prop in schema_properties(schema):
        split = " ".join(split_identifier(name))
        both.append(split)
        names.append(split)
        description = prop.get("description") if prop is not None else None
        if isinstance(description, str) and description:
            both.append(split_words(description))
    both.extend(_definition_descriptions(schema))
    return " ".join(both), " ".join(names)


def _definition_descriptions(schema: Mapping[str, Any] | None, depth: int = 0) -> Iterator[str]:
    """The descriptions of the types under `$defs`, as far down as `schema_properties`
    goes (their properties come from there)."""
    if not isinstance(schema, Mapping) or depth > 4:
        return
    for definition in _definitions(schema):
        description = definition.get("description")
        if isinstance(description, str) and description:
            yield split_words(description)
        yield from _definition_descriptions(definition, depth + 1)


def tool_text(name: str, description: str, input_schema: Mapping[str, Any] | None) -> ToolText:
    """Build the searchable text of one tool from its fields. Prefer `ToolReference.text`,
    which caches this."""
    parameters, parameter_names = _schema_parameters(input_schema)
    return ToolText(
        name=" ".join(split_identifier(name)),
        parameters=parameters,
        description=split_words(description),
        parameter_names=parameter_names,
    )
