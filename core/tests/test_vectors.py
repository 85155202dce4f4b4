"""Core's vector side: the one fusion every vector backend calls, the hybrid options, and
the in-process nearest-neighbour and BM25F candidates (`toolscout.vectors`)."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np
import pytest
from pydantic import ValidationError
from toolscout import ToolReference, ToolSearchRequest
from toolscout.analysis import analyzer
from toolscout.confidence import similarity_fit
from toolscout.embedders import EmbeddingCache
from toolscout.index import Query
from toolscout.toolsets import ToolSet
from toolscout.vector_index import VectorIndexBase
from toolscout.vectors import (
    DENSITY_SAMPLE,
    HybridOptions,
    SetTerms,
    SetVectors,
    embedding_text,
    fuse,
    name_match,
)

TOOLS = {name: ToolReference(name, f"{name} tool") for name in ("alpha", "beta", "gamma")}
TOOLSET = ToolSet.of("set", TOOLS.values())
# beta is the most similar, alpha the best keyword hit.
BY_VECTOR = [("beta", 0.5), ("gamma", 0.35), ("alpha", 0.1)]
BY_KEYWORD = [("alpha", 10.0), ("gamma", 8.0)]


def _fused(
    by_vector: list[tuple[str, float]] = BY_VECTOR,
    by_keyword: list[tuple[str, float]] = BY_KEYWORD,
    text: str = "unrelated words",
    **options: Any,
) -> list[tuple[str, float]]:
    opts = HybridOptions(**{"name_match_weight": 0.0, "query_coverage": 0.0, **options})
    query = Query(text, 5, analyzer=analyzer())
    known = dict(BY_VECTOR)
    hits, total = fuse(
        TOOLSET,
        query,
        by_vector,
        by_keyword,
        opts,
        analyzer=analyzer(),
        similarities=lambda names: [known[name] for name in names],
    )
    assert total == len({name for name, _ in [*by_vector, *by_keyword]})
    return [(hit.name, round(hit.score, 6)) for hit in hits]


def _order(**options: Any) -> list[str]:
    return [name for name, _score in _fused(**options)]


def test_score_fusion_adds_similarity_and_relative_bm25() -> None:
    # gamma 0.35 + 0.25 x 8/10 = 0.55; beta 0.5; alpha 0.1 + 0.25 = 0.35.
    assert _order() == ["gamma", "beta", "alpha"]
    # Keyword weighed more: gamma 0.35 + 0.8 = 1.15, alpha 0.1 + 1.0 = 1.1, beta 0.5.
    assert _order(text_weight=1.0) == ["gamma", "alpha", "beta"]
    assert _order(text_weight=0.0) == ["beta", "gamma", "alpha"]


def test_a_keyword_hit_weighs_by_the_share_of_the_query_it_covers() -> None:
    """The best BM25 hit matching one common word of the request (gamma: `messages`) weighs
    less than one matching all of it (alpha) once `query_coverage` scales the keyword part."""
    tools = {
        "alpha": ToolReference("alpha", "archive old mailbox messages"),
        "beta": ToolReference("beta", "translate text between languages"),
        "gamma": ToolReference("gamma", "messages"),
        "delta": ToolReference("delta", "count unread messages"),
    }
    toolset = ToolSet.of("coverage", tools.values())
    by_vector = [("alpha", 0.3), ("beta", 0.3), ("gamma", 0.3), ("delta", 0.3)]
    by_keyword = [("gamma", 10.0), ("alpha", 9.0), ("delta", 5.0)]

    def order(power: float) -> list[str]:
        options = HybridOptions(name_match_weight=0.0, query_coverage=power)
        query = Query("archive old mailbox messages", 4, analyzer=analyzer())
        hits, _total = fuse(
            toolset,
            query,
            by_vector,
            by_keyword,
            options,
            analyzer=analyzer(),
            similarities=lambda names: [0.3 for _name in names],
        )
        return [hit.name for hit in hits]

    assert order(0.0)[:2] == ["gamma", "alpha"]  # BM25 alone: the short description wins
    assert order(0.25)[:2] == ["alpha", "gamma"]


def test_fusion_tells_core_the_nearest_tools_similarity_wherever_it_ranked_it() -> None:
    query = Query("unrelated words", 5, analyzer=analyzer())
    opts = HybridOptions(name_match_weight=0.0, query_coverage=0.0)
    hits, _total = fuse(
        TOOLSET, query, BY_VECTOR, BY_KEYWORD, opts, analyzer=analyzer(), similarities=list
    )
    assert hits[0].name == "gamma" and hits[0].score == 0.35  # fused first, not the nearest
    assert query.nearest == 0.5  # beta's, ranked second


def test_rank_fusion_adds_reciprocal_ranks() -> None:
    # alpha 1/8 + 1/6, gamma 1/7 + 1/7, beta 1/6 (rrf_k 5, weights 1).
    order = _order(fusion="rank", vector_weight=1.0, text_weight=1.0, rrf_k=5)
    assert order == ["alpha", "gamma", "beta"]


def test_rank_fusion_keeps_its_own_default_weights() -> None:
    rank = HybridOptions(fusion="rank")
    assert (rank.vector_weight, rank.text_weight, rank.name_match_weight) == (1.2, 1.0, 0.5)
    assert HybridOptions(fusion="rank", text_weight=0.4).text_weight == 0.4
    score = HybridOptions()
    assert (score.vector_weight, score.text_weight, score.name_match_weight) == (1.0, 0.3, 0.1)


def test_options_are_checked() -> None:
    with pytest.raises(ValidationError, match="fusion"):
        HybridOptions(fusion="sum")  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="vector_weight or text_weight"):
        HybridOptions(vector_weight=0.0, text_weight=0.0)
    assert HybridOptions(mode="vector", vector_weight=0.0, text_weight=0.0).mode == "vector"


def test_the_name_match_bonus_is_the_share_of_name_terms_in_the_query() -> None:
    terms = frozenset(analyzer().query_terms("send a message"))
    share = name_match(frozenset(analyzer().tool_terms(ToolReference("send_email")).name), terms)
    assert share == 0.5
    assert name_match(frozenset(), terms) == 0.0
    # The bonus lifts alpha, whose name the query holds, above gamma (0.55 + 0).
    assert _order(text="alpha", name_match_weight=1.0)[0] == "alpha"


def test_the_score_is_a_similarity_floor_and_min_score_orders_by_it() -> None:
    """Fusion ranks a keyword hit of low similarity first; with a floor it goes after the
    hits above the floor (their order kept), so core's floor drops it alone."""
    by_vector = [("beta", 0.5), ("gamma", 0.4), ("alpha", 0.1)]
    by_keyword = [("alpha", 3.0)]
    options = {"fusion": "rank", "vector_weight": 1.2, "text_weight": 1.0}
    assert _fused(by_vector, by_keyword, "alpha", **options) == [
        ("alpha", 0.1),
        ("beta", 0.1),
        ("gamma", 0.1),
    ]
    assert _fused(by_vector, by_keyword, "alpha", min_score=0.3, **options) == [
        ("beta", 0.5),
        ("gamma", 0.4),
        ("alpha", 0.1),
    ]


