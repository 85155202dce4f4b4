"""The BERT graph written from safetensors, checked against a numpy BERT (no torch)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
import pytest
from tiny_bert import CONFIG, forward, pool, random_weights, write_safetensors
from toolscout import ConfigError
from toolscout.safetensors import read_safetensors
from toolscout_onnx.graph import OUTPUT, TOKENS, build_bert_graph

IDS = np.array([[2, 17, 33, 5, 9, 3], [2, 41, 3, 0, 0, 0]], dtype=np.int64)
MASK = np.array([[1, 1, 1, 1, 1, 1], [1, 1, 1, 0, 0, 0]], dtype=np.int64)
TYPES = np.array([[0, 0, 0, 1, 1, 1], [0, 0, 0, 0, 0, 0]], dtype=np.int64)


def run(model: Any) -> np.ndarray:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = {"input_ids": IDS, "attention_mask": MASK, "token_type_ids": TYPES}
    (result,) = session.run(None, feed)
    return np.asarray(result)


@pytest.mark.parametrize("pooling", ["mean", "cls", "max"])
@pytest.mark.parametrize("normalize", [True, False])
def test_sentence_vectors_equal_a_numpy_bert_with_the_same_pooling(
    pooling: str, normalize: bool
) -> None:
    tensors = random_weights(CONFIG)
    got = run(build_bert_graph(tensors, CONFIG, pooling=pooling, normalize=normalize))
    expected = pool(forward(tensors, CONFIG, IDS, MASK, TYPES), MASK, pooling)
    if normalize:
        expected = expected / np.linalg.norm(expected, axis=1, keepdims=True)
        assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    assert got.shape == (2, CONFIG["hidden_size"]) and got.dtype == np.float32
    np.testing.assert_allclose(got, expected, atol=2e-5, rtol=1e-4)


@pytest.mark.parametrize("activation", ["gelu", "gelu_new", "relu"])
def test_token_vectors_equal_a_numpy_bert_for_each_activation(activation: str) -> None:
    config = {**CONFIG, "hidden_act": activation}
    tensors = random_weights(config)
    got = run(build_bert_graph(tensors, config, pooling=None))
    expected = forward(tensors, config, IDS, MASK, TYPES)
    real = MASK.astype(bool)  # padding positions are not compared: nobody reads them
    np.testing.assert_allclose(got[real], expected[real], atol=2e-5, rtol=1e-4)


def test_padding_does_not_change_a_texts_vector() -> None:
    tensors = random_weights(CONFIG)
    model = build_bert_graph(tensors, CONFIG)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    alone = session.run(
        None,
        {"input_ids": IDS[1:, :3], "attention_mask": MASK[1:, :3], "token_type_ids": TYPES[1:, :3]},
    )[0]
    padded = run(model)[1:]
    np.testing.assert_allclose(alone, padded, atol=1e-6)


def test_the_graph_names_its_inputs_and_output() -> None:
    model = build_bert_graph(random_weights(CONFIG), CONFIG)
    assert [i.name for i in model.graph.input] == ["input_ids", "attention_mask", "token_type_ids"]
    assert [o.name for o in model.graph.output] == [OUTPUT]
    tokens = build_bert_graph(random_weights(CONFIG), CONFIG, pooling=None)
    assert [o.name for o in tokens.graph.output] == [TOKENS]


def test_weights_under_a_bert_prefix_are_found() -> None:
    tensors = {f"bert.{k}": v for k, v in random_weights(CONFIG).items()}
    plain = run(build_bert_graph(random_weights(CONFIG), CONFIG))
    np.testing.assert_allclose(run(build_bert_graph(tensors, CONFIG)), plain, atol=1e-6)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"model_type": "mpnet"}, "only BERT encoders"),
        ({"hidden_act": "swish"}, "unsupported hidden_act"),
        ({"position_embedding_type": "relative_key"}, "absolute position"),
        ({"num_attention_heads": 5}, "not a multiple"),
    ],
)
def test_models_it_cannot_build_are_a_config_error(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build_bert_graph(random_weights(CONFIG), {**CONFIG, **change})


def test_a_missing_tensor_is_named() -> None:
    tensors = random_weights(CONFIG)
    del tensors["encoder.layer.1.output.dense.bias"]
    with pytest.raises(ConfigError, match=r"encoder\.layer\.1\.output\.dense\.bias"):
        build_bert_graph(tensors, CONFIG)


# --- the safetensors reader ------------------------------------------------------------


def test_safetensors_are_read_as_written(tmp_path: Path) -> None:
    tensors = random_weights(CONFIG)
    tensors["embeddings.position_ids"] = np.arange(24, dtype=np.int64)[None]
    write_safetensors(tmp_path / "model.safetensors", tensors)
    read = read_safetensors(tmp_path / "model.safetensors")
    assert set(read) == set(tensors)
    for name, array in tensors.items():
        np.testing.assert_array_equal(read[name], array)


def test_half_and_bfloat16_tensors_become_float32(tmp_path: Path) -> None:
    tensors = {"a": np.array([[1.5, -2.25]], dtype=np.float32)}
    write_safetensors(tmp_path / "bf16.safetensors", tensors, bf16=True)
    write_safetensors(tmp_path / "f16.safetensors", {"a": tensors["a"].astype(np.float16)})
    for name in ("bf16", "f16"):
        read = read_safetensors(tmp_path / f"{name}.safetensors")["a"]
        assert read.dtype == np.float32
        np.testing.assert_array_equal(read, tensors["a"])


def test_a_file_that_is_not_safetensors_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"\xff" * 64)
    with pytest.raises(ConfigError, match="not a readable safetensors file"):
        read_safetensors(tmp_path / "model.safetensors")


def test_a_truncated_safetensors_file_is_a_config_error(tmp_path: Path) -> None:
    """A partial copy: the header promises more data than the file holds."""
    write_safetensors(tmp_path / "model.safetensors", random_weights(CONFIG))
    data = (tmp_path / "model.safetensors").read_bytes()
    for keep in (4, 20, len(data) // 2, len(data) - 1):
        (tmp_path / "cut.safetensors").write_bytes(data[:keep])
        with pytest.raises(ConfigError, match=r"cut\.safetensors"):
            read_safetensors(tmp_path / "cut.safetensors")
