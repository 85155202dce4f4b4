"""What the `toolscout` command imports, with every member installed.

`toolscout --help` lists the commands plugins add (`toolscout mcp`, `toolscout bench`), so it
imports every plugin module, but it must import no backend module and no engine: those load
only when a command uses a backend, and then only the selected one. Behaviour, not timing;
`core/benchmarks/cli_startup.py` measures the time.
"""

from __future__ import annotations

import json
from pathlib import Path

from integration_support import run_python

#: Backend modules and engines, none of which `--help` may import.
BACKEND_MODULES = (
    "toolscout_regex.index",
    "toolscout_duckdb.index",
    "toolscout_tantivy.index",
    "toolscout_lancedb.index",
    "duckdb",
    "tantivy",
    "lancedb",
)

#: Heavy dependencies beyond the backends themselves.
HEAVY = ("pyarrow", "numpy", "regex", "torch", "sentence_transformers")


def modules_after_cli(argv: list[str], cwd: Path) -> set[str]:
    """The modules a fresh interpreter holds after `toolscout.cli.main(argv)` returns."""
    code = (
        "import contextlib, io, json, sys\n"
        "import toolscout.cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = toolscout.cli.main({json.dumps(argv)})\n"
        "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}))"
    )
    output = run_python(code, cwd)
    assert output["code"] == 0, output["code"]
    modules = output["modules"]
    assert isinstance(modules, list)
    return set(modules)


def test_help_imports_no_backend_module(tmp_path: Path) -> None:
    modules = modules_after_cli(["--help"], tmp_path)
    assert not modules & set(BACKEND_MODULES)
    assert not modules & set(HEAVY)


def test_help_still_lists_the_commands_of_plugins(tmp_path: Path) -> None:
    code = (
        "import contextlib, io, json\n"
        "import toolscout.cli\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    toolscout.cli.main(['--help'])\n"
        "print(json.dumps({'help': out.getvalue()}))"
    )
    text = str(run_python(code, tmp_path)["help"])
    assert "mcp" in text
    assert "bench" in text


def test_a_plugin_command_help_imports_no_backend_module(tmp_path: Path) -> None:
    modules = modules_after_cli(["mcp", "serve", "--help"], tmp_path)
    assert "toolscout_mcp.plugin" in modules
    assert not modules & set(BACKEND_MODULES)


def test_search_with_regex_imports_no_other_backend(tmp_path: Path) -> None:
    modules = modules_after_cli(["search", "weather", "--backend", "regex"], tmp_path)
    assert "toolscout_regex.index" in modules
    others = set(BACKEND_MODULES) - {"toolscout_regex.index"}
    assert not modules & others
    # numpy is the hybrid ranking's (regex's word scores and the default embedder's
    # vectors); nothing heavier.
    assert not modules & {"pyarrow", "torch", "onnxruntime", "tokenizers"}


def test_eval_imports_only_the_selected_backend(tmp_path: Path) -> None:
    (tmp_path / "tools.jsonl").write_text(
        json.dumps({"name": "get_weather", "description": "Current weather for a city."}) + "\n",
        encoding="utf-8",
    )
    (tmp_path / "queries.jsonl").write_text(
        json.dumps({"query": "weather in Paris", "relevant": ["get_weather"]}) + "\n",
        encoding="utf-8",
    )
    argv = ["eval", "--catalog", "tools.jsonl", "--queries", "queries.jsonl"]
    modules = modules_after_cli([*argv, "--backend", "regex"], tmp_path)
    assert "toolscout_regex.index" in modules
    assert not modules & (set(BACKEND_MODULES) - {"toolscout_regex.index"})
    assert not modules & {"pyarrow", "torch", "onnxruntime", "tokenizers"}