def test_keyword_hits_the_vector_list_missed_get_their_similarity() -> None:
    asked: list[list[str]] = []

    def similarities(names: list[str]) -> list[float]:
        asked.append(names)
        return [0.3 for _ in names]

    hits, total = fuse(
        TOOLSET,
        Query("words", 5, analyzer=analyzer()),
        [("beta", 0.5)],
        [("alpha", 2.0), ("not_in_the_set", 9.0)],
        HybridOptions(),
        analyzer=analyzer(),
        similarities=similarities,
    )
    assert asked == [["alpha"]]  # once, for the one hit of the set the vectors missed
    # alpha 0.3 + 0.25 x 2/9 beats beta 0.5? No: 0.356 < 0.5; a name outside the set
    # still sets the scale of the keyword scores, as the engine ranked it.
    assert [hit.name for hit in hits] == ["beta", "alpha"]
    assert total == 2


def test_embedding_text_reads_as_language() -> None:
    tool = ToolReference(
        "get_weather",
        "Current   weather\nfor a city.",
        {"type": "object", "properties": {"city": {"type": "string"}}},
    )
    text = embedding_text(tool)
    assert text.startswith("get weather: Current weather for a city.")
    assert "city" in text.split(";", 1)[1]
    assert len(embedding_text(ToolReference("x", "word " * 1000))) == 2000


def test_set_vectors_rank_by_cosine_similarity_exactly() -> None:
    rng = np.random.default_rng(0)
    matrix = rng.normal(size=(700, 16)).astype(np.float32)
    names = [f"t{i}" for i in range(700)]
    vectors = SetVectors(names, matrix * 3.0)  # any length: rows are scaled to unit
    query = rng.normal(size=16).astype(np.float32)
    cosine = matrix @ query / np.linalg.norm(matrix, axis=1) / np.linalg.norm(query)
    found = vectors.nearest([query], 10)
    assert [name for name, _ in found] == [names[i] for i in np.argsort(-cosine)[:10]]
    assert [s for _, s in found] == pytest.approx(sorted(cosine, reverse=True)[:10], abs=1e-5)
    # Several query vectors: each tool's best over them.
    other = rng.normal(size=16).astype(np.float32)
    cosine2 = matrix @ other / np.linalg.norm(matrix, axis=1) / np.linalg.norm(other)
    best = np.maximum(cosine, cosine2)
    found = vectors.nearest([query, other], 5, allowed=frozenset(names[:100]))
    assert [name for name, _ in found] == [names[i] for i in np.argsort(-best[:100])[:5]]
    assert vectors.similarities(["t3", "missing"], [query]) == pytest.approx([cosine[3], 0.0])


