"""The `openai` embedder through the real `openai` client, against a local embeddings server.

The server (tests/embeddings_wire.py) answers like the real API and logs every request, so
the assertions read what really went over the wire.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from embeddings_wire import API_KEY, MODELS, EmbeddingServer, vector
from toolscout import ConfigError, ToolscoutError
from toolscout.config import load_settings
from toolscout.embedders import Embedder, EmbeddingCache, load_embedder
from toolscout.plugins import PluginRegistry
from toolscout_openai import OpenAIEmbedder, OpenAIEmbeddingError


@pytest.fixture(autouse=True)
def _no_openai_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """The developer's own key or endpoint must not leak into a test."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"):
        monkeypatch.delenv(name, raising=False)


def make(server: EmbeddingServer, **options: Any) -> OpenAIEmbedder:
    options.setdefault("model", "test-embed")
    options.setdefault("api_key", API_KEY)
    return OpenAIEmbedder(base_url=server.base_url, **options)


def expected(texts: list[str], model: str = "test-embed", dimensions: int | None = None) -> Any:
    return np.stack([vector(text, model, dimensions) for text in texts])


TEXTS = ["send a message to a channel", "refund a card payment", "weather tomorrow in Paris"]


# --- vectors ---------------------------------------------------------------------------------


def test_is_a_toolscout_embedder(embeddings: EmbeddingServer) -> None:
    assert isinstance(make(embeddings), Embedder)


def test_vectors_come_back_in_input_order_and_match_the_server(
    embeddings: EmbeddingServer,
) -> None:
    embeddings.reverse = True  # data items arrive last index first
    matrix = make(embeddings).embed(TEXTS)
    np.testing.assert_array_equal(matrix, expected(TEXTS))


def test_the_matrix_is_c_contiguous_float32_of_shape_texts_by_dimension(
    embeddings: EmbeddingServer,
) -> None:
    matrix = make(embeddings).embed(TEXTS)
    assert matrix.dtype == np.float32
    assert matrix.flags.c_contiguous
    assert matrix.shape == (3, MODELS["test-embed"])


@pytest.mark.parametrize(
    ("encoding_format", "force_float"),
    [("base64", False), ("float", False), ("base64", True)],
    ids=["base64", "float", "base64-requested-float-served"],
)
def test_base64_and_float_answers_give_the_same_vectors(
    embeddings: EmbeddingServer, encoding_format: str, force_float: bool
) -> None:
    embeddings.force_float = force_float
    matrix = make(embeddings, encoding_format=encoding_format).embed(TEXTS)
    assert embeddings.requests[0].body["encoding_format"] == encoding_format
    np.testing.assert_array_equal(matrix, expected(TEXTS))


def test_an_empty_text_is_sent_as_a_space_and_keeps_its_row(embeddings: EmbeddingServer) -> None:
    matrix = make(embeddings).embed(["", "refund"])
    assert embeddings.requests[0].inputs == [" ", "refund"]
    np.testing.assert_array_equal(matrix, expected([" ", "refund"]))


def test_no_texts_give_an_empty_matrix_of_the_right_width(embeddings: EmbeddingServer) -> None:
    embedder = make(embeddings, dimensions=8)
    assert embedder.embed([]).shape == (0, 8)
    assert embeddings.requests == []


def test_a_response_missing_a_vector_is_an_error(embeddings: EmbeddingServer) -> None:
    embeddings.drop_last = True
    with pytest.raises(OpenAIEmbeddingError, match=r"2 vectors \(indexes 0, 1\) for 3 texts"):
        make(embeddings).embed(TEXTS)


@pytest.mark.parametrize(
    "answer",
    [
        {"object": "list"},
        {"object": "list", "data": [{"index": 0, "embedding": None}]},
        {"object": "list", "data": [{"index": "first", "embedding": [0.1]}]},
        {"object": "list", "data": [{"index": 0, "embedding": [[0.1], [0.2]]}]},
        {"object": "list", "data": [{"index": 0, "embedding": "not base64!"}]},
    ],
    ids=["no-data", "null-embedding", "text-index", "nested-lists", "bad-base64"],
)
def test_an_answer_that_is_not_embeddings_is_an_error(
    embeddings: EmbeddingServer, answer: dict[str, Any]
) -> None:
    embeddings.raw = answer
    with pytest.raises(OpenAIEmbeddingError, match="not a list of embeddings"):
        make(embeddings).embed(["one text"])


