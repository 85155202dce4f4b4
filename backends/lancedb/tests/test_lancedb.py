"""Behaviour of the LanceDB backend beyond the conformance suite: fusion, abstention, the
stored table's checks, shared storage, the vector cache and configuration errors."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from toolscout import ConfigError, ToolReference, ToolSearchRequest, load_index
from toolscout.cli import main as toolscout_main
from toolscout.embedders import EmbeddingCache
from toolscout_lancedb import LanceDBToolIndex, loop
from toolscout_lancedb.text import full_text, name_match, query_terms
from toolscout_sentence_transformers import SentenceTransformerEmbedder

CATALOG = [
    ToolReference(
        "slack_send_message",
        "Post a message to a Slack channel.",
        {"type": "object", "properties": {"channel": {"type": "string"}}},
    ),
    ToolReference("github_create_issue", "Open a new issue in a GitHub repository."),
    ToolReference("weather_forecast", "Get tomorrow's weather forecast for a city."),
    ToolReference("stripe_refund_payment", "Refund a card payment made through Stripe."),
    ToolReference("calendar_create_event", "Schedule a meeting in the user's calendar."),
]


class WordHashEmbedder:
    """A small real embedder: each word hashed into one of 64 dimensions. Another model
    id than MiniLM's, for the table checks."""

    name: ClassVar[str] = "word-hash"
    model_id = "test/word-hash-64"
    dimension = 64

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        matrix = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                matrix[row, hashlib.blake2b(word.encode()).digest()[0] % 64] += 1.0
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.maximum(norms, 1e-9)


def names(index: LanceDBToolIndex, session: str, query: str, limit: int = 5) -> list[str]:
    response = index.search(ToolSearchRequest(session, query, limit))
    return [hit.name for hit in response.references]


def wait_until_indexed(index: LanceDBToolIndex) -> None:
    """Wait (a minute at most) for the background optimize to index every row."""
    deadline = time.monotonic() + 60
    while index.unindexed_rows() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert index.unindexed_rows() == 0


def test_semantic_query_finds_the_tool_without_shared_words(
    minilm: SentenceTransformerEmbedder,
) -> None:
    index = LanceDBToolIndex(minilm)
    index.index_tools("s", CATALOG)
    assert names(index, "s", "post to the team chat")[:1] == ["slack_send_message"]
    assert names(index, "s", "give the customer their money back")[:1] == ["stripe_refund_payment"]


def test_hybrid_ranks_a_tool_whose_name_words_the_query_holds_first(
    minilm: SentenceTransformerEmbedder,
) -> None:
    index = LanceDBToolIndex(minilm)
    index.index_tools("s", CATALOG)
    assert names(index, "s", "create a calendar event for friday")[:1] == ["calendar_create_event"]


def test_name_match_is_the_share_of_name_words_in_the_query() -> None:
    terms = query_terms("please send the messages to slack")
    assert name_match("slack_send_message", terms) == 1.0
    assert name_match("slackGetChannel", terms) == pytest.approx(1 / 3)
    assert name_match("weather_forecast", terms) == 0.0


def test_full_text_repeats_the_name_words_name_boost_times() -> None:
    text = full_text(CATALOG[0], name_boost=3)
    assert text.startswith("slack send message slack send message slack send message ")
    assert "channel" in text and "Post a message" in text


def test_a_high_similarity_floor_drops_full_text_matches_too(
    minilm: SentenceTransformerEmbedder,
) -> None:
    """Hybrid abstains: a word match alone does not get past `min_similarity`."""
    open_index = LanceDBToolIndex(minilm)
    strict = LanceDBToolIndex(minilm, min_similarity=0.95)
    for index in (open_index, strict):
        index.index_tools("s", CATALOG)
    assert "github_create_issue" in names(open_index, "s", "issue a parking ticket")
    assert names(strict, "s", "issue a parking ticket") == []
    assert names(strict, "s", "github_create_issue") == ["github_create_issue"]