def test_set_terms_score_bm25f_with_field_weights() -> None:
    tools = {
        "send_email": ToolReference("send_email", "Send an email message to a contact."),
        "send_sms": ToolReference("send_sms", "Send a text message to a phone."),
        "read_email": ToolReference("read_email", "Read the emails in a mailbox."),
        "get_weather": ToolReference("get_weather", "Weather for a city."),
    }
    words = analyzer()
    weights = (3.0, 1.0, 2.0)
    terms = SetTerms(tools, words, weights)
    docs = {}
    for name, tool in tools.items():
        fields = words.tool_terms(tool).fields
        docs[name] = [
            t
            for field, w in zip(fields, weights, strict=True)
            for t in field
            for _ in range(int(w))
        ]
    avgdl = sum(map(len, docs.values())) / len(docs)
    df = Counter(t for d in docs.values() for t in set(d))

    def bm25(query: list[str], doc: list[str]) -> float:
        tf = Counter(doc)
        score = 0.0
        for t in query:
            if tf[t]:
                idf = math.log(1 + (len(docs) - df[t] + 0.5) / (df[t] + 0.5))
                score += idf * tf[t] * 2.2 / (tf[t] + 1.2 * (0.25 + 0.75 * len(doc) / avgdl))
        return score

    query = list(dict.fromkeys(words.query_terms("send an email message")))
    expected = sorted(
        ((n, bm25(query, d)) for n, d in docs.items() if bm25(query, d) > 0),
        key=lambda hit: (-hit[1], hit[0]),
    )
    found = terms.top(query, 10)
    assert [n for n, _ in found] == [n for n, _ in expected]
    assert [s for _, s in found] == pytest.approx([s for _, s in expected])
    assert terms.top(query, 1) == found[:1]
    allowed = frozenset({"send_sms", "get_weather"})
    assert [n for n, _ in terms.top(query, 10, allowed=allowed)] == ["send_sms"]


def test_set_terms_score_each_group_by_its_best_word() -> None:
    """`top_groups` (a keyword backend's query with related words): per group, a tool
    scores the best of its words times their discounts; groups add up."""
    tools = {
        "send_email": ToolReference("send_email", "Send an email message to a contact."),
        "send_sms": ToolReference("send_sms", "Send a text message to a phone."),
        "read_email": ToolReference("read_email", "Read the emails in a mailbox."),
    }
    terms = SetTerms(tools, analyzer(), (3.0, 1.0, 1.0))

    def score(query: list[str]) -> dict[str, float]:
        return dict(terms.top(query, 10))

    email, text, sms = score(["email"]), score(["text"]), score(["sms"])
    found, total = terms.top_groups([[("email", 1.0), ("text", 0.5), ("sms", 0.25)]], 10)
    expected = {
        name: max(email.get(name, 0.0), 0.5 * text.get(name, 0.0), 0.25 * sms.get(name, 0.0))
        for name in tools
    }
    assert dict(found) == pytest.approx(expected) and total == 3
    assert "send_sms" not in email and expected["send_sms"] > 0  # by a lesser word
    send = score(["send"])
    found, total = terms.top_groups([[("send", 1.0)], [("email", 1.0), ("text", 0.5)]], 2)
    both = {
        name: send.get(name, 0.0) + max(email.get(name, 0.0), 0.5 * text.get(name, 0.0))
        for name in tools
    }
    best = sorted(both.items(), key=lambda hit: (-hit[1], hit[0]))[:2]
    assert [n for n, _ in found] == [n for n, _ in best] and total == 3
    assert [s for _, s in found] == pytest.approx([s for _, s in best])
    assert terms.top_groups([[("nowhere", 1.0)]], 5) == ([], 0)


