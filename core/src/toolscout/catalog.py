"""Reading tool catalogs: JSON or JSONL files in the common tool formats, and Arrow tables.

Each tool may be written as
- an OpenAI Chat Completions function tool: `{"type": "function", "function": {"name",
  "description", "parameters"}}`, or the flat Responses API form `{"type": "function",
  "name", "description", "parameters"}`;
- an Anthropic tool: `{"name", "description", "input_schema"}`;
- an MCP tool: `{"name", "description", "inputSchema"}`, alone or in a `tools/list`
  result (`{"tools": [...]}`, also wrapped in a JSON-RPC response `{"result": {...}}`).
A file holds a JSON array of tools, one of those wrappers, or one tool per line (JSONL).
Fields besides these (provenance, annotations) go into the tool's metadata.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolscout.errors import CatalogError
from toolscout.types import MAX_SCHEMA_DEPTH, ToolReference

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["from_arrow", "load_catalog", "parse_catalog_text", "parse_tool", "to_arrow"]

_KNOWN = {
    "type",
    "function",
    "name",
    "description",
    "parameters",
    "input_schema",
    "inputSchema",
    "metadata",
}


def parse_tool(data: Mapping[str, Any], where: str = "tool") -> ToolReference:
    """One tool definition in any supported format → `ToolReference`."""
    if not isinstance(data, Mapping):
        raise CatalogError(f"{where}: expected a JSON object, got {type(data).__name__}")
    body: Mapping[str, Any] = data
    if isinstance(data.get("function"), Mapping):
        body = data["function"]
    name = body.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CatalogError(f'{where}: a tool needs a non-empty string "name", got {name!r}')
    schema = None
    for key in ("input_schema", "inputSchema", "parameters"):
        if body.get(key) is not None:
            schema = body[key]
            break
    if schema is not None and not isinstance(schema, Mapping):
        raise CatalogError(f"{where} ({name}): the input schema must be a JSON object")
    description = body.get("description") or ""
    if not isinstance(description, str):
        raise CatalogError(f'{where} ({name}): "description" must be a string')
    metadata: dict[str, Any] = {}
    if isinstance(data.get("metadata"), Mapping):
        metadata.update(data["metadata"])
    metadata.update({k: v for k, v in data.items() if k not in _KNOWN})
    return ToolReference(name, description, schema, metadata or None)


def _tool_list(document: Any, where: str) -> list[Any]:
    if isinstance(document, Mapping):
        if "jsonrpc" in document and "error" in document:
            raise CatalogError(
                f"{where}: this is a JSON-RPC error response, not a tool list: "
                f"{json.dumps(document['error'])}"
            )
        if isinstance(document.get("result"), Mapping):  # JSON-RPC response
            document = document["result"]
        if isinstance(document.get("tools"), list):  # MCP tools/list result
            return list(document["tools"])
        return [document]
    if isinstance(document, list):
        return document
    raise CatalogError(f'{where}: expected a tool, a list of tools or {{"tools": [...]}}')


def load_catalog(
    source: str | Path | Iterable[Mapping[str, Any]] | pa.Table,
) -> list[ToolReference]:
    """Read tools from a JSON/JSONL/Parquet file, a list of tool dicts, or a `pyarrow.Table`.

    Duplicate names raise `CatalogError`: a catalog must name each tool once.
    """
    where = ""
    if type(source).__name__ == "Table" and hasattr(source, "column_names"):
        tools = from_arrow(source)
    elif isinstance(source, (str, Path)):
        tools = _read_file(Path(source))
        where = f"{source}: "
    else:
        tools = [parse_tool(item, f"tool {i + 1}") for i, item in enumerate(source)]
    return _unique(tools, where)


def _unique(tools: list[ToolReference], where: str) -> list[ToolReference]:
    """`tools`, unless two share a name (a catalog names each tool once)."""
    seen: set[str] = set()
    for tool in tools:
        if tool.name in seen:
            raise CatalogError(
                f"{where}the catalog names tool {tool.name!r} more than once; "
                "give each tool a unique name or drop the duplicate"
            )
        seen.add(tool.name)
    return tools


def _read_file(path: Path) -> list[ToolReference]:
    if not path.exists():
        raise CatalogError(f"catalog file not found: {path}")
    if path.is_dir():
        raise CatalogError(f"catalog path is a directory, expected a file: {path}")
    if path.suffix in (".parquet", ".arrow", ".feather"):
        return _read_arrow_file(path)
    try:
        # utf-8-sig: a byte-order mark (as Windows editors write) is read as nothing.
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise CatalogError(f"{path}: not UTF-8 text ({error})") from None
    return _parse_text(text, str(path), path.suffix)


def parse_catalog_text(text: str, where: str = "standard input") -> list[ToolReference]:
    """Tools from catalog text (JSON or JSONL, told apart by their shape), as
    `load_catalog` reads a file; `where` names the text in errors (`--catalog -`)."""
    return _unique(_parse_text(text.removeprefix("\ufeff"), where, ""), f"{where}: ")


def _parse_text(text: str, where: str, suffix: str) -> list[ToolReference]:
    stripped = text.lstrip()
    if not stripped:
        raise CatalogError(f"{where}: the file is empty" if suffix else f"{where}: no catalog")
    if suffix == ".jsonl" or (stripped[0] == "{" and "\n{" in stripped and suffix != ".json"):
        tools = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                item = _loads(line, f"{where}:{number}")
            except json.JSONDecodeError as error:
                raise CatalogError(f"{where}:{number}: invalid JSON: {error.msg}") from None
            for tool in _tool_list(item, f"{where}:{number}"):
                tools.append(parse_tool(tool, f"{where}:{number}"))
        return tools
    try:
        document = _loads(text, where)
    except json.JSONDecodeError as error:
        raise CatalogError(
            f"{where}:{error.lineno}: invalid JSON: {error.msg} (column {error.colno})"
        ) from None
    return [
        parse_tool(item, f"{where}: tool {i + 1}")
        for i, item in enumerate(_tool_list(document, where))
    ]


def _loads(text: str, where: str) -> Any:
    """JSON text, with input nested past Python's recursion limit (a hostile or broken
    catalog) refused as a `CatalogError` instead of a `RecursionError` traceback."""
    try:
        return json.loads(text)
    except RecursionError:
        raise CatalogError(
            f"{where}: the JSON is nested too deeply to read (tool schemas may nest at most "
            f"{MAX_SCHEMA_DEPTH} levels); flatten it"
        ) from None
    except json.JSONDecodeError:
        raise
    except ValueError as error:  # an integer longer than Python converts (4,300 digits)
        raise CatalogError(f"{where}: {too_long_number(error)}") from None


def too_long_number(error: ValueError) -> str:
    """What a reader says of a number too long to convert (`int` refuses 4,300+ digits)."""
    digits = re.search(r"has (\d+) digits", str(error))
    size = f" of {int(digits.group(1)):,} digits" if digits else ""
    limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
    return (
        f"a number{size} is longer than toolscout reads ({limit:,} digits at most); "
        "shorten it or write it as a string"
    )


def _read_arrow_file(path: Path) -> list[ToolReference]:
    try:
        if path.suffix == ".parquet":
            import pyarrow.parquet as pq

            table = pq.read_table(path)
        else:
            import pyarrow.feather as feather

            table = feather.read_table(path)
    except ImportError:
        raise CatalogError(
            f"{path}: reading Arrow files needs pyarrow: pip install pyarrow"
        ) from None
    return from_arrow(table)


ARROW_COLUMNS = ("name", "description", "input_schema", "metadata")


def to_arrow(tools: Iterable[ToolReference]) -> pa.Table:
    """A table with columns name, description, input_schema and metadata (JSON strings)."""
    import pyarrow as pa

    tools = list(tools)
    return pa.table(
        {
            "name": pa.array([t.name for t in tools], pa.string()),
            "description": pa.array([t.description for t in tools], pa.string()),
            "input_schema": pa.array(
                [None if t.input_schema is None else json.dumps(t.input_schema) for t in tools],
                pa.string(),
            ),
            "metadata": pa.array(
                [None if t.metadata is None else json.dumps(t.metadata) for t in tools],
                pa.string(),
            ),
        }
    )


def from_arrow(table: pa.Table) -> list[ToolReference]:
    """Tools from a table with a `name` column and optional description/input_schema/metadata.

    `input_schema` and `metadata` may be JSON strings or structs.
    """
    if "name" not in table.column_names:
        raise CatalogError(
            f"an Arrow tool table needs a 'name' column; it has {table.column_names}"
        )
    columns = {c: table.column(c).to_pylist() for c in ARROW_COLUMNS if c in table.column_names}
    tools = []
    for row in range(table.num_rows):
        values = {c: columns[c][row] for c in columns}
        for key in ("input_schema", "metadata"):
            if isinstance(values.get(key), str):
                try:
                    values[key] = _loads(values[key], f"row {row}: column {key!r}")
                except json.JSONDecodeError as error:
                    raise CatalogError(
                        f"row {row}: column {key!r} is not valid JSON: {error.msg}"
                    ) from None
        tools.append(parse_tool(values, f"row {row}"))
    return tools