# --- batching --------------------------------------------------------------------------------


def test_texts_are_sent_in_batches_of_batch_size(embeddings: EmbeddingServer) -> None:
    texts = [f"tool number {i}" for i in range(10)]
    matrix = make(embeddings, batch_size=3).embed(texts)
    sizes = [len(request.inputs) for request in embeddings.requests]
    assert sizes == [3, 3, 3, 1]
    assert len(sizes) == math.ceil(len(texts) / 3)
    assert [text for request in embeddings.requests for text in request.inputs] == texts
    np.testing.assert_array_equal(matrix, expected(texts))


def test_a_batch_size_above_the_api_limit_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"'batch_size' = 4096: .*less than or equal to 2048"):
        load_embedder("openai", settings=load_settings(tmp_path), api_key="x", batch_size=4096)


# --- retries ---------------------------------------------------------------------------------


def test_a_rate_limit_is_retried_until_it_succeeds(embeddings: EmbeddingServer) -> None:
    embeddings.fail(429, times=2)
    matrix = make(embeddings, max_retries=2).embed(TEXTS)
    assert len(embeddings.requests) == 3
    assert [r.headers.get("x-stainless-retry-count") for r in embeddings.requests] == [
        "0",
        "1",
        "2",
    ]
    np.testing.assert_array_equal(matrix, expected(TEXTS))


@pytest.mark.parametrize("status", [500, 503])
def test_a_server_error_is_retried_until_it_succeeds(
    embeddings: EmbeddingServer, status: int
) -> None:
    embeddings.fail(status, times=1)
    matrix = make(embeddings, max_retries=1).embed(TEXTS)
    assert len(embeddings.requests) == 2
    np.testing.assert_array_equal(matrix, expected(TEXTS))


def test_a_dropped_connection_is_retried(embeddings: EmbeddingServer) -> None:
    embeddings.fail(0, times=1)  # no answer at all; the client backs off ~0.5 s
    matrix = make(embeddings, max_retries=1).embed(TEXTS)
    assert len(embeddings.requests) == 2
    np.testing.assert_array_equal(matrix, expected(TEXTS))


def test_after_max_retries_it_gives_up_with_an_error_naming_endpoint_and_model(
    embeddings: EmbeddingServer,
) -> None:
    embeddings.fail(503, times=10)
    with pytest.raises(OpenAIEmbeddingError) as caught:
        make(embeddings, max_retries=2).embed(TEXTS)
    assert len(embeddings.requests) == 3
    message = str(caught.value)
    assert embeddings.base_url in message
    assert "'test-embed'" in message
    assert "503" in message
    assert "after 3 attempts (max_retries = 2)" in message
    assert "raise `max_retries`" in message


def test_max_retries_zero_sends_one_request(embeddings: EmbeddingServer) -> None:
    embeddings.fail(429, times=1)
    with pytest.raises(OpenAIEmbeddingError, match="rate-limited"):
        make(embeddings, max_retries=0).embed(TEXTS)
    assert len(embeddings.requests) == 1


def test_a_slow_server_times_out_with_an_error_naming_timeout(
    embeddings: EmbeddingServer,
) -> None:
    embeddings.delay = 3.0
    started = time.perf_counter()
    with pytest.raises(OpenAIEmbeddingError, match=r"timed out .*Raise `timeout`"):
        make(embeddings, timeout=0.1, max_retries=0).embed(TEXTS)
    assert time.perf_counter() - started < 2.0  # it did not wait for the answer


def test_an_unreachable_server_names_base_url(embeddings: EmbeddingServer) -> None:
    url = embeddings.base_url
    embeddings.httpd.shutdown()
    embeddings.httpd.server_close()
    with pytest.raises(OpenAIEmbeddingError) as caught:
        OpenAIEmbedder(model="test-embed", base_url=url, api_key=API_KEY, max_retries=0).embed(
            TEXTS
        )
    assert f"could not reach the embeddings endpoint {url}" in str(caught.value)
    assert "Check `base_url`" in str(caught.value)


# --- errors that need a fix in config --------------------------------------------------------


def test_a_rejected_key_names_api_key_and_openai_api_key(embeddings: EmbeddingServer) -> None:
    with pytest.raises(ConfigError) as caught:
        make(embeddings, api_key="sk-wrong").embed(TEXTS)
    message = str(caught.value)
    assert "401" in message
    assert "Incorrect API key provided." in message
    assert "`api_key`" in message
    assert "OPENAI_API_KEY" in message
    assert len(embeddings.requests) == 1  # a 401 is not retried