def test_vector_mode_scores_are_cosine_similarities(
    minilm: SentenceTransformerEmbedder,
) -> None:
    index = LanceDBToolIndex(minilm, mode="vector")
    index.index_tools("s", CATALOG)
    hits = index.search(ToolSearchRequest("s", "weather forecast", 5)).references
    assert hits[0].name == "weather_forecast"
    assert all(-1.0 <= hit.score <= 1.0 for hit in hits)
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)


def test_a_catalog_indexed_by_many_sessions_is_embedded_once(
    minilm: SentenceTransformerEmbedder,
) -> None:
    cache = EmbeddingCache()
    index = LanceDBToolIndex(minilm, cache=cache)
    for session in range(200):
        index.index_tools(f"user-{session}", CATALOG)
    assert cache.embedded[minilm.model_id] == len(CATALOG)
    assert names(index, "user-199", "refund")[:1] == ["stripe_refund_payment"]


def test_rows_written_once_the_indexes_exist_are_indexed_in_the_background(
    minilm: SentenceTransformerEmbedder,
) -> None:
    index = LanceDBToolIndex(minilm, optimize_every=6)
    index.index_tools("first", CATALOG)  # the first write builds the indexes over its rows
    assert index.unindexed_rows() == 0
    index.index_tools("small", CATALOG[:3])  # fewer than optimize_every: scanned meanwhile
    assert index.unindexed_rows() == 3
    assert names(index, "small", "weather forecast")[:1] == ["weather_forecast"]
    index.index_tools("second", CATALOG)  # 8 unindexed rows: an optimize starts
    assert names(index, "second", "refund a payment")[:1] == ["stripe_refund_payment"]
    wait_until_indexed(index)
    assert names(index, "second", "refund a payment")[:1] == ["stripe_refund_payment"]
    assert set(names(index, "small", "refund a payment")) <= {tool.name for tool in CATALOG[:3]}


def test_writes_between_background_optimizes_all_land(
    minilm: SentenceTransformerEmbedder,
) -> None:
    """With an optimize due after nearly every write, writes and removals from two threads
    all land."""
    index = LanceDBToolIndex(minilm, optimize_every=1)
    index.index_tools("base", CATALOG)

    def churn(worker: int) -> None:
        for round_ in range(15):
            session = f"w{worker}-{round_ % 3}"
            index.index_tools(session, CATALOG)
            index.remove_tools(session, [CATALOG[round_ % len(CATALOG)].name])
            index.index_tools(session, [CATALOG[round_ % len(CATALOG)]])

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(churn, range(2)))
    for worker in range(2):
        for slot in range(3):
            found = names(index, f"w{worker}-{slot}", "tool", limit=10)
            assert sorted(found) == sorted(tool.name for tool in CATALOG)
    index.optimize()  # waits for a background one: the table is never compacted twice at once
    assert index.unindexed_rows() == 0
    assert names(index, "w1-2", "refund a payment")[:1] == ["stripe_refund_payment"]


def test_optimize_brings_the_indexes_up_to_date_at_once(
    minilm: SentenceTransformerEmbedder,
) -> None:
    index = LanceDBToolIndex(minilm, optimize_every=10_000)
    assert index.unindexed_rows() == 0  # no table yet
    index.index_tools("first", CATALOG)
    index.index_tools("second", CATALOG[:2])
    assert index.unindexed_rows() == 2
    index.optimize()
    assert index.unindexed_rows() == 0
    assert names(index, "second", "github_create_issue")[:1] == ["github_create_issue"]


