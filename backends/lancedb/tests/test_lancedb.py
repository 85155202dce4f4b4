"""Behaviour of the LanceDB backend beyond the conformance suite: fusion and its scores,
the full-text column of core's terms, sets stored once, the stored tables and their checks,
a store read by another process, the vector cache and configuration errors."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from toolscout import ConfigError, ToolReference, ToolSearchRequest, load_index
from toolscout.analysis import analyzer, fold
from toolscout.cli import main as toolscout_main
from toolscout.embedders import EmbeddingCache
from toolscout.toolsets import ToolSet, new_set_id
from toolscout_lancedb import LanceDBToolIndex, loop
from toolscout_lancedb.text import full_text, repeats
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


#: A memory:// index writes to LanceDB only the sets LanceDB searches: these tests read
#: the table, so every set is stored (and searched by LanceDB).
STORED: dict[str, Any] = {"in_process_limit": 0}


def variant(tag: str, tools: Sequence[ToolReference] = CATALOG) -> list[ToolReference]:
    """The same tools under other names: a catalog no other session holds."""
    return [ToolReference(f"{t.name}_{tag}", t.description, t.input_schema) for t in tools]


class WordHashEmbedder:
    """A small real embedder: each word hashed into one of 64 dimensions. Another model
    id than MiniLM's, for the table checks, and fast to load in a second process."""

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


def rows(index: LanceDBToolIndex) -> int:
    return int(loop.run(index._table.count_rows())) if index._table is not None else 0


def wait_until_indexed(index: LanceDBToolIndex) -> None:
    """Wait (a minute at most) for the background optimize to index every row."""
    deadline = time.monotonic() + 60
    while index.unindexed_rows() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert index.unindexed_rows() == 0


# --- ranking ---------------------------------------------------------------------------


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


def test_full_text_holds_core_terms_the_name_repeated_by_name_weight() -> None:
    terms = analyzer().tool_terms(CATALOG[0])
    text = full_text(terms, repeats(3.0, 1.0, 1.0))
    assert text.startswith("slack send messag slack send messag slack send messag channel ")
    assert text.endswith("post messag slack channel")  # stemmed, stop words gone
    assert full_text(terms, repeats(0.4, 0.0, 1.0)) == "slack send messag post messag slack channel"


def test_the_full_text_index_adds_no_analysis_of_its_own(
    minilm: SentenceTransformerEmbedder,
) -> None:
    """The column holds core's terms, and LanceDB keeps them whole: a 30-letter Cyrillic
    word (60 bytes, over LanceDB's default 40-byte token limit) is found by full text."""
    word = "превысокомногорассмотрительный"
    tools = [*CATALOG, ToolReference("archive_lookup", f"Finds {word} records.")]
    index = LanceDBToolIndex(minilm, vector_weight=0.0, name_match_weight=0.0, **STORED)
    index.index_tools("s", tools)
    stored = loop.run(index._table.query().select(["name", "text"]).to_list())
    text = {row["name"]: row["text"] for row in stored}
    described = f"find {fold(word)} record"
    # The defaults: the name 3 times, the parameters (none here) once, the description twice.
    assert text["archive_lookup"] == " ".join(["archiv lookup"] * 3 + [described] * 2)
    assert names(index, "s", word.upper()) == ["archive_lookup"]
    assert names(index, "s", "finding archives") == ["archive_lookup"]  # stemmed by core


def test_hybrid_scores_descend_and_are_similarity_floors(
    minilm: SentenceTransformerEmbedder,
) -> None:
    index = LanceDBToolIndex(minilm)
    index.index_tools("s", CATALOG)
    hits = index.search(ToolSearchRequest("s", "refund the card payment", 5)).references
    scores = [hit.score for hit in hits]
    assert scores == sorted(scores, reverse=True)
    vector = LanceDBToolIndex(minilm, mode="vector")
    vector.index_tools("s", CATALOG)
    similarity = {
        hit.name: hit.score
        for hit in vector.search(ToolSearchRequest("s", "refund the card payment", 5))
    }
    for rank, hit in enumerate(hits):
        assert hit.score == pytest.approx(min(similarity[h.name] for h in hits[: rank + 1]))


def test_a_high_min_score_drops_full_text_matches_too(
    minilm: SentenceTransformerEmbedder,
) -> None:
    """Hybrid abstains: a word match alone does not get past `min_score` (the confidence
    floor, which would abstain here too, is off: this is the raw floor's test)."""
    open_index = LanceDBToolIndex(minilm, min_confidence=0)
    strict = LanceDBToolIndex(minilm, min_score=0.95, min_confidence=0)
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