def test_an_unknown_model_says_it_is_not_on_this_server(embeddings: EmbeddingServer) -> None:
    with pytest.raises(ConfigError) as caught:
        make(embeddings, model="no-such-model").embed(TEXTS)
    message = str(caught.value)
    assert "model 'no-such-model' not found on this server" in message
    assert f"{embeddings.base_url}/models" in message
    assert len(embeddings.requests) == 1


def test_a_bad_request_names_dimensions_when_set(embeddings: EmbeddingServer) -> None:
    with pytest.raises(OpenAIEmbeddingError) as caught:
        make(embeddings, model="test-embed-large", dimensions=8).embed(TEXTS)
    message = str(caught.value)
    assert "400: This model does not support specifying dimensions." in message
    assert "`dimensions` (= 8" in message
    assert len(embeddings.requests) == 1


def test_a_missing_key_is_a_config_error_naming_option_and_variable(
    embeddings: EmbeddingServer,
) -> None:
    with pytest.raises(ConfigError) as caught:
        OpenAIEmbedder(model="test-embed", base_url=embeddings.base_url)
    message = str(caught.value)
    assert "`api_key`" in message
    assert "OPENAI_API_KEY" in message
    assert embeddings.requests == []


def test_the_key_and_the_endpoint_come_from_the_environment(
    embeddings: EmbeddingServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", embeddings.base_url)
    matrix = OpenAIEmbedder(model="test-embed").embed(TEXTS)
    assert embeddings.requests[0].headers["authorization"] == f"Bearer {API_KEY}"
    np.testing.assert_array_equal(matrix, expected(TEXTS))


def test_the_api_key_is_not_in_the_repr(embeddings: EmbeddingServer) -> None:
    assert API_KEY not in repr(make(embeddings))


# --- dimensions and model_id -----------------------------------------------------------------


def test_dimensions_is_sent_and_shortens_the_vectors(embeddings: EmbeddingServer) -> None:
    embedder = make(embeddings, dimensions=8)
    assert embedder.dimension == 8
    assert embeddings.requests == []  # known without asking the server
    matrix = embedder.embed(TEXTS)
    assert embeddings.requests[0].body["dimensions"] == 8
    np.testing.assert_array_equal(matrix, expected(TEXTS, dimensions=8))


def test_without_dimensions_none_is_sent(embeddings: EmbeddingServer) -> None:
    make(embeddings).embed(TEXTS)
    assert "dimensions" not in embeddings.requests[0].body


def test_a_server_that_ignores_dimensions_is_an_error(embeddings: EmbeddingServer) -> None:
    embeddings.ignore_dimensions = True
    with pytest.raises(OpenAIEmbeddingError, match=r"16-dimensional .*ignored dimensions=8"):
        make(embeddings, dimensions=8).embed(TEXTS)


def test_dimension_is_learned_from_the_first_response(embeddings: EmbeddingServer) -> None:
    embedder = make(embeddings, model="test-embed-large")
    embedder.embed(TEXTS)
    assert embedder.dimension == MODELS["test-embed-large"]
    assert len(embeddings.requests) == 1


def test_dimension_asked_first_probes_with_one_text(embeddings: EmbeddingServer) -> None:
    embedder = make(embeddings, model="test-embed-large")
    assert embedder.dimension == MODELS["test-embed-large"]
    assert embedder.dimension == MODELS["test-embed-large"]
    assert [len(r.inputs) for r in embeddings.requests] == [1]


def test_openai_models_know_their_dimension_without_a_request() -> None:
    embedder = OpenAIEmbedder(api_key="sk-unused")
    assert embedder.dimension == 1536  # text-embedding-3-small; no server is reachable here
    assert OpenAIEmbedder(model="text-embedding-3-large", api_key="x").dimension == 3072


def test_model_id_names_endpoint_model_and_dimensions() -> None:
    assert OpenAIEmbedder(api_key="x").model_id == "openai:text-embedding-3-small"
    local = OpenAIEmbedder(
        model="nomic-embed-text", base_url="http://LocalHost:11434/v1/", api_key="none"
    )
    assert local.model_id == "localhost:11434/v1:nomic-embed-text"
    assert OpenAIEmbedder(api_key="x", dimensions=256).model_id == (
        "openai:text-embedding-3-small:256d"
    )


def test_model_id_is_stable_and_differs_by_model_endpoint_and_dimensions() -> None:
    def model_id(**options: Any) -> str:
        return OpenAIEmbedder(api_key="x", **options).model_id

    base = {"model": "m", "base_url": "http://127.0.0.1:8000/v1"}
    assert model_id(**base) == model_id(**base)
    assert model_id(**base) == model_id(**{**base, "base_url": "http://127.0.0.1:8000/v1/"})
    variants = {
        model_id(**base),
        model_id(**{**base, "model": "m2"}),
        model_id(**{**base, "base_url": "http://127.0.0.1:8001/v1"}),
        model_id(**{**base, "base_url": "http://gpu-box:8000/v1"}),
        model_id(**{**base, "dimensions": 64}),
        model_id(**{**base, "dimensions": 128}),
        model_id(model="m"),
    }
    assert len(variants) == 7


# --- plugin, config and the cache ------------------------------------------------------------


def test_load_embedder_builds_it_through_the_installed_plugin(
    embeddings: EmbeddingServer, tmp_path: Path
) -> None:
    entry = PluginRegistry().embedder("openai")
    assert entry.cls is OpenAIEmbedder
    assert entry.distribution == "toolscout-openai"
    embedder = load_embedder(
        "openai",
        settings=load_settings(tmp_path),
        base_url=embeddings.base_url,
        api_key=API_KEY,
        model="test-embed",
    )
    assert isinstance(embedder, OpenAIEmbedder)
    np.testing.assert_array_equal(embedder.embed(TEXTS), expected(TEXTS))


def test_the_embedder_and_its_options_come_from_config(
    embeddings: EmbeddingServer, tmp_path: Path
) -> None:
    (tmp_path / "toolscout.toml").write_text(
        'embedder = "openai"\n'
        "[embedders.openai]\n"
        f'base_url = "{embeddings.base_url}"\n'
        f'api_key = "{API_KEY}"\n'
        'model = "test-embed"\n'
        "dimensions = 4\n"
        "batch_size = 2\n",
        "utf-8",
    )
    embedder = load_embedder(settings=load_settings(tmp_path))
    assert isinstance(embedder, OpenAIEmbedder)
    embedder.embed(TEXTS)
    assert [len(r.inputs) for r in embeddings.requests] == [2, 1]
    assert {r.body["dimensions"] for r in embeddings.requests} == {4}


def test_an_unknown_option_is_a_config_error_naming_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_embedder("openai", settings=load_settings(tmp_path), api_key="x", modle="m")
    message = str(caught.value)
    assert "'modle'" in message
    assert "did you mean 'model'?" in message
    assert "base_url" in message  # the allowed keys are listed


def test_a_base_url_without_a_scheme_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"'base_url'.*http\(s\) URL"):
        load_embedder("openai", settings=load_settings(tmp_path), base_url="localhost:11434/v1")