def test_optimize_drops_settled_versions_in_memory_only(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    """memory:// keeps every version in memory: an optimize drops those superseded more
    than a few seconds ago (never the newest ones, which a search may still read). A
    directory keeps them, for other processes."""
    in_memory = LanceDBToolIndex(minilm, optimize_every=10_000)
    on_disk = LanceDBToolIndex(minilm, optimize_every=10_000, uri=str(tmp_path / "lance"))
    for index in (in_memory, on_disk):
        index.index_tools("old-0", CATALOG)
    time.sleep(2)  # the versions removed are those over a second older than a settled one
    for index in (in_memory, on_disk):
        index.index_tools("old-1", CATALOG)
    time.sleep(6)  # past the 5 s after which a superseded version is settled
    for index in (in_memory, on_disk):
        index.index_tools("new", CATALOG)

    def versions(index: LanceDBToolIndex) -> list[int]:
        return [v["version"] for v in loop.run(index._table.list_versions())]

    memory_before, disk_before = versions(in_memory), versions(on_disk)
    in_memory.optimize()
    on_disk.optimize()
    kept = versions(in_memory)
    assert min(kept) > min(memory_before)  # the old ones are gone
    assert max(memory_before) in kept  # the newest before the optimize stays
    assert versions(on_disk)[: len(disk_before)] == disk_before
    assert names(in_memory, "old-0", "refund a payment")[:1] == ["stripe_refund_payment"]
    assert names(in_memory, "new", "refund a payment")[:1] == ["stripe_refund_payment"]


def test_reopening_with_another_embedder_is_refused(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    uri = str(tmp_path / "lance")
    LanceDBToolIndex(minilm, uri=uri).index_tools("s", CATALOG)
    with pytest.raises(ConfigError, match=r"holds vectors of model .*all-MiniLM-L6-v2"):
        LanceDBToolIndex(WordHashEmbedder(), uri=uri)  # type: ignore[arg-type]


def test_reopening_with_another_name_boost_is_refused(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    uri = str(tmp_path / "lance")
    LanceDBToolIndex(minilm, uri=uri).index_tools("s", CATALOG)
    with pytest.raises(ConfigError, match="name_boost"):
        LanceDBToolIndex(minilm, uri=uri, name_boost=3)


def test_a_second_worker_sees_the_first_ones_writes(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    """Two processes sharing a directory: `read_consistency_interval=0` re-reads the
    table on every search, including a table created after the reader started."""
    uri = str(tmp_path / "shared")
    reader = LanceDBToolIndex(minilm, uri=uri, read_consistency_interval=0)
    writer = LanceDBToolIndex(minilm, uri=uri)
    assert names(reader, "s", "weather") == []
    writer.index_tools("s", CATALOG[:2])
    assert names(reader, "s", "github_create_issue")[:1] == ["github_create_issue"]
    writer.index_tools("s", CATALOG[2:])
    assert names(reader, "s", "weather forecast")[:1] == ["weather_forecast"]


def test_options_are_validated_with_the_allowed_values() -> None:
    with pytest.raises(ConfigError, match=r"mode.*'hybrid'.*'vector'"):
        load_index("lancedb", mode="bm25")
    with pytest.raises(ConfigError, match="table"):
        load_index("lancedb", table="no spaces allowed")
    with pytest.raises(ConfigError, match="vector_weight or text_weight"):
        load_index("lancedb", vector_weight=0, text_weight=0)


def test_eval_command_runs_the_backend_with_its_mode_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    catalog = tmp_path / "tools.jsonl"
    catalog.write_text("\n".join(json.dumps(tool.to_dict()) for tool in CATALOG), "utf-8")
    queries = tmp_path / "queries.jsonl"
    queries.write_text(
        json.dumps({"query": "post to the team chat", "relevant": ["slack_send_message"]})
        + "\n"
        + json.dumps({"query": "refund a payment", "relevant": ["stripe_refund_payment"]}),
        "utf-8",
    )
    argv = ["eval", "--catalog", str(catalog), "--queries", str(queries), "--json"]
    for mode in ("hybrid", "vector"):
        assert toolscout_main([*argv, "-b", "lancedb", "--option", f"mode={mode}"]) == 0
        (result,) = json.loads(capsys.readouterr().out)["results"]
        assert result["backend"] == "lancedb" and result["hit@5"] == 1.0
