"""Specification of catalog loading: every common tool format, files, tables and bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from toolscout import CatalogError, ToolReference, load_catalog
from toolscout.catalog import from_arrow, parse_tool, to_arrow

EVAL = Path(__file__).resolve().parents[2].parent / "shared" / "eval"

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "City name"}},
    "required": ["city"],
}
EXPECTED = ToolReference("get_weather", "Current weather.", SCHEMA)


def write(path: Path, content: Any) -> Path:
    path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    return path


# --- formats -----------------------------------------------------------------------------


def test_reads_openai_chat_completions_function_tools() -> None:
    tool = {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather.",
            "parameters": SCHEMA,
        },
    }
    assert load_catalog([tool]) == [EXPECTED]


def test_reads_openai_responses_api_flat_function_tools() -> None:
    tool = {
        "type": "function",
        "name": "get_weather",
        "description": "Current weather.",
        "parameters": SCHEMA,
    }
    assert load_catalog([tool]) == [EXPECTED]


def test_keeps_extra_responses_api_fields_as_metadata() -> None:
    tool = {"type": "function", "name": "get_weather", "parameters": SCHEMA, "strict": True}
    [ref] = load_catalog([tool])
    assert ref.metadata == {"strict": True}


def test_reads_anthropic_tools() -> None:
    tool = {"name": "get_weather", "description": "Current weather.", "input_schema": SCHEMA}
    assert load_catalog([tool]) == [EXPECTED]


def test_reads_mcp_tools() -> None:
    tool = {"name": "get_weather", "description": "Current weather.", "inputSchema": SCHEMA}
    assert load_catalog([tool]) == [EXPECTED]


def test_keeps_mcp_annotations_and_title_as_metadata() -> None:
    tool = {
        "name": "get_weather",
        "title": "Weather",
        "inputSchema": SCHEMA,
        "annotations": {"readOnlyHint": True},
    }
    [ref] = load_catalog([tool])
    assert ref.metadata == {"title": "Weather", "annotations": {"readOnlyHint": True}}


def test_merges_an_explicit_metadata_field_with_extra_fields() -> None:
    [ref] = load_catalog([{"name": "t", "metadata": {"server": "s1"}, "source": "bfcl"}])
    assert ref.metadata == {"server": "s1", "source": "bfcl"}


def test_reads_a_tool_without_description_or_schema() -> None:
    assert load_catalog([{"name": "ping"}]) == [ToolReference("ping")]


def test_reads_an_mcp_tools_list_result_file(tmp_path: Path) -> None:
    path = write(
        tmp_path / "tools.json",
        {
            "tools": [
                {"name": "get_weather", "description": "Current weather.", "inputSchema": SCHEMA},
                {"name": "ping"},
            ],
            "nextCursor": "abc",
        },
    )
    assert [t.name for t in load_catalog(path)] == ["get_weather", "ping"]


def test_reads_a_json_rpc_wrapped_tools_list_result(tmp_path: Path) -> None:
    path = write(
        tmp_path / "tools.json",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {
                "tools": [
                    {
                        "name": "get_weather",
                        "description": "Current weather.",
                        "inputSchema": SCHEMA,
                    }
                ]
            },
        },
    )
    assert load_catalog(path) == [EXPECTED]


def test_reads_a_json_array_file(tmp_path: Path) -> None:
    path = write(tmp_path / "tools.json", [EXPECTED.to_dict(), {"name": "ping"}])
    assert load_catalog(path) == [EXPECTED, ToolReference("ping")]


def test_reads_a_single_tool_json_file(tmp_path: Path) -> None:
    assert load_catalog(write(tmp_path / "tool.json", EXPECTED.to_dict())) == [EXPECTED]


def test_reads_jsonl_one_tool_a_line_skipping_blank_lines(tmp_path: Path) -> None:
    lines = [json.dumps(EXPECTED.to_dict()), "", "   ", json.dumps({"name": "ping"})]
    path = write(tmp_path / "tools.jsonl", "\n".join(lines) + "\n")
    assert load_catalog(path) == [EXPECTED, ToolReference("ping")]


def test_reads_jsonl_content_whatever_the_file_suffix(tmp_path: Path) -> None:
    path = write(tmp_path / "tools.txt", '{"name": "a"}\n{"name": "b"}\n')
    assert [t.name for t in load_catalog(path)] == ["a", "b"]


def test_accepts_a_path_given_as_a_string(tmp_path: Path) -> None:
    path = write(tmp_path / "tools.json", [{"name": "ping"}])
    assert load_catalog(str(path)) == [ToolReference("ping")]


def test_reads_an_empty_json_array_as_no_tools(tmp_path: Path) -> None:
    assert load_catalog(write(tmp_path / "tools.json", [])) == []


# --- Arrow and Parquet -------------------------------------------------------------------


def test_arrow_round_trip_keeps_every_field() -> None:
    tools = [
        ToolReference("get_weather", "Current weather.", SCHEMA, {"server": "w", "tags": ["x"]}),
        ToolReference("ping"),
    ]
    assert from_arrow(to_arrow(tools)) == tools


def test_to_arrow_has_the_documented_string_columns() -> None:
    table = to_arrow([EXPECTED])
    assert table.column_names == ["name", "description", "input_schema", "metadata"]
    assert all(field.type == pa.string() for field in table.schema)
    assert json.loads(table.column("input_schema")[0].as_py()) == SCHEMA


def test_reads_a_pyarrow_table() -> None:
    assert load_catalog(to_arrow([EXPECTED])) == [EXPECTED]


def test_reads_a_table_with_struct_columns() -> None:
    table = pa.table({"name": ["t"], "metadata": [{"server": "s1", "rank": 2}]})
    assert load_catalog(table) == [ToolReference("t", metadata={"server": "s1", "rank": 2})]


def test_reads_a_table_with_only_a_name_column() -> None:
    assert load_catalog(pa.table({"name": ["a", "b"]})) == [ToolReference("a"), ToolReference("b")]


def test_reads_a_parquet_file(tmp_path: Path) -> None:
    path = tmp_path / "tools.parquet"
    pq.write_table(to_arrow([EXPECTED, ToolReference("ping")]), path)
    assert load_catalog(path) == [EXPECTED, ToolReference("ping")]


def test_a_table_without_a_name_column_is_a_catalog_error() -> None:
    with pytest.raises(CatalogError, match="'name' column"):
        load_catalog(pa.table({"title": ["a"]}))


def test_a_table_with_bad_schema_json_names_the_row_and_column() -> None:
    table = pa.table({"name": ["a", "b"], "input_schema": ['{"type": "object"}', "{not json"]})
    with pytest.raises(CatalogError, match=r"row 1: column 'input_schema' is not valid JSON"):
        load_catalog(table)


def test_duplicate_names_in_a_table_are_a_catalog_error() -> None:
    with pytest.raises(CatalogError, match="'a' more than once"):
        load_catalog(pa.table({"name": ["a", "a"]}))


# --- bad input ---------------------------------------------------------------------------


def test_a_missing_file_is_a_catalog_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    with pytest.raises(CatalogError, match=f"not found: {missing}"):
        load_catalog(missing)


def test_a_directory_is_a_catalog_error(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="is a directory"):
        load_catalog(tmp_path)


def test_an_empty_file_is_a_catalog_error(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="empty"):
        load_catalog(write(tmp_path / "tools.json", "  \n"))


def test_a_non_utf8_file_is_a_catalog_error(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_bytes(b'[{"name": "caf\xe9"}]')
    with pytest.raises(CatalogError, match="not UTF-8"):
        load_catalog(path)


def test_bad_json_names_the_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path / "tools.json", '[\n  {"name": "a"},\n  {"name": "b",}\n]')
    with pytest.raises(CatalogError, match=f"^{path}:3: invalid JSON"):
        load_catalog(path)


def test_bad_jsonl_names_the_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path / "tools.jsonl", '{"name": "a"}\n\n{"name": b}\n')
    with pytest.raises(CatalogError, match=f"^{path}:3: invalid JSON"):
        load_catalog(path)


def test_a_tool_without_name_is_a_catalog_error_naming_where(tmp_path: Path) -> None:
    path = write(tmp_path / "tools.jsonl", '{"name": "a"}\n{"description": "nameless"}\n')
    with pytest.raises(CatalogError, match=f'{path}:2: a tool needs a non-empty string "name"'):
        load_catalog(path)


@pytest.mark.parametrize("name", ["", "   ", 42, None])
def test_a_blank_or_non_string_name_is_a_catalog_error(name: object) -> None:
    with pytest.raises(CatalogError, match='"name"'):
        load_catalog([{"name": name}])


def test_a_function_tool_without_name_is_a_catalog_error() -> None:
    with pytest.raises(CatalogError, match='"name"'):
        load_catalog([{"type": "function", "function": {"description": "no name"}}])


def test_duplicate_names_are_a_catalog_error_naming_the_tool_and_file(tmp_path: Path) -> None:
    path = write(tmp_path / "tools.json", [{"name": "a"}, {"name": "b"}, {"name": "a"}])
    with pytest.raises(CatalogError, match=f"{path}: the catalog names tool 'a' more than once"):
        load_catalog(path)


def test_duplicate_names_in_a_list_are_a_catalog_error() -> None:
    with pytest.raises(CatalogError, match="'a' more than once"):
        load_catalog([{"name": "a"}, {"name": "a"}])


def test_a_schema_that_is_not_an_object_is_a_catalog_error() -> None:
    with pytest.raises(CatalogError, match=r"tool 1 \(t\): the input schema must be a JSON object"):
        load_catalog([{"name": "t", "inputSchema": "string"}])


def test_a_non_string_description_is_a_catalog_error() -> None:
    with pytest.raises(CatalogError, match=r'\(t\): "description" must be a string'):
        load_catalog([{"name": "t", "description": ["x"]}])


def test_an_item_that_is_not_an_object_is_a_catalog_error() -> None:
    with pytest.raises(CatalogError, match="tool 2: expected a JSON object, got int"):
        load_catalog([{"name": "a"}, 3])  # type: ignore[list-item]


def test_a_json_scalar_document_is_a_catalog_error(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="expected a tool, a list of tools"):
        load_catalog(write(tmp_path / "tools.json", '"hello"'))


def test_a_json_rpc_error_response_is_a_catalog_error_quoting_it(tmp_path: Path) -> None:
    document = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}
    with pytest.raises(CatalogError, match=r"JSON-RPC error.*Method not found"):
        load_catalog(write(tmp_path / "tools.json", document))


def test_parse_tool_rejects_a_non_mapping() -> None:
    with pytest.raises(CatalogError, match="expected a JSON object"):
        parse_tool(["name"])  # type: ignore[arg-type]


# --- the shared evaluation catalogs ------------------------------------------------------


@pytest.mark.parametrize(("dataset", "count"), [("bfcl", 1853), ("seal_tools", 4076)])
def test_loads_the_shared_eval_catalogs_in_place(dataset: str, count: int) -> None:
    path = EVAL / dataset / "tools.jsonl"
    if not EVAL.is_dir():
        pytest.skip(f"the shared eval data is not checked out at {EVAL}")
    tools = load_catalog(path)
    assert len(tools) == count
    assert len({t.name for t in tools}) == count
    assert all(t.input_schema is None or "type" in t.input_schema for t in tools)


def test_eval_catalog_keeps_dotted_names() -> None:
    if not EVAL.is_dir():
        pytest.skip(f"the shared eval data is not checked out at {EVAL}")
    names = {t.name for t in load_catalog(EVAL / "bfcl" / "tools.jsonl")}
    assert "math.sum" in names


# --- issue 24: 12, 16 ------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_utf8_file_with_a_byte_order_mark_is_read(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"tools{suffix}"
    tool = {"name": "make_order", "description": "Create an order."}
    text = json.dumps(tool) + "\n" if suffix == ".jsonl" else json.dumps([tool])
    path.write_text(text, encoding="utf-8-sig")
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    assert [t.name for t in load_catalog(path)] == ["make_order"]


@pytest.mark.parametrize(
    ("suffix", "where"), [(".json", "tools.json: "), (".jsonl", "tools.jsonl:2: ")]
)
def test_a_number_too_long_to_read_names_the_file(tmp_path: Path, suffix: str, where: str) -> None:
    huge = "9" * 5000
    big = f'{{"name": "big", "parameters": {{"properties": {{"n": {{"maximum": {huge}}}}}}}}}'
    small = '{"name": "small"}'
    text = f"{small}\n{big}\n" if suffix == ".jsonl" else f"[{small}, {big}]"
    path = tmp_path / f"tools{suffix}"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError) as caught:
        load_catalog(path)
    message = str(caught.value)
    assert message.startswith(str(tmp_path / where.split(":")[0]))
    assert where.rstrip(" ") in message and "a number of 5,000 digits" in message
