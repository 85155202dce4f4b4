"""Time and memory to embed (or index into LanceDB) 10,000 tools with the `onnx` embedder.

    python contrib/onnx/bench/embed_10k.py [--data ../shared/eval] [--size 10000]
        [--float] [--batch-size 32] [--threads N] [--lancedb] [--uri memory://]

The catalog joins ../shared/eval/bfcl and seal_tools (5,929 tools; a name taken twice gets
its data set's name appended), then renamed copies (`name_copy2`, ...) fill it to `--size`,
so every tool text is distinct and all of them reach the model. Each tool is embedded as
the lancedb backend embeds it (`toolscout_lancedb.text.embedding_text`, or the same
formula if lancedb is not installed). No vector cache: every text runs through the model.

Printed: model load time, embedding time (wall clock and CPU seconds of this process),
texts per second, token counts, and resident memory (RSS) after import, after the model
loads, after embedding and at its peak. With `--lancedb` the tools are indexed into a
`LanceDBToolIndex` (one session) instead, and RSS per tool row is reported, then once
more for a second session with the same tools (vectors from the cache: the backend's own
cost per row). The machine's
load average is printed too: on a shared 2-core machine, wall-clock figures vary with what
else runs, CPU seconds much less.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

EVAL = Path(__file__).resolve().parents[3].parent / "shared" / "eval"


def rss_mb() -> tuple[float, float]:
    """Current and peak resident memory of this process, in MB."""
    fields: dict[str, float] = {}
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    fields[key] = float(value.split()[0]) / 1024
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return peak, peak
    return fields["VmRSS"], fields["VmHWM"]


def catalog(data: Path, size: int) -> list[Any]:
    from toolscout import ToolReference
    from toolscout.catalog import load_catalog

    tools: list[ToolReference] = []
    taken: set[str] = set()
    for name in ("bfcl", "seal_tools"):
        for tool in load_catalog(data / name / "tools.jsonl"):
            unique = tool.name if tool.name not in taken else f"{tool.name}_{name}"
            number = 2
            while unique in taken:
                unique = f"{tool.name}_{name}_{number}"
                number += 1
            taken.add(unique)
            tools.append(ToolReference(unique, tool.description, tool.input_schema, tool.metadata))
    base = list(tools)
    copy = 2
    while len(tools) < size:
        for tool in base:
            if len(tools) >= size:
                break
            name = f"{tool.name}_copy{copy}"
            tools.append(ToolReference(name, tool.description, tool.input_schema, tool.metadata))
        copy += 1
    return tools[:size]


def embedding_text(tool: Any) -> str:
    try:
        from toolscout_lancedb.text import embedding_text as lancedb_text
    except ImportError:
        text = tool.text
        parts = [text.name + ":"]
        if tool.description.strip():
            parts.append(" ".join(tool.description.split()))
        if text.parameters:
            parts.append("; " + text.parameters)
        return " ".join(parts)[:2000]
    return lancedb_text(tool)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=EVAL)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument(
        "--float", action="store_true", help="float32 weights (default: int8, as the embedder)"
    )
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--max-seq-length", type=int, default=None)
    parser.add_argument("--lancedb", action="store_true", help="index into LanceDB")
    parser.add_argument("--uri", default="memory://", help="LanceDB uri (with --lancedb)")
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = parser.parse_args()

    result: dict[str, Any] = {"load_average": os.getloadavg()[0], "cores": os.cpu_count()}
    result["rss_start_mb"] = rss_mb()[0]
    from toolscout_onnx import OnnxEmbedder

    tools = catalog(args.data, args.size)
    texts = [embedding_text(tool) for tool in tools]
    assert len(set(texts)) == len(texts), "tool texts are not distinct"
    embedder = OnnxEmbedder(
        batch_size=args.batch_size,
        quantize=not args.float,
        threads=args.threads,
        max_seq_length=args.max_seq_length,
    )
    start = time.perf_counter()
    embedder.warm_up()
    embedder.embed(["warm up"])
    result["model"] = embedder.model_id
    result["load_s"] = time.perf_counter() - start
    result["rss_model_mb"] = rss_mb()[0]

    wall, cpu = time.perf_counter(), time.process_time()
    if args.lancedb:
        from toolscout.embedders import EmbeddingCache
        from toolscout_lancedb import LanceDBToolIndex

        index = LanceDBToolIndex(embedder, uri=args.uri, cache=EmbeddingCache())
        index.index_tools("warm-up", tools[:1])
        index.clear_index("warm-up")
        baseline = rss_mb()[0]
        wall, cpu = time.perf_counter(), time.process_time()
        index.index_tools("bench", tools)
        result["index_s"] = time.perf_counter() - wall
        result["index_cpu_s"] = time.process_time() - cpu
        result["rss_baseline_mb"] = baseline
        result["rss_after_mb"], result["rss_peak_mb"] = rss_mb()
        result["rss_per_row_kb"] = (result["rss_after_mb"] - baseline) * 1024 / len(tools)
        # A second session with the same tools: no embedding (the vectors are cached), so
        # this is what a (session, tool) row costs the backend alone.
        before = rss_mb()[0]
        wall = time.perf_counter()
        index.index_tools("second", tools)
        result["second_session_s"] = time.perf_counter() - wall
        result["rss_second_session_mb"] = rss_mb()[0]
        result["rss_per_row_second_session_kb"] = (
            (result["rss_second_session_mb"] - before) * 1024 / len(tools)
        )
    else:
        vectors = embedder.embed(texts)
        result["embed_s"] = time.perf_counter() - wall
        result["embed_cpu_s"] = time.process_time() - cpu
        result["texts_per_s"] = len(texts) / result["embed_s"]
        result["rss_after_mb"], result["rss_peak_mb"] = rss_mb()
        result["vector_mb"] = vectors.nbytes / (1 << 20)
    tokenizer = embedder._tokenizer  # counted last: encodings of every text take memory
    lengths = [len(tokenizer.encode(text).ids) for text in texts]
    result["tokens_mean"] = sum(lengths) / len(lengths)
    result["load_average_end"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        shown = f"{value:,.2f}" if isinstance(value, float) else value
        print(f"{key:>18}: {shown}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
