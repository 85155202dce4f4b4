"""The tools an advisor can execute: a definition the model sees plus a handler that runs it.

Tools come from plain Python callables (`@tool` or `ToolRegistry.add`), whose JSON Schema
is built by pydantic from the signature, type hints and docstring; or from pre-built
definitions in any format `toolscout.load_catalog` reads, paired with a handler. Handlers
may be sync or async.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from toolscout.catalog import load_catalog, parse_tool
from toolscout.errors import QUOTE_LENGTH, ToolscoutError, quote_value
from toolscout.session import tool_set_fingerprint
from toolscout.types import ToolReference, thaw

__all__ = [
    "Tool",
    "ToolArgumentsError",
    "ToolRegistry",
    "tool",
]

Handler = Callable[..., Any]
Dispatch = Callable[[str, dict[str, Any]], Any]


class ToolArgumentsError(ToolscoutError, ValueError):
    """The model's arguments for a tool do not fit the tool's schema."""


@dataclass(frozen=True)
class Tool:
    """One executable tool: its `reference` (what the model sees) and its handler.

    `call` / `acall` validate the arguments first (against the pydantic model built from
    the callable, or against the definition's JSON Schema) and raise `ToolArgumentsError`
    when they do not fit. `pinned` tools are sent on every request, without a search.
    """

    reference: ToolReference
    handler: Handler
    pinned: bool = False
    arguments_model: type[BaseModel] | None = field(default=None, repr=False)
    dispatch: bool = field(default=False, repr=False)
    """True: `handler(name, arguments)` (one handler for a whole catalog)."""

    @property
    def name(self) -> str:
        return self.reference.name

    @property
    def is_async(self) -> bool:
        return _is_async(self.handler)

    def validate(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """The arguments as the handler receives them, or `ToolArgumentsError`."""
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise ToolArgumentsError(
                f"arguments for {self.name} must be a JSON object, got {type(arguments).__name__}"
            )
        if self.arguments_model is not None:
            try:
                parsed = self.arguments_model.model_validate(dict(arguments))
            except ValidationError as error:
                raise ToolArgumentsError(_pydantic_problems(self.name, error)) from None
            return {name: getattr(parsed, name) for name in type(parsed).model_fields}
        problems = check_arguments(self.reference.input_schema, arguments)
        if problems:
            raise ToolArgumentsError(f"invalid arguments for {self.name}: " + "; ".join(problems))
        return dict(arguments)

    def invoke(self, arguments: dict[str, Any]) -> Any:
        """Run the handler on validated arguments; an async handler runs on a fresh loop."""
        result = self.handler(self.name, arguments) if self.dispatch else self.handler(**arguments)
        if inspect.isawaitable(result):
            import asyncio

            return asyncio.run(_await(result))
        return result

    async def ainvoke(self, arguments: dict[str, Any]) -> Any:
        """Run the handler on validated arguments; a sync handler runs in a worker thread."""
        if self.is_async:
            result = (
                self.handler(self.name, arguments) if self.dispatch else self.handler(**arguments)
            )
        else:
            import asyncio

            result = await asyncio.to_thread(self.invoke, arguments)
        if inspect.isawaitable(result):
            result = await result
        return result

    def call(self, arguments: Mapping[str, Any] | None = None) -> Any:
        """Validate the arguments, then run the handler."""
        return self.invoke(self.validate(arguments))

    async def acall(self, arguments: Mapping[str, Any] | None = None) -> Any:
        """Validate the arguments, then run the handler (awaitable)."""
        return await self.ainvoke(self.validate(arguments))

    @classmethod
    def from_callable(
        cls,
        function: Handler,
        *,
        name: str | None = None,
        description: str | None = None,
        pinned: bool = False,
        metadata: Mapping[str, Any] | None = None,
    ) -> Tool:
        """A tool whose schema pydantic derives from `function`'s signature and docstring."""
        if not callable(function):
            raise TypeError(f"a tool needs a callable, got {type(function).__name__}")
        tool_name = name or getattr(function, "__name__", None)
        if not tool_name or tool_name == "<lambda>":
            raise ValueError("this callable has no usable __name__; pass name=... for the tool")
        summary, param_docs = parse_docstring(inspect.getdoc(function) or "")
        model = arguments_model(function, tool_name, param_docs)
        schema = model.model_json_schema()
        _strip_titles(schema)
        reference = ToolReference(
            tool_name,
            description if description is not None else summary,
            schema,
            metadata,
        )
        return cls(reference, function, pinned=pinned, arguments_model=model)

    @classmethod
    def from_definition(
        cls,
        definition: Mapping[str, Any] | ToolReference,
        handler: Handler,
        *,
        pinned: bool = False,
        dispatch: bool = False,
    ) -> Tool:
        """A tool from a pre-built definition (OpenAI, Anthropic or MCP form) and a handler.

        The handler is called as `handler(**arguments)`, or `handler(name, arguments)` with
        `dispatch=True`. Arguments are checked against the definition's JSON Schema.
        """
        if not callable(handler):
            raise TypeError(f"the handler must be callable, got {type(handler).__name__}")
        reference = definition if isinstance(definition, ToolReference) else parse_tool(definition)
        return cls(reference, handler, pinned=pinned, dispatch=dispatch)


@overload
def tool(function: Handler, /) -> Tool: ...


@overload
def tool(
    *, name: str | None = None, description: str | None = None, pinned: bool = False
) -> Callable[[Handler], Tool]: ...


def tool(
    function: Handler | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    pinned: bool = False,
) -> Tool | Callable[[Handler], Tool]:
    """Decorator: turn a function into a `Tool` (`@tool` or `@tool(pinned=True)`).

    The decorated name is the `Tool`; call the original with `.handler(...)`.
    """

    def wrap(fn: Handler) -> Tool:
        return Tool.from_callable(fn, name=name, description=description, pinned=pinned)

    if function is not None:
        return wrap(function)
    return wrap


class ToolRegistry:
    """The tools of an advisor, by name.

    Names are unique: adding a second tool with a taken name raises, because the model
    could not tell them apart. The tool set's fingerprint is cached until the next change,
    so checking "has the tool set changed?" on every request costs nothing.
    """

    def __init__(self, tools: Iterable[Tool | Handler] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._fingerprint: str | None = None
        self._references: list[ToolReference] | None = None
        for item in tools:
            self.add(item)

    @overload
    def add(self, function: Tool | Handler, /) -> Tool: ...

    @overload
    def add(
        self,
        function: Handler,
        /,
        *,
        name: str | None = ...,
        description: str | None = ...,
        pinned: bool = ...,
    ) -> Tool: ...

    def add(
        self,
        function: Tool | Handler,
        /,
        *,
        name: str | None = None,
        description: str | None = None,
        pinned: bool = False,
    ) -> Tool:
        """Add a `Tool`, or a callable turned into one. Returns the tool."""
        item = (
            function
            if isinstance(function, Tool)
            else Tool.from_callable(function, name=name, description=description, pinned=pinned)
        )
        if item.name in self._tools:
            raise ValueError(
                f"a tool named {item.name!r} is already registered; tool names must be unique"
            )
        self._tools[item.name] = item
        self._changed()
        return item

    def register(
        self, *, name: str | None = None, description: str | None = None, pinned: bool = False
    ) -> Callable[[Handler], Handler]:
        """Decorator that adds a function and leaves it callable as before."""

        def wrap(fn: Handler) -> Handler:
            self.add(fn, name=name, description=description, pinned=pinned)
            return fn

        return wrap

    def add_definition(
        self,
        definition: Mapping[str, Any] | ToolReference,
        handler: Handler,
        *,
        pinned: bool = False,
    ) -> Tool:
        """Add a pre-built definition with its handler (`handler(**arguments)`)."""
        return self.add(Tool.from_definition(definition, handler, pinned=pinned))

    def add_catalog(
        self,
        source: str | Path | Iterable[Mapping[str, Any]] | Iterable[ToolReference],
        handlers: Mapping[str, Handler] | Dispatch,
    ) -> list[Tool]:
        """Add every tool of a catalog (a file, tool dicts or references).

        `handlers` maps tool names to handlers (`handler(**arguments)`), or is one callable
        `handler(name, arguments)` for all of them (e.g. a proxy to an MCP server).
        A name without a handler raises, naming the missing ones.
        """
        references: list[ToolReference]
        if isinstance(source, (str, Path)):
            references = load_catalog(source)
        else:
            items: list[Any] = list(source)
            if all(isinstance(item, ToolReference) for item in items):
                references = items
            else:
                references = load_catalog(items)
        if isinstance(handlers, Mapping):
            missing = [r.name for r in references if r.name not in handlers]
            if missing:
                raise ValueError(
                    f"no handler for {len(missing)} catalog tool(s): {', '.join(missing[:10])}; "
                    "pass a handler per name, or one callable handler(name, arguments)"
                )
            tools = [Tool.from_definition(r, handlers[r.name]) for r in references]
        elif callable(handlers):
            tools = [Tool.from_definition(r, handlers, dispatch=True) for r in references]
        else:
            raise TypeError("handlers must be a mapping of name to callable, or one callable")
        taken = [t.name for t in tools if t.name in self._tools]
        if taken:
            raise ValueError(f"tool names already registered: {', '.join(taken[:10])}")
        for item in tools:
            self._tools[item.name] = item
        self._changed()
        return tools

    def remove(self, name: str) -> None:
        if name not in self._tools:
            raise KeyError(f"no tool named {name!r}; registered: {', '.join(self._tools)}")
        del self._tools[name]
        self._changed()

    def _changed(self) -> None:
        self._fingerprint = None
        self._references = None

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __getitem__(self, name: str) -> Tool:
        try:
            return self._tools[name]
        except KeyError:
            raise KeyError(f"no tool named {name!r}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    @property
    def references(self) -> list[ToolReference]:
        """Every tool's reference, in registration order (cached until a change)."""
        if self._references is None:
            self._references = [t.reference for t in self._tools.values()]
        return self._references

    @property
    def fingerprint(self) -> str:
        """`toolscout.session.tool_set_fingerprint` of the references (cached)."""
        if self._fingerprint is None:
            self._fingerprint = tool_set_fingerprint(self.references)
        return self._fingerprint

    @classmethod
    def coerce(cls, tools: ToolRegistry | Iterable[Tool | Handler]) -> ToolRegistry:
        return tools if isinstance(tools, ToolRegistry) else cls(tools)


def _is_async(function: Any) -> bool:
    if inspect.iscoroutinefunction(function):
        return True
    call = getattr(function, "__call__", None)  # noqa: B004 - async callable objects
    return call is not None and inspect.iscoroutinefunction(call)


async def _await(value: Awaitable[Any]) -> Any:
    return await value


# --- schemas from signatures -------------------------------------------------------------

_SECTION = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Returns?|Raises|Yields|Examples?)\s*:\s*$"
)
_GOOGLE_PARAM = re.compile(r"^\s*\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_PARAM = re.compile(r"^\s*:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")
_NUMPY_RULE = re.compile(r"^\s*-{3,}\s*$")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The description part of a docstring and per-parameter descriptions.

    Understands Google (`Args:`), Sphinx (`:param x:`) and NumPy (`Parameters\\n----------`)
    styles; the description is everything before the first section.
    """
    lines = doc.splitlines()
    description: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        sphinx = _SPHINX_PARAM.match(line)
        heading = _SECTION.match(line)
        numpy = (
            i + 1 < len(lines)
            and _NUMPY_RULE.match(lines[i + 1])
            and line.strip() in ("Parameters", "Returns", "Raises", "Examples", "Yields")
        )
        if sphinx:
            section, current = "sphinx", sphinx.group(1)
            params[current] = sphinx.group(2).strip()
        elif line.strip().startswith(":") and section == "sphinx":
            current = None  # :returns:, :raises: end the parameter
        elif heading:
            section, current = heading.group(1).lower(), None
        elif numpy:
            section, current = line.strip().lower() + "-numpy", None
            i += 1
        elif section is None:
            description.append(line)
        elif section in ("args", "arguments", "parameters", "params"):
            match = _GOOGLE_PARAM.match(line)
            indent = len(line) - len(line.lstrip())
            if match and (current is None or indent <= _indent_of(lines, current)):
                current = match.group(1)
                params[current] = match.group(2).strip()
            elif current is not None and line.strip():
                params[current] = f"{params[current]} {line.strip()}".strip()
        elif section == "parameters-numpy":
            stripped = line.strip()
            if stripped and not line.startswith((" ", "\t")):
                current = stripped.split(":")[0].strip()
                params[current] = ""
            elif current is not None and stripped:
                params[current] = f"{params[current]} {stripped}".strip()
        elif section == "sphinx" and current is not None and line.strip():
            params[current] = f"{params[current]} {line.strip()}".strip()
        i += 1
    text = "\n".join(description).strip()
    return text, {k: v for k, v in params.items() if v}


def _indent_of(lines: list[str], name: str) -> int:
    for line in lines:
        if _GOOGLE_PARAM.match(line) and line.strip().lstrip("*").startswith(name):
            return len(line) - len(line.lstrip())
    return 0


def _resolve(annotation: str, function: Handler, tool_name: str, parameter: str) -> Any:
    namespace = dict(getattr(function, "__globals__", {}))
    closure = getattr(function, "__closure__", None) or ()
    names = getattr(getattr(function, "__code__", None), "co_freevars", ())
    for var, cell in zip(names, closure, strict=False):
        try:
            namespace[var] = cell.cell_contents
        except ValueError:
            continue
    try:
        return eval(annotation, namespace)
    except Exception:
        raise TypeError(
            f"tool {tool_name!r}: cannot resolve the type hint {annotation!r} of parameter "
            f"{parameter!r}; define the type at module level (or import it there)"
        ) from None


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)


def arguments_model(
    function: Handler, tool_name: str, param_docs: Mapping[str, str] | None = None
) -> type[BaseModel]:
    """A pydantic model of `function`'s keyword-callable parameters."""
    param_docs = param_docs or {}
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError) as error:
        raise TypeError(f"cannot read the signature of tool {tool_name!r}: {error}") from None
    try:
        hints = inspect.get_annotations(function, eval_str=True)
    except Exception:
        hints = {}
    if not hints and not inspect.isfunction(function):
        call = getattr(function, "__call__", None)  # noqa: B004
        try:
            hints = inspect.get_annotations(call, eval_str=True) if call else {}
        except Exception:
            hints = {}
    fields: dict[str, Any] = {}
    for name, parameter in signature.parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError(
                f"tool {tool_name!r} takes *{name}; a tool needs named parameters the model "
                "can fill, so list them explicitly"
            )
        if parameter.kind is parameter.POSITIONAL_ONLY:
            raise TypeError(
                f"tool {tool_name!r}: parameter {name!r} is positional-only; tools are called "
                "with keyword arguments"
            )
        annotation = hints.get(name, parameter.annotation)
        if annotation is inspect.Parameter.empty:
            annotation = Any
        elif isinstance(annotation, str):
            annotation = _resolve(annotation, function, tool_name, name)
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[name] = (annotation, Field(default, description=param_docs.get(name)))
    model_name = re.sub(r"\W", "_", tool_name) or "Arguments"
    try:
        model: type[BaseModel] = create_model(model_name, __base__=_Arguments, **fields)
        model.model_json_schema()
    except Exception as error:
        raise TypeError(
            f"tool {tool_name!r}: pydantic cannot build a JSON Schema for its parameters "
            f"({error}); use JSON-compatible type hints (str, int, float, bool, list, dict, "
            "Literal, Enum, pydantic models)"
        ) from None
    return model


def _strip_titles(schema: Any) -> None:
    """Drop pydantic's auto titles: they repeat the names and cost tokens on every request."""
    if isinstance(schema, dict):
        schema.pop("title", None)
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                for prop in value.values():
                    _strip_titles(prop)
            elif key == "$defs" and isinstance(value, dict):
                for definition in value.values():
                    _strip_titles(definition)
            elif isinstance(value, (dict, list)):
                _strip_titles(value)
    elif isinstance(schema, list):
        for item in schema:
            _strip_titles(item)


def _pydantic_problems(name: str, error: ValidationError) -> str:
    parts = []
    items = error.errors()
    for item in items[:_LISTED_PROBLEMS]:
        where = ".".join(str(p) for p in item["loc"]) or "(arguments)"
        if item["type"] == "extra_forbidden":
            parts.append(f"unexpected argument {quote_value(where)}")
        elif item["type"] == "missing":
            parts.append(f"missing required argument {quote_value(where)}")
        else:
            where = where if len(where) <= QUOTE_LENGTH else quote_value(where)
            parts.append(f"{where}: {item['msg']} (got {quote_value(item.get('input'))})")
    if len(items) > _LISTED_PROBLEMS:
        parts.append(f"{len(items) - _LISTED_PROBLEMS:,} more problems ({len(items):,} in all)")
    return f"invalid arguments for {name}: " + "; ".join(parts)


# --- light JSON Schema checks for pre-built definitions --------------------------------

_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, (list, tuple)),
    "object": lambda v: isinstance(v, Mapping),
    "null": lambda v: v is None,
}
# Catalogs in the wild (BFCL among them) use Python type names in their schemas.
_ALIASES = {
    "dict": "object",
    "list": "array",
    "tuple": "array",
    "float": "number",
    "int": "integer",
    "str": "string",
    "bool": "boolean",
    "any": "",
}


