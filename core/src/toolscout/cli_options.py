"""`--option KEY=VALUE` as every command reads it: the pairs, the ones meant for a backend,
and their values typed by the backend's `Options` model (`toolscout.cli` and the commands
beside it share this)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

from toolscout.redaction import redact_text

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = [
    "add_option_argument",
    "coerce_options",
    "options_for",
    "options_model",
    "parse_options",
    "parse_value",
]

#: What `--option` says of itself, unless a command says more.
OPTION_HELP = "backend option on top of config; repeatable; VALUE is JSON when it parses"


def add_option_argument(parser: argparse.ArgumentParser, help: str = OPTION_HELP) -> None:
    """`--option KEY=VALUE` (`-o`), repeatable, as every command takes it."""
    parser.add_argument(
        "--option", "-o", action="append", default=[], metavar="KEY=VALUE", help=help
    )


def parse_value(text: str) -> Any:
    """A command-line value: JSON when it parses (numbers, booleans, null, lists), else text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """`["k=1", "name=x"]` → `{"k": "1", "name": "x"}` (text; a later pair wins)."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(
                "--option expects KEY=VALUE (e.g. --option max_results=10), got "
                f"{redact_text(pair)!r}"
            )
        options[key] = value
    return options


def options_for(
    backend: str, options: Mapping[str, str], backends: Sequence[str]
) -> dict[str, str]:
    """The options meant for `backend`: unscoped keys plus its own `backend.KEY` keys."""
    chosen: dict[str, str] = {}
    scoped: dict[str, str] = {}
    for key, value in options.items():
        prefix, dot, rest = key.partition(".")
        if dot and prefix in backends:
            if prefix == backend:
                scoped[rest] = value
        else:
            chosen[key] = value
    return {**chosen, **scoped}


def _wants_text(annotation: Any) -> bool:
    """Whether a field takes text only (str, a path, string literals), maybe optional."""
    if annotation is str or (isinstance(annotation, type) and issubclass(annotation, PurePath)):
        return True
    if get_origin(annotation) is Literal:
        return all(isinstance(arg, str) for arg in get_args(annotation))
    args = [arg for arg in get_args(annotation) if arg is not type(None)]
    return bool(args) and all(_wants_text(arg) for arg in args)


def options_model(backend: Any) -> type[BaseModel] | None:
    """A backend class's `Options` model, which types its options (None: it has none)."""
    model = getattr(backend, "Options", None)
    return model if isinstance(model, type) else None


def coerce_options(options: Mapping[str, str], model: type[BaseModel] | None) -> dict[str, Any]:
    """Values for a backend: JSON-parsed, except for fields its `Options` model types as text.

    So `--option path=2024` stays the string `"2024"` for a `path: str` option while
    `--option k1=1.2` becomes the number 1.2.
    """
    fields = model.model_fields if model is not None else {}
    values: dict[str, Any] = {}
    for key, text in options.items():
        field = fields.get(key)
        text_only = field is not None and _wants_text(field.annotation)
        values[key] = text if text_only else parse_value(text)
    return values
