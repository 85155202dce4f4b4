"""The graph built from safetensors gives sentence-transformers' own (torch) vectors.

Runs where sentence-transformers and torch are installed (the package's test extra has
them, with torch's CPU build); skipped elsewhere.
"""

from __future__ import annotations

import numpy as np
import pytest
from toolscout_onnx import OnnxEmbedder, find_model

sentence_transformers = pytest.importorskip(
    "sentence_transformers", reason="the torch comparison needs sentence-transformers and torch"
)

TEXTS = [
    "send an email to the team",
    "weather",
    "",
    "Create a new issue in a GitHub repository with a title, a body and labels; the "
    "repository is given as owner/name and the labels as a list of strings.",
    "calculate_body_mass_index: Calculate body mass index given weight and height.; "
    "height (number): Height of the individual in meters. weight (number): kilograms",
    "Ünïcödé, emoji 🚀 and 中文 text",
    "word " * 400,  # truncated at the model's 256 tokens by both
]


@pytest.fixture(scope="module")
def torch_vectors() -> np.ndarray:
    model = sentence_transformers.SentenceTransformer(str(find_model(None).directory), device="cpu")
    return np.asarray(model.encode(TEXTS, normalize_embeddings=True, batch_size=3))


def test_onnx_vectors_equal_sentence_transformers_torch_vectors(
    torch_vectors: np.ndarray,
) -> None:
    ours = OnnxEmbedder(batch_size=2, quantize=False).embed(TEXTS)
    cosines = (ours * torch_vectors).sum(axis=1) / (
        np.linalg.norm(ours, axis=1) * np.linalg.norm(torch_vectors, axis=1)
    )
    assert cosines.min() >= 0.9999, cosines
    assert np.abs(ours - torch_vectors).max() < 1e-4


def test_the_model_id_is_the_sentence_transformers_embedders(torch_vectors: np.ndarray) -> None:
    """Equal vectors, equal id: vectors cached by either embedder serve the other."""
    pytest.importorskip("toolscout_sentence_transformers")
    from toolscout_sentence_transformers import SentenceTransformerEmbedder

    assert OnnxEmbedder(quantize=False).model_id == SentenceTransformerEmbedder().model_id
    # Other int8 weights, other vectors, another id.
    assert OnnxEmbedder().model_id != SentenceTransformerEmbedder(quantize=True).model_id
