"""Deciding whether a query is a regular expression or natural language, and compiling it.

The rule, in order:

1. `re:PATTERN` or `/PATTERN/` is an explicit pattern. It must compile and be at most
   `max_pattern_length` characters, else `ValueError` says what is wrong.
2. A query with no whitespace that contains a regex metacharacter other than `.`
   (one of ``^ $ * + ? ( ) [ ] { } | \\``), not counting a trailing `?` or `!` (so
   `version?` is a question), is taken as a pattern: `get_.*_data`, `^github_`,
   `(create|delete)_issue`. If it does not compile, or is longer than
   `max_pattern_length`, it is searched as words instead (`*weather`, `foo(`), never an
   error: a typed slip should not fail a search.
3. Anything else is natural language (`get the weather in Paris`, `math.sum`).

Patterns are matched case-insensitively, with Unicode semantics, by the `regex` module,
whose per-call timeout bounds the time any pattern can take.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import regex

__all__ = ["REST_GROUP", "ParsedQuery", "compile_joined", "compile_pattern", "parse_query"]

_METACHARACTERS = frozenset("^$*+?()[]{}|\\")
# What compiling a hostile pattern can raise besides `regex.error` (deep nesting, huge counts).
_COMPILE_ERRORS = (regex.error, OverflowError, RecursionError)


@dataclass(frozen=True)
class ParsedQuery:
    """A query after classification: words to score, or a compiled pattern to match."""

    kind: Literal["words", "pattern"]
    text: str
    pattern: regex.Pattern[str] | None = None
    explicit: bool = False


@lru_cache(maxsize=512)
def compile_pattern(pattern: str) -> regex.Pattern[str]:
    """Compile a case-insensitive Unicode pattern (cached: agents repeat their searches)."""
    # VERSION0 keeps `re` semantics; FULLCASE makes case-insensitivity Unicode-complete.
    return regex.compile(pattern, regex.IGNORECASE | regex.UNICODE | regex.V0 | regex.FULLCASE)


# Patterns that must be matched tool by tool rather than over newline-joined tool texts:
# lookaround and lookbehind see neighbouring tools, \A \Z \G anchor to the whole string,
# inline flags may switch MULTILINE off, and anything that can match a newline (`[^...]`,
# `\s`, `\W`, `\D`, escapes by code point, control characters) could run from one tool
# into the next, and in the worst case rescan the rest of the text from every position.
_CONTEXT_SENSITIVE = regex.compile(
    r"\(\?(?!:)|\[\^|\\[AZzGsSWDRXpPNnxuUvf0]|\\[1-7][0-7]{2}|[\x00-\x1f]"
)

#: The group `compile_joined` appends: it consumes the rest of the tool's line, so one
#: `finditer` yields at most one match per tool. Its start is the end of the user's match.
REST_GROUP = "toolscout_rest"


@lru_cache(maxsize=512)
def compile_joined(pattern: str) -> regex.Pattern[str] | None:
    """The pattern for scanning newline-joined tool texts, or None if it must not be.

    Wrapped as `(?:PATTERN)(?P<toolscout_rest>[^\\n]*)`: the group is numbered after the
    pattern's own groups, so its backreferences keep their meaning.
    """
    if _CONTEXT_SENSITIVE.search(pattern):
        return None
    return regex.compile(
        f"(?:{pattern})(?P<{REST_GROUP}>[^\\n]*)",
        regex.IGNORECASE | regex.UNICODE | regex.V0 | regex.FULLCASE | regex.MULTILINE,
    )


def _explicit(query: str) -> str | None:
    if query.startswith("re:"):
        return query[3:].strip()
    if len(query) >= 2 and query.startswith("/") and query.endswith("/"):
        return query[1:-1]
    return None


def looks_like_pattern(query: str) -> bool:
    """Rule 2 of the module docstring: one token holding a regex metacharacter.

    A trailing `?` or `!` is punctuation, not a quantifier: `version?` is a question.
    """
    core = query.rstrip("?!")
    return not any(ch.isspace() for ch in core) and any(ch in _METACHARACTERS for ch in core)


def parse_query(query: str, max_pattern_length: int = 200) -> ParsedQuery:
    """Classify `query` (see the module docstring); raise ValueError for a bad explicit one."""
    query = query.strip()
    explicit = _explicit(query)
    if explicit is not None:
        if not explicit:
            raise ValueError(
                f"empty regular expression in query {query!r}; write re:PATTERN or /PATTERN/, "
                "for example re:^github_"
            )
        if len(explicit) > max_pattern_length:
            raise ValueError(
                f"regular expression is {len(explicit)} characters long, more than the "
                f"limit of {max_pattern_length}; shorten it or raise the backend option "
                "max_pattern_length"
            )
        try:
            compiled = compile_pattern(explicit)
        except _COMPILE_ERRORS as error:
            raise ValueError(
                f"invalid regular expression {explicit!r}: {error}; fix the pattern, or drop "
                "the re: / slashes to search it as words"
            ) from None
        return ParsedQuery("pattern", explicit, compiled, explicit=True)
    if len(query) <= max_pattern_length and looks_like_pattern(query):
        try:
            return ParsedQuery("pattern", query, compile_pattern(query))
        except _COMPILE_ERRORS:
            pass
    return ParsedQuery("words", query)