def test_set_terms_group_postings_are_top_groups_per_group() -> None:
    """`group_postings` (one pass for core's `rank_term_scores`): each group's tools, each
    once, scored as `top_groups` scores that group alone; summed, they rank as
    `top_groups`; asked again, the same postings come back (kept per group)."""
    tools = {
        "send_email": ToolReference("send_email", "Send an email message to a contact."),
        "send_sms": ToolReference("send_sms", "Send a text message to a phone."),
        "read_email": ToolReference("read_email", "Read the emails in a mailbox."),
        "weather": ToolReference("weather", "The forecast for a city."),
    }
    terms = SetTerms(tools, analyzer(), (3.0, 1.0, 1.0))
    groups = [[("send", 1.0)], [("email", 1.0), ("text", 0.5)], [("nowhere", 1.0)]]
    postings = terms.group_postings(groups)
    summed: dict[str, float] = {}
    for (rows, scores), group in zip(postings, groups, strict=True):
        got = {terms.names[row]: score for row, score in zip(rows, scores, strict=True)}
        assert len(got) == len(rows)  # each tool once
        assert got == pytest.approx(dict(terms.top_groups([group], 10)[0]))
        for name, score in got.items():
            summed[name] = summed.get(name, 0.0) + score
    assert set(summed) == {"send_email", "send_sms", "read_email"}
    assert summed == pytest.approx(dict(terms.top_groups(groups, 10)[0]))
    order = terms.name_order
    assert [terms.names[row] for row in np.argsort(order)] == sorted(tools)
    ((empty_rows, empty),) = terms.group_postings([[("nowhere", 1.0)]])
    assert len(empty_rows) == 0 and len(empty) == 0
    again = terms.group_postings(groups)
    assert all(a[0] is b[0] for a, b in zip(again, postings, strict=True))
    # Other BM25 parameters are other scores, not the kept ones.
    (other,) = terms.group_postings(groups[:1], k1=2.0)
    assert list(other[1]) != pytest.approx(list(postings[0][1]))


class WordsEmbedder:
    """Bag of hashed words: texts sharing words are similar (a real, if crude, model)."""

    model_id = "test-words-32"
    dimension = 32

    def embed(self, texts: Any) -> Any:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace(":", " ").replace(";", " ").split():
                out[row, sum(map(ord, word)) % self.dimension] += 1.0
        return out


class MemoryVectors(VectorIndexBase):
    """Everything in memory: the writes keep nothing, core searches the set."""

    name = "memory-vectors"

    def _create_set(self, toolset: ToolSet) -> None:
        pass

    def _drop_set(self, toolset: ToolSet) -> None:
        pass


def _nearest_other(matrix: Any) -> Any:
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    similar = unit @ unit.T
    np.fill_diagonal(similar, -np.inf)
    return similar.max(axis=1)


def test_a_sets_density_is_the_median_similarity_to_each_tools_nearest_other() -> None:
    rng = np.random.default_rng(1)
    small = rng.normal(size=(200, 16)).astype(np.float32)
    found = SetVectors([f"t{i}" for i in range(200)], small).density({})
    assert found == pytest.approx(float(np.median(_nearest_other(small))), abs=1e-5)
    # A large set: the median over a sample of its tools evenly spread by name, each
    # against all of them; the same whatever order the set lists them in.
    large = rng.normal(size=(1000, 16)).astype(np.float32)
    names = [f"t{i}" for i in range(1000)]
    by_name = np.array(sorted(range(1000), key=names.__getitem__))
    sample = by_name[np.unique(np.linspace(0, 999, DENSITY_SAMPLE).astype(np.intp))]
    expected = float(np.median(_nearest_other(large)[sample]))
    assert SetVectors(names, large).density({}) == pytest.approx(expected)
    shuffled = rng.permutation(1000)
    again = SetVectors([names[i] for i in shuffled], large[shuffled]).density({})
    assert again == pytest.approx(expected)
    # Tools that come in near-identical pairs make a dense set; one tool has no neighbour.
    pairs = np.repeat(small[:50], 2, axis=0) + rng.normal(scale=0.01, size=(100, 16))
    assert SetVectors([f"t{i}" for i in range(100)], pairs).density({}) > 0.99
    assert SetVectors(["only"], small[:1]).density({}) is None


def test_a_catalog_mirrored_by_a_second_server_is_no_denser() -> None:
    index = MemoryVectors(WordsEmbedder(), cache=EmbeddingCache(), mode="vector")
    tools = [
        ToolReference("send_email", "Send an email message to a contact."),
        ToolReference("get_weather", "Current weather for a city."),
        ToolReference("list_files", "List the files of a folder."),
        ToolReference("create_issue", "Open an issue in the tracker."),
    ]
    mirrored = tools + [ToolReference(f"mirror.{tool.name}", tool.description) for tool in tools]
    index.index_tools("one", tools)
    index.index_tools("two", mirrored)
    held = {name: index._held(name, fresh=False) for name in ("one", "two")}
    once, twice = (
        index._set_vectors(toolset).density(toolset.tools)
        for toolset in held.values()
        if toolset is not None
    )
    assert once is not None and twice == pytest.approx(once, abs=0.05)
    # Told nothing of what the tools do, each mirror is its twin's nearest neighbour.
    two = SetVectors(index._set_vectors(held["two"]).names, index._set_vectors(held["two"]).matrix)
    assert two.density({}) > twice + 0.1


