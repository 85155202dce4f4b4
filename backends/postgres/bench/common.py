"""Shared by the benchmark scripts: a server (embedded, or `--dsn`), catalogs and queries."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

EVAL = Path(
    os.environ.get("TOOLSCOUT_EVAL_DATA")
    or Path(__file__).resolve().parents[3].parent / "shared" / "eval"
)


def server(dsn: str | None) -> tuple[str, Any]:
    """A DSN, and the embedded server to stop afterwards (None when `dsn` was given)."""
    if dsn:
        return dsn, None
    from toolscout_postgres.server import EmbeddedServer

    embedded = EmbeddedServer(settings={"max_connections": "300"}).start()
    return embedded.dsn, embedded


def tools(source: str = "bfcl") -> list[Any]:
    from toolscout import load_catalog

    return load_catalog(EVAL / source / "tools.jsonl")


def queries(source: str = "bfcl") -> list[str]:
    lines = (EVAL / source / "queries.jsonl").read_text().splitlines()
    return [json.loads(line)["query"] for line in lines if line.strip()]


def catalog_10k(size: int = 10_000) -> list[Any]:
    """BFCL and Seal-Tools joined (clashing Seal-Tools names suffixed `__seal`), then
    repeated with `__copy<k>` names up to `size` tools (as the duckdb benches do)."""
    from toolscout import ToolReference

    joined: list[dict[str, Any]] = []
    seen: set[str] = set()
    for source, suffix in (("bfcl", "__bfcl"), ("seal_tools", "__seal")):
        for line in (EVAL / source / "tools.jsonl").read_text().splitlines():
            if not line.strip():
                continue
            tool = json.loads(line)
            name = str(tool["name"])
            if name in seen:
                name = f"{name}{suffix}"
            seen.add(name)
            joined.append(
                {
                    "name": name,
                    "description": tool.get("description") or "",
                    "input_schema": tool.get("input_schema"),
                }
            )
    catalog = list(joined[:size])
    copy = 1
    while len(catalog) < size:
        for tool in joined[: size - len(catalog)]:
            catalog.append({**tool, "name": f"{tool['name']}__copy{copy}"})
        copy += 1
    return [ToolReference.from_dict(tool) for tool in catalog]


def rss_mb(pid: int | None = None) -> float:
    with open(f"/proc/{pid or 'self'}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def server_memory_mb(dsn: str, schema: str | None = None) -> dict[str, float]:
    """The server's memory: PSS of its processes (shared buffers counted once), and the
    on-disk size of the tables (with their indexes) of `schema` (None: every schema)."""
    import psutil
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        size = conn.execute(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relkind IN ('r', 'm') AND n.nspname NOT IN ('pg_catalog', "
            "'information_schema', 'pg_toast') AND (%s::text IS NULL OR n.nspname = %s)",
            [schema, schema],
        ).fetchone()[0]
        postmaster = psutil.Process(pid).parent()
    processes = [postmaster, *postmaster.children()]
    pss = 0
    for process in processes:
        with contextlib.suppress(psutil.Error):
            pss += process.memory_full_info().pss
    return {"server_pss_mb": round(pss / 2**20, 1), "tables_mb": round(float(size) / 2**20, 1)}
