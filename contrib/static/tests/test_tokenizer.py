"""The pure-Python tokenizer gives exactly the ids of Hugging Face's `tokenizers`
(`encode(text, add_special_tokens=False).ids`) on the model's tokenizer.json."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from static_support import EDGE_TEXTS
from toolscout import ConfigError
from toolscout_static.tokenizer import MAX_WORD_CHARS, WHOLE_WORD_TOKENIZERS, Tokenizer


@pytest.fixture(scope="module")
def spec(model_files: Any) -> dict[str, Any]:
    return json.loads(model_files.tokenizer.read_text(encoding="utf-8"))


@pytest.fixture(scope="module", params=["whole words trusted", "every word merged"])
def tokenizer(request: pytest.FixtureRequest, model_files: Any, spec: dict[str, Any]) -> Tokenizer:
    """As the embedder reads it (words of the vocabulary taken whole), and with every word
    merged pair by pair."""
    if request.param == "whole words trusted":
        return Tokenizer.from_file(model_files.tokenizer)
    return Tokenizer.from_spec(spec)


def assert_same_ids(tokenizer: Tokenizer, hf: Any, texts: list[str]) -> None:
    wrong = [
        (text, ours, theirs)
        for text in texts
        if (ours := tokenizer.encode(text))
        != (theirs := hf.encode(text, add_special_tokens=False).ids)
    ]
    assert not wrong, f"{len(wrong)} of {len(texts)} texts differ, e.g. {wrong[:3]}"


def random_texts(vocab: list[str], count: int, seed: int) -> list[str]:
    """Texts made of vocabulary pieces, odd characters and odd spacing."""
    rng = random.Random(seed)
    odd = [" ", "  ", "   ", "\t", "\n", "▁", "😀", "日", "é", "\x00", "<s>", "</s>", "<unk>", "<"]
    texts = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(0, 40)):
            parts.append(rng.choice(vocab).replace("▁", rng.choice(["", " ", "  "])))
            if rng.random() < 0.3:
                parts.append(rng.choice(odd))
        texts.append("".join(parts))
    return texts


def test_catalog_texts_give_the_ids_of_hugging_face_tokenizers(
    tokenizer: Tokenizer, hf_tokenizer: Any, catalog: list[str]
) -> None:
    """Every tool name, description and embedded text of BFCL and Seal-Tools."""
    assert len(catalog) > 10_000
    assert_same_ids(tokenizer, hf_tokenizer, catalog)


def test_edge_texts_give_the_ids_of_hugging_face_tokenizers(
    tokenizer: Tokenizer, hf_tokenizer: Any
) -> None:
    """Spaces (repeated, leading, trailing), tabs and newlines, Unicode, emoji, CJK, control
    characters, added tokens written in the text, the empty string."""
    assert_same_ids(tokenizer, hf_tokenizer, EDGE_TEXTS)


def test_random_texts_give_the_ids_of_hugging_face_tokenizers(
    tokenizer: Tokenizer, hf_tokenizer: Any
) -> None:
    vocab = [t for t in tokenizer.vocab if not t.startswith("<")]
    assert_same_ids(tokenizer, hf_tokenizer, random_texts(vocab, 1500, seed=7))


def test_long_words_give_the_ids_of_hugging_face_tokenizers(
    tokenizer: Tokenizer, hf_tokenizer: Any
) -> None:
    """Words of many symbols, merged with a heap rather than a scan."""
    rng = random.Random(11)
    pieces = [t.lstrip("▁") for t in tokenizer.vocab if not t.startswith("<") and t.strip("▁")]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(10, 200))) for _ in range(200)]
    texts += ["".join(rng.choice("0123456789.-") for _ in range(300)), "ab" * 2000, "x" * 5000]
    assert_same_ids(tokenizer, hf_tokenizer, texts)


def test_a_word_of_the_vocabulary_merges_into_itself(spec: dict[str, Any]) -> None:
    """What `WHOLE_WORD_TOKENIZERS` rests on: for this vocabulary, merging any token's text
    pair by pair gives that token back, so a word found in the vocabulary may be taken whole."""
    merged = Tokenizer.from_spec(spec)  # not trusted: every word is merged
    skip = {"<unk>", "<s>", "</s>", *(f"<0x{b:02X}>" for b in range(256))}
    wrong = [t for t, i in merged.vocab.items() if t not in skip and merged.word(t) != (i,)]
    assert wrong == []


def test_the_wordllama_tokenizer_is_the_one_checked(model_files: Any) -> None:
    tokenizer = Tokenizer.from_file(model_files.tokenizer)
    assert tokenizer.digest in WHOLE_WORD_TOKENIZERS
    assert tokenizer.vocab_size == 32_000
    assert tokenizer.special_ids == (0, 1, 2)


def test_a_limit_keeps_the_first_ids(tokenizer: Tokenizer) -> None:
    text = "find the weather for a city and send it by email " * 200
    whole = tokenizer.encode(text)
    assert len(whole) > 1000
    for limit in (1, 7, 1000, len(whole), len(whole) + 5):
        assert tokenizer.encode(text, limit) == whole[:limit]
    assert tokenizer.encode(text, 0) == []


def test_a_huge_text_costs_only_its_first_ids(tokenizer: Tokenizer) -> None:
    """1 MB with no spaces, and 1 MB of words: read up to the limit, in well under a second
    (the whole text would take many)."""
    rng = random.Random(3)
    for text in (
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(1_000_000)),
        " ".join(rng.choice(["alpha", "beta", "gamma", "δ", "😀"]) for _ in range(200_000)),
    ):
        start = time.perf_counter()
        ids = tokenizer.encode(text, 8192)
        assert len(ids) == 8192
        assert time.perf_counter() - start < 5
    # A word past MAX_WORD_CHARS is read in pieces: the ids differ only at the seams.
    word = "x" * (3 * MAX_WORD_CHARS)
    pieces = tokenizer.encode(word, 100_000)
    assert abs(len(pieces) - len(tokenizer.encode(word))) <= 3


def test_lone_surrogates_fall_back_to_bytes(tokenizer: Tokenizer) -> None:
    """A lone surrogate has no UTF-8 form; its surrogatepass bytes become byte tokens."""
    byte = {b: tokenizer.vocab[f"<0x{b:02X}>"] for b in range(256)}
    ids = tokenizer.encode("\ud800")
    assert ids == [tokenizer.vocab["▁"], byte[0xED], byte[0xA0], byte[0x80]]
    assert len(tokenizer.encode("a\udfffb\ud83d")) > 3


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s["model"].update(type="WordPiece"), "not BPE"),
        (lambda s: s.update(pre_tokenizer={"type": "ByteLevel"}), "pre-tokenizer"),
        (lambda s: s.update(normalizer={"type": "NFC"}), "normalizer"),
        (lambda s: s["model"]["merges"].append("▁t zzz"), "not in the vocabulary"),
        (lambda s: s["model"]["merges"].append("a b c"), "not a pair"),
        (lambda s: s["model"].update(vocab=[1, 2]), "vocabulary"),
        (lambda s: s["added_tokens"][0].update(lstrip=True), "strips spaces"),
    ],
)
def test_a_tokenizer_of_another_kind_is_a_config_error(
    tmp_path: Path, spec: dict[str, Any], change: Any, message: str
) -> None:
    changed = json.loads(json.dumps(spec))
    change(changed)
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(changed), encoding="utf-8")
    with pytest.raises(ConfigError, match=message) as raised:
        Tokenizer.from_file(path)
    assert str(path) in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_merge_across_words_is_refused(spec: dict[str, Any]) -> None:
    """Words are merged apart; a vocabulary with a token spanning two could not be."""
    changed = json.loads(json.dumps(spec))
    changed["model"]["vocab"]["a▁b"] = 32_000
    changed["model"]["vocab"]["a▁"] = 32_001
    changed["model"]["merges"].append("a ▁b")
    with pytest.raises(ValueError, match="joins a word to the next"):
        Tokenizer.from_spec(changed)


def test_a_damaged_tokenizer_file_is_a_config_error(tmp_path: Path, model_files: Any) -> None:
    path = tmp_path / "tokenizer.json"
    path.write_bytes(model_files.tokenizer.read_bytes()[:5000])
    with pytest.raises(ConfigError, match="not readable JSON"):
        Tokenizer.from_file(path)