@pytest.mark.parametrize("mode", ["hybrid", "vector"])
def test_a_metadata_filter_prefilters_both_rankings(
    minilm: SentenceTransformerEmbedder, mode: str
) -> None:
    """The best match is filtered out before ranking: every hit (and the total) is among
    the tools the filter lets through, however many candidates the rankings take."""
    tools = [
        ToolReference(t.name, t.description, t.input_schema, {"team": "ops" if i % 2 else "dev"})
        for i, t in enumerate(CATALOG)
    ]
    # The tools let through fit the query badly: no abstention, this checks the filter.
    index = LanceDBToolIndex(minilm, mode=mode, candidates=1, min_confidence=0)
    index.index_tools("s", tools)
    response = index.search(ToolSearchRequest("s", "weather forecast", 5, {"team": "ops"}))
    assert set(response.names) == {"github_create_issue", "stripe_refund_payment"}
    assert response.total_matches == 2


# --- tool sets -------------------------------------------------------------------------


def test_a_catalog_held_by_many_sessions_is_stored_and_embedded_once(
    minilm: SentenceTransformerEmbedder,
) -> None:
    cache = EmbeddingCache()
    index = LanceDBToolIndex(minilm, cache=cache, **STORED)
    for session in range(200):
        index.index_tools(f"user-{session}", CATALOG)
    assert cache.embedded[minilm.model_id] == len(CATALOG)
    assert rows(index) == len(CATALOG)
    assert names(index, "user-199", "refund")[:1] == ["stripe_refund_payment"]
    index.index_tool("user-7", ToolReference("extra_tool", "Refund a refund of a refund."))
    assert rows(index) == 2 * len(CATALOG) + 1  # user-7's own copy
    assert "extra_tool" not in names(index, "user-8", "refund", 10)
    index.clear_index("user-7")
    assert rows(index) == len(CATALOG)


def test_a_change_by_one_sharer_is_its_own(minilm: SentenceTransformerEmbedder) -> None:
    """Adding, replacing or removing a tool in one session of a shared catalog changes that
    session only (nearest neighbours rank every tool, so the check is on what each session
    holds and on the definition its hits carry: no abstention)."""
    index = LanceDBToolIndex(minilm, min_confidence=0)
    for session in ("adder", "replacer", "bystander"):
        index.index_tools(session, CATALOG)
    index.index_tool("adder", ToolReference("extra_tool", "Refund a refund of a refund."))
    index.index_tool("replacer", ToolReference("weather_forecast", "Tracks migratory whales."))
    held = {tool.name for tool in CATALOG}
    assert set(names(index, "bystander", "refund", 10)) == held
    assert set(names(index, "adder", "refund", 10)) == held | {"extra_tool"}
    whales = {
        session: {
            hit.name: hit.summary
            for hit in index.search(ToolSearchRequest(session, "migratory whales", 10))
        }
        for session in ("replacer", "bystander")
    }
    assert whales["replacer"]["weather_forecast"] == "Tracks migratory whales."
    assert whales["bystander"]["weather_forecast"] == CATALOG[2].summary
    index.remove_tools("bystander", ["github_create_issue"])
    assert "github_create_issue" in names(index, "adder", "open an issue", 10)
    assert "github_create_issue" not in names(index, "bystander", "open an issue", 10)


def test_index_tool_in_a_loop_changes_the_one_set_in_place(
    minilm: SentenceTransformerEmbedder,
) -> None:
    index = LanceDBToolIndex(minilm, **STORED)
    for tool in CATALOG:
        index.index_tool("s", tool)
    assert rows(index) == len(CATALOG)
    index.index_tool("s", ToolReference("weather_forecast", "Tide tables for a harbour."))
    index.remove_tools("s", ["github_create_issue", "no_such_tool"])
    assert rows(index) == len(CATALOG) - 1
    assert names(index, "s", "tide tables harbour")[:1] == ["weather_forecast"]
    assert "github_create_issue" not in names(index, "s", "open an issue", 10)


# --- background optimize -----------------------------------------------------------------


def test_rows_written_once_the_indexes_exist_are_indexed_in_the_background(
    minilm: SentenceTransformerEmbedder,
) -> None:
    index = LanceDBToolIndex(minilm, optimize_every=6, **STORED)
    index.index_tools("first", CATALOG)  # the first write builds the indexes over its rows
    assert index.unindexed_rows() == 0
    index.index_tools("small", variant("small")[:3])  # fewer than optimize_every: scanned
    assert index.unindexed_rows() == 3
    assert names(index, "small", "weather forecast")[:1] == ["weather_forecast_small"]
    index.index_tools("second", variant("second"))  # 8 unindexed rows: an optimize starts
    assert names(index, "second", "refund a payment")[:1] == ["stripe_refund_payment_second"]
    wait_until_indexed(index)
    assert names(index, "second", "refund a payment")[:1] == ["stripe_refund_payment_second"]
    small = {tool.name for tool in variant("small")[:3]}
    assert set(names(index, "small", "refund a payment")) <= small