def test_a_denser_catalog_makes_the_same_similarity_less_confident() -> None:
    tools = [
        ToolReference("send_email", "Send an email message to a contact."),
        ToolReference("get_weather", "Current weather for a city."),
        ToolReference("list_files", "List the files of a folder."),
    ]
    # The same tools among many alike: each near-identical to the next.
    alike = [
        ToolReference(f"list_files_{i}", f"List the files of folder number {i}.") for i in range(40)
    ]
    index = MemoryVectors(WordsEmbedder(), cache=EmbeddingCache(), mode="vector", min_confidence=0)
    index.index_tools("sparse", tools)
    index.index_tools("dense", tools + alike)
    sparse = index.search(ToolSearchRequest("sparse", "email a message", 1))
    dense = index.search(ToolSearchRequest("dense", "email a message", 1))
    assert sparse.references[0].name == dense.references[0].name == "send_email"
    assert sparse.references[0].score == pytest.approx(dense.references[0].score)
    assert dense.confidence < sparse.confidence


class MpnetNamedWords(WordsEmbedder):
    """The same vectors, under the name of a model with a similarity fit of its own."""

    model_id = "test/all-mpnet-base-v2"


def test_an_index_weighs_similarities_by_its_embedders_fit() -> None:
    tools = [
        ToolReference("send_email", "Send an email message to a contact."),
        ToolReference("get_weather", "Current weather for a city."),
        ToolReference("list_files", "List the files of a folder."),
    ]
    found = {}
    for embedder in (WordsEmbedder(), MpnetNamedWords()):
        index = MemoryVectors(embedder, cache=EmbeddingCache(), mode="vector", min_confidence=0)
        index.index_tools("s", tools)
        found[embedder.model_id] = index.search(ToolSearchRequest("s", "email a message", 1))
        assert index.similarity_fit == similarity_fit(embedder.model_id)
    default, mpnet = found["test-words-32"], found["test/all-mpnet-base-v2"]
    assert default.references[0].score == pytest.approx(mpnet.references[0].score)
    # The same evidence: mpnet's fit has the higher intercept and reference density.
    assert mpnet.confidence is not None and default.confidence is not None
    assert mpnet.confidence > default.confidence


def test_a_vector_index_searches_in_process_by_default() -> None:
    index = MemoryVectors(WordsEmbedder(), cache=EmbeddingCache())
    tools = [
        ToolReference("send_email", "Send an email message to a contact."),
        ToolReference("get_weather", "Current weather for a city."),
        ToolReference("list_files", "List the files of a folder."),
    ]
    index.index_tools("s", tools)
    hits = index.search(ToolSearchRequest("s", "email a message", 2)).references
    assert hits[0].name == "send_email"
    vector = MemoryVectors(WordsEmbedder(), cache=EmbeddingCache(), mode="vector")
    vector.index_tools("s", tools)
    scores = [hit.score for hit in vector.search(ToolSearchRequest("s", "weather city", 3))]
    assert scores == sorted(scores, reverse=True) and -1.0 <= scores[-1] <= 1.0
    # The metadata filter reaches the candidates.
    filtered = ToolSearchRequest("s", "email a message", 3, metadata_filter={"x": "y"})
    assert index.search(filtered).references == ()


def test_nearest_over_every_tool_cuts_as_over_every_tool_named() -> None:
    # `_best` reads every row without indexing by rows; the cut and ties by name must match.
    rng = np.random.default_rng(7)
    names = [f"tool_{i:03d}" for i in rng.permutation(300)]
    vectors = rng.integers(-2, 3, size=(300, 8)).astype(np.float32)  # many equal scores
    found = SetVectors(names, vectors)
    query = [rng.standard_normal(8).astype(np.float32)]
    for limit in (1, 10, 50, 299, 300, 400):
        every = found.nearest(query, limit)
        named = found.nearest(query, limit, frozenset(names))
        assert every == named
        assert len(every) == min(limit, 300)
        assert every == sorted(every, key=lambda hit: (-hit[1], hit[0]))
    assert found.nearest(query, 0) == []
