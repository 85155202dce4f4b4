"""A tiny random BERT: its safetensors file, and its forward pass in plain numpy.

The numpy pass follows Hugging Face's `BertModel` step by step (embeddings, LayerNorm,
self-attention with the padding mask, GELU feed-forward, residual LayerNorms), so the
graph written by `toolscout_onnx.graph` can be checked without torch.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

import numpy as np

CONFIG: dict[str, Any] = {
    "model_type": "bert",
    "hidden_size": 16,
    "num_attention_heads": 4,
    "num_hidden_layers": 2,
    "intermediate_size": 32,
    "max_position_embeddings": 24,
    "type_vocab_size": 2,
    "vocab_size": 50,
    "layer_norm_eps": 1e-12,
    "hidden_act": "gelu",
}


def random_weights(config: dict[str, Any], seed: int = 7) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    hidden, inner = config["hidden_size"], config["intermediate_size"]

    def normal(*shape: int, scale: float = 0.5) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    tensors = {
        "embeddings.word_embeddings.weight": normal(config["vocab_size"], hidden),
        "embeddings.position_embeddings.weight": normal(config["max_position_embeddings"], hidden),
        "embeddings.token_type_embeddings.weight": normal(config["type_vocab_size"], hidden),
        "embeddings.LayerNorm.weight": 1 + normal(hidden, scale=0.1),
        "embeddings.LayerNorm.bias": normal(hidden, scale=0.1),
    }
    for layer in range(config["num_hidden_layers"]):
        base = f"encoder.layer.{layer}"
        for name, (out, into) in {
            "attention.self.query": (hidden, hidden),
            "attention.self.key": (hidden, hidden),
            "attention.self.value": (hidden, hidden),
            "attention.output.dense": (hidden, hidden),
            "intermediate.dense": (inner, hidden),
            "output.dense": (hidden, inner),
        }.items():
            tensors[f"{base}.{name}.weight"] = normal(out, into, scale=1 / math.sqrt(into))
            tensors[f"{base}.{name}.bias"] = normal(out, scale=0.1)
        for name in ("attention.output.LayerNorm", "output.LayerNorm"):
            tensors[f"{base}.{name}.weight"] = 1 + normal(hidden, scale=0.1)
            tensors[f"{base}.{name}.bias"] = normal(hidden, scale=0.1)
    return tensors


_CODES = {np.dtype("<f4"): "F32", np.dtype("<f2"): "F16", np.dtype("<i8"): "I64"}


def write_safetensors(path: Path, tensors: dict[str, np.ndarray], bf16: bool = False) -> None:
    """The safetensors layout: header length, JSON header, raw little-endian data."""
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    blobs = []
    offset = 0
    for name, array in tensors.items():
        if bf16 and array.dtype == np.float32:
            data = (np.ascontiguousarray(array).view(np.uint32) >> 16).astype("<u2").tobytes()
            code = "BF16"
        else:
            data = np.ascontiguousarray(array).tobytes()
            code = _CODES[array.dtype]
        header[name] = {
            "dtype": code,
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        blobs.append(data)
        offset += len(data)
    encoded = json.dumps(header).encode()
    encoded += b" " * (-len(encoded) % 8)
    path.write_bytes(struct.pack("<Q", len(encoded)) + encoded + b"".join(blobs))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + eps) * weight + bias


_erf = np.vectorize(math.erf)


def _activation(x: np.ndarray, kind: str) -> np.ndarray:
    if kind == "gelu":
        return 0.5 * x * (1 + _erf(x / math.sqrt(2)))
    if kind == "relu":
        return np.maximum(x, 0)
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def forward(
    tensors: dict[str, np.ndarray],
    config: dict[str, Any],
    ids: np.ndarray,
    mask: np.ndarray,
    types: np.ndarray,
) -> np.ndarray:
    """Token vectors (batch by sequence by hidden), in float64."""
    w = {k: v.astype(np.float64) for k, v in tensors.items()}
    eps = config["layer_norm_eps"]
    heads = config["num_attention_heads"]
    batch, length = ids.shape
    hidden = config["hidden_size"]
    size = hidden // heads
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:length]
        + w["embeddings.token_type_embeddings.weight"][types]
    )
    x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
    blocked = (1.0 - mask[:, None, None, :]) * -1e30

    def linear(value: np.ndarray, name: str) -> np.ndarray:
        return value @ w[f"{name}.weight"].T + w[f"{name}.bias"]

    def split(value: np.ndarray) -> np.ndarray:
        return value.reshape(batch, length, heads, size).transpose(0, 2, 1, 3)

    for layer in range(config["num_hidden_layers"]):
        base = f"encoder.layer.{layer}"
        q = split(linear(x, f"{base}.attention.self.query"))
        k = split(linear(x, f"{base}.attention.self.key"))
        v = split(linear(x, f"{base}.attention.self.value"))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(size) + blocked
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        weights = scores / scores.sum(-1, keepdims=True)
        context = (weights @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        name = f"{base}.attention.output"
        x = _layer_norm(
            linear(context, f"{name}.dense") + x,
            w[f"{name}.LayerNorm.weight"],
            w[f"{name}.LayerNorm.bias"],
            eps,
        )
        inner = _activation(linear(x, f"{base}.intermediate.dense"), config["hidden_act"])
        x = _layer_norm(
            linear(inner, f"{base}.output.dense") + x,
            w[f"{base}.output.LayerNorm.weight"],
            w[f"{base}.output.LayerNorm.bias"],
            eps,
        )
    return x


def pool(tokens: np.ndarray, mask: np.ndarray, mode: str) -> np.ndarray:
    weights = mask[..., None].astype(np.float64)
    if mode == "cls":
        return tokens[:, 0]
    if mode == "max":
        return np.where(weights > 0, tokens, -1e9).max(axis=1)
    return (tokens * weights).sum(1) / np.maximum(weights.sum(1), 1e-9)