def check_arguments(schema: Mapping[str, Any] | None, arguments: Mapping[str, Any]) -> list[str]:
    """What is wrong with `arguments` for an object schema: missing, unexpected, mistyped.

    Deliberately shallow (top-level properties: required, additionalProperties, type,
    enum): the handler owns deeper validation, and a false rejection would block a
    working tool.
    """
    if not schema:
        return []
    schema = thaw(schema)
    problems: list[str] = []
    properties = schema.get("properties") or {}
    for name in schema.get("required") or ():
        if name not in arguments:
            problems.append(f"missing required argument {name!r}")
    if schema.get("additionalProperties") is False:
        unexpected = [name for name in arguments if name not in properties]
        allowed = ", ".join(properties) or "none"
        for name in unexpected[:_LISTED_PROBLEMS]:
            problems.append(f"unexpected argument {quote_value(name)} (allowed: {allowed})")
        if len(unexpected) > _LISTED_PROBLEMS:
            problems.append(
                f"{len(unexpected) - _LISTED_PROBLEMS:,} more unexpected arguments "
                f"({len(unexpected):,} in all)"
            )
    for name, value in arguments.items():
        prop = properties.get(name)
        if not isinstance(prop, Mapping):
            continue
        declared = prop.get("type")
        types = declared if isinstance(declared, list) else [declared] if declared else []
        names = [_ALIASES.get(str(t), str(t)) for t in types]
        if names and "" not in names:
            checks = [_JSON_TYPES.get(t) for t in names]
            if all(c is not None for c in checks) and not any(c(value) for c in checks if c):
                problems.append(f"{name}: expected {' or '.join(names)}, got {_quote_json(value)}")
        enum = prop.get("enum")
        if isinstance(enum, list) and value not in enum:
            problems.append(f"{name}: must be one of {enum}, got {quote_value(value)}")
    return problems


#: Unexpected arguments `check_arguments` names one by one; more are counted.
_LISTED_PROBLEMS = 5


def _quote_json(value: Any) -> str:
    """`value` as JSON, cut to about `QUOTE_LENGTH` characters with its length after."""
    text = json.dumps(value, default=str)
    if len(text) <= QUOTE_LENGTH:
        return text
    if isinstance(value, (list, dict)):
        return f"{text[:QUOTE_LENGTH]}… ({type(value).__name__} of {len(value):,} items)"
    return f"{text[:QUOTE_LENGTH]}… ({len(text):,} characters)"