def test_writes_between_background_optimizes_all_land(
    minilm: SentenceTransformerEmbedder,
) -> None:
    """With an optimize due after nearly every write, writes and removals from two threads
    (sets shared, copied on write, shared again) all land (every tool listed for a vague
    query: no abstention)."""
    index = LanceDBToolIndex(minilm, optimize_every=1, min_confidence=0, **STORED)
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
    assert rows(index) == len(CATALOG)  # every session holds the base set again
    assert names(index, "w1-2", "refund a payment")[:1] == ["stripe_refund_payment"]


def test_optimize_brings_the_indexes_up_to_date_at_once(
    minilm: SentenceTransformerEmbedder,
) -> None:
    index = LanceDBToolIndex(minilm, optimize_every=10_000, **STORED)
    assert index.unindexed_rows() == 0  # no table yet
    index.index_tools("first", CATALOG)
    index.index_tools("second", variant("second")[:2])
    assert index.unindexed_rows() == 2
    index.optimize()
    assert index.unindexed_rows() == 0
    assert names(index, "second", "github_create_issue_second")[:1] == [
        "github_create_issue_second"
    ]


def test_optimize_drops_settled_versions_in_memory_only(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    """memory:// keeps every version in memory: an optimize drops those superseded more
    than a few seconds ago (never the newest ones, which a search may still read). A
    directory keeps them, for other processes."""
    in_memory = LanceDBToolIndex(minilm, optimize_every=10_000, **STORED)
    on_disk = LanceDBToolIndex(minilm, optimize_every=10_000, uri=str(tmp_path / "lance"))
    for index in (in_memory, on_disk):
        index.index_tools("old-0", variant("old0"))
    time.sleep(2)  # the versions removed are those over a second older than a settled one
    for index in (in_memory, on_disk):
        index.index_tools("old-1", variant("old1"))
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
    assert names(in_memory, "old-0", "refund a payment")[:1] == ["stripe_refund_payment_old0"]
    assert names(in_memory, "new", "refund a payment")[:1] == ["stripe_refund_payment"]


# --- the store ---------------------------------------------------------------------------


def test_sessions_and_sets_survive_reopening(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    uri = str(tmp_path / "lance")
    index = LanceDBToolIndex(minilm, uri=uri)
    for session in ("a", "b", "c"):
        index.index_tools(session, CATALOG)
    index.index_tools("d", variant("d"))
    index.remove_tools("c", ["weather_forecast"])
    index.clear_index("b")
    index.close()
    reopened = LanceDBToolIndex(minilm, uri=uri)
    assert sorted(reopened.sessions()) == ["a", "c", "d"]
    assert reopened.tools("a") == {tool.name: tool for tool in CATALOG}
    assert "weather_forecast" not in reopened.tools("c")
    assert rows(reopened) == 3 * len(CATALOG) - 1  # a's set, c's, d's
    reopened.index_tools("e", CATALOG)  # the reopened index knows a's set: stored once
    assert rows(reopened) == 3 * len(CATALOG) - 1
    assert names(reopened, "e", "refund a payment")[:1] == ["stripe_refund_payment"]


def test_a_crash_between_writes_leaves_whole_sets(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    """A set written but not yet pointed at (the process died before recording the
    session) is dropped on reopening; a session pointing at a set never completed holds
    nothing."""
    uri = str(tmp_path / "lance")
    index = LanceDBToolIndex(minilm, uri=uri)
    index.index_tools("kept", CATALOG)
    index._create_set(ToolSet.of(new_set_id(), variant("orphan")))  # no session recorded
    index._store_session("dangling", new_set_id())  # a set that never got written
    assert rows(index) == 2 * len(CATALOG)
    index.close()
    reopened = LanceDBToolIndex(minilm, uri=uri)
    assert reopened.sessions() == ["kept"]
    assert rows(reopened) == len(CATALOG)


def test_reopening_with_another_embedder_or_analysis_is_refused(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    uri = str(tmp_path / "lance")
    index = LanceDBToolIndex(minilm, uri=uri)
    index.index_tools("s", CATALOG)
    index.close()
    with pytest.raises(ConfigError, match=r"holds vectors of model .*all-MiniLM-L6-v2"):
        LanceDBToolIndex(WordHashEmbedder(), uri=uri)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"analysed as 'toolscout-2:porter:stop'.*stemming"):
        LanceDBToolIndex(minilm, uri=uri, stemming=False)
    with pytest.raises(ConfigError, match=r"name x3.*name x4.*name_weight"):
        LanceDBToolIndex(minilm, uri=uri, name_weight=4)
    LanceDBToolIndex(minilm, uri=uri, name_weight=2.6).close()  # rounds to the same 3


def test_a_table_of_the_old_layout_is_refused(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    import lancedb
    import pyarrow as pa

    uri = str(tmp_path / "lance")
    old = pa.table({"session": ["s"], "name": ["t"], "text": ["t"]})
    lancedb.connect(uri).create_table("toolscout_tools", data=old)
    with pytest.raises(ConfigError, match="not written by this version"):
        LanceDBToolIndex(minilm, uri=uri)


def test_a_store_path_must_have_a_parent_and_be_a_lancedb_directory(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    missing = tmp_path / "no" / "such" / "lance"
    with pytest.raises(ConfigError, match=r"parent directory .*no/such.* does not exist"):
        LanceDBToolIndex(minilm, uri=str(missing))
    with pytest.raises(ConfigError, match="does not exist"):
        LanceDBToolIndex(minilm, path=str(missing))
    assert not (tmp_path / "no").exists()  # never created
    afile = tmp_path / "file"
    afile.write_text("x")
    with pytest.raises(ConfigError, match="is a file"):
        LanceDBToolIndex(minilm, path=afile)
    with pytest.raises(ConfigError, match=r"not a LanceDB directory .*'file'"):
        LanceDBToolIndex(minilm, uri=str(tmp_path))
    with pytest.raises(ConfigError, match="not both"):
        LanceDBToolIndex(minilm, uri=str(tmp_path / "a"), path=str(tmp_path / "b"))
    index = LanceDBToolIndex(minilm, path=tmp_path / "lance")  # the shared option name
    index.index_tools("s", CATALOG)
    assert (tmp_path / "lance" / "toolscout_tools.lance").is_dir()
    assert index.uri == str(tmp_path / "lance")


def test_a_second_index_on_one_store_is_refused_until_the_first_closes(
    minilm: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    uri = str(tmp_path / "lance")
    first = LanceDBToolIndex(minilm, uri=uri)
    first.index_tools("alice", [ToolReference("alice_secret_tool", "Secret.")])
    with pytest.raises(ConfigError, match="already open in this process"):
        LanceDBToolIndex(minilm, uri=uri)
    with pytest.raises(ConfigError, match="already open in this process"):
        LanceDBToolIndex(minilm, uri="file://" + uri)
    LanceDBToolIndex(minilm, uri=uri, table="other").close()  # another table is another store
    first.close()
    second = LanceDBToolIndex(minilm, uri=uri)
    assert second.sessions() == ["alice"]


_WRITER = textwrap.dedent(
    """
    import hashlib, sys
    import numpy as np
    from toolscout import ToolReference
    from toolscout_lancedb import LanceDBToolIndex

    class WordHashEmbedder:
        name = "word-hash"
        model_id = "test/word-hash-64"
        dimension = 64

        def embed(self, texts):
            matrix = np.zeros((len(texts), 64), dtype=np.float32)
            for row, text in enumerate(texts):
                for word in text.lower().split():
                    matrix[row, hashlib.blake2b(word.encode()).digest()[0] % 64] += 1.0
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            return matrix / np.maximum(norms, 1e-9)

    index = LanceDBToolIndex(WordHashEmbedder(), uri=sys.argv[1])
    for line in sys.stdin:
        command, session, *tool = line.rstrip("\\n").split("|")
        if command == "index":
            index.index_tools(session, [ToolReference(tool[0], tool[1])])
        elif command == "clear":
            index.clear_index(session)
        print("done", flush=True)
    index.close()
    """
)


def test_a_reader_sees_another_process_s_writes(tmp_path: Path) -> None:
    """One process writes the store; another, with `read_consistency_interval = 0`, sees
    its new sessions, changed sets and cleared sessions at its next search, including a
    store created after the reader opened."""
    uri = str(tmp_path / "shared")
    reader = LanceDBToolIndex(WordHashEmbedder(), uri=uri, read_consistency_interval=0)  # type: ignore[arg-type]
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, uri],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    assert writer.stdin is not None and writer.stdout is not None

    def write(line: str) -> None:
        writer.stdin.write(line + "\n")  # type: ignore[union-attr]
        writer.stdin.flush()  # type: ignore[union-attr]
        assert writer.stdout.readline().strip() == "done"  # type: ignore[union-attr]

    try:
        assert names(reader, "s", "weather") == []
        write("index|s|weather_forecast|Get the weather forecast.")
        assert names(reader, "s", "weather forecast") == ["weather_forecast"]
        write("index|s|tide_tables|Tide tables for a harbour.")
        assert sorted(names(reader, "s", "weather tide")) == ["tide_tables", "weather_forecast"]
        write("index|t|weather_forecast|Get the weather forecast.")
        assert names(reader, "t", "weather forecast") == ["weather_forecast"]
        write("clear|s")
        assert names(reader, "s", "weather forecast") == []
        assert names(reader, "t", "weather forecast") == ["weather_forecast"]
    finally:
        writer.stdin.close()
        writer.wait(timeout=60)
    assert writer.returncode == 0


# --- options -----------------------------------------------------------------------------


def test_options_are_validated_with_the_allowed_values() -> None:
    with pytest.raises(ConfigError, match=r"mode.*'hybrid'.*'vector'"):
        load_index("lancedb", mode="bm25")
    with pytest.raises(ConfigError, match="table"):
        load_index("lancedb", table="no spaces allowed")
    with pytest.raises(ConfigError, match="vector_weight or text_weight"):
        load_index("lancedb", vector_weight=0, text_weight=0)
    with pytest.raises(ConfigError, match="min_score"):
        load_index("lancedb", min_score=1.5)


@pytest.mark.parametrize(
    "old", ["name_boost", "min_similarity", "stem", "remove_stop_words", "stemmer", "stopwords"]
)
def test_old_option_spellings_are_config_errors(old: str) -> None:
    with pytest.raises(ConfigError, match=rf"backend '?lancedb'? '{old}' = 1"):
        load_index("lancedb", **{old: 1})


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
    argv += ["--option", "embedder=sentence-transformers"]
    for mode in ("hybrid", "vector"):
        assert toolscout_main([*argv, "-b", "lancedb", "--option", f"mode={mode}"]) == 0
        (result,) = json.loads(capsys.readouterr().out)["results"]
        assert result["backend"] == "lancedb" and result["hit@5"] == 1.0


def test_a_memory_index_stores_only_the_sets_lancedb_searches(
    minilm: SentenceTransformerEmbedder,
) -> None:
    """memory:// is this object's alone: a set searched in this process is not written to
    LanceDB (lancedb is not even imported: see the next test); one that grows past
    `in_process_limit` is written whole, and leaves the table when it shrinks again."""
    index = LanceDBToolIndex(minilm, in_process_limit=len(CATALOG))
    index.index_tools("s", CATALOG)
    assert index._table is None and rows(index) == 0
    grown = [*CATALOG, ToolReference("extra_tool", "Refund a refund of a refund.")]
    index.index_tools("s", grown[-1:])
    assert rows(index) == len(grown)
    assert names(index, "s", "refund a refund", 1) == ["extra_tool"]
    index.remove_tools("s", ["extra_tool"])
    assert rows(index) == 0
    assert names(index, "s", "refund the card payment", 1) == ["stripe_refund_payment"]


def test_an_in_memory_search_does_not_import_lancedb() -> None:
    code = textwrap.dedent(
        """
        import sys
        from test_lancedb import CATALOG, WordHashEmbedder
        from toolscout import ToolSearchRequest
        from toolscout_lancedb import LanceDBToolIndex
        index = LanceDBToolIndex(WordHashEmbedder())
        index.index_tools("s", CATALOG)
        hits = index.search(ToolSearchRequest("s", "refund the card payment", 1)).names
        print(hits, "lancedb" in sys.modules, "pyarrow" in sys.modules)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent,
        env={**os.environ, "TOOLSCOUT_CACHE_DIR": "off"},
        check=True,
    )
    assert done.stdout.split() == ["['stripe_refund_payment']", "False", "False"]


def test_a_stored_set_is_searched_with_its_stored_vectors(tmp_path: Path) -> None:
    """A process whose vector cache lacks a stored set's texts reads the set's vectors
    from the table: it embeds its queries only."""
    uri = str(tmp_path / "lance")
    writer = LanceDBToolIndex(WordHashEmbedder(), uri=uri, cache=EmbeddingCache())
    writer.index_tools("s", CATALOG)
    expected = names(writer, "s", "refund the card payment")
    writer.close()
    cache = EmbeddingCache()
    reader = LanceDBToolIndex(WordHashEmbedder(), uri=uri, cache=cache)
    assert names(reader, "s", "refund the card payment") == expected
    assert cache.embedded == {WordHashEmbedder.model_id: 1}  # the query alone