def test_with_the_cache_each_distinct_catalog_text_is_embedded_once(
    embeddings: EmbeddingServer,
) -> None:
    catalog = [f"tool {i}: does thing {i} for the user" for i in range(40)]
    embedder = make(embeddings, batch_size=16)
    cache = EmbeddingCache()
    first = cache.embed_documents(embedder, catalog)
    for _session in range(999):
        again = cache.embed_documents(embedder, catalog)
    np.testing.assert_array_equal(again, first)
    np.testing.assert_array_equal(first, expected(catalog))
    seen = embeddings.seen()
    assert {text: seen[text] for text in catalog} == dict.fromkeys(catalog, 1)
    assert cache.embedded[embedder.model_id] == len(catalog)
    # One probe for the dimension, then ceil(40 / 16) batches; nothing per session.
    assert len(embeddings.requests) == 1 + 3


def test_importing_the_package_and_the_plugin_does_not_import_openai() -> None:
    code = (
        "import json, sys, toolscout_openai, toolscout_openai.plugin\n"
        "from toolscout.plugins import registry\n"
        "registry.embedder('openai')\n"
        "print(json.dumps(sorted(m for m in ('openai', 'numpy') if m in sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(result.stdout) == []


def test_its_errors_are_toolscout_errors() -> None:
    assert issubclass(OpenAIEmbeddingError, ToolscoutError)
