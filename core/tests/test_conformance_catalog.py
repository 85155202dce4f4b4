"""The suite's sample catalog keeps the promises its ranking floors rely on."""

from __future__ import annotations

import pytest
from toolscout.testing.sample_catalog import DESCRIPTION_WORDS, PARAMETER_WORDS, SAMPLE_TOOLS
from toolscout.text import words

BY_NAME = {tool.name: tool for tool in SAMPLE_TOOLS}


def test_names_are_unique() -> None:
    assert len(BY_NAME) == len(SAMPLE_TOOLS) == 30


@pytest.mark.parametrize("word", sorted(DESCRIPTION_WORDS))
def test_description_word_belongs_to_one_description(word: str) -> None:
    owner = BY_NAME[DESCRIPTION_WORDS[word]]
    assert word in words(owner.text.description)
    assert word not in words(owner.text.name)
    others = [t.name for t in SAMPLE_TOOLS if t is not owner and word in words(t.text.all)]
    assert not others, f"{word!r} also occurs in {others}"


@pytest.mark.parametrize("word", sorted(PARAMETER_WORDS))
def test_parameter_word_belongs_to_one_schema(word: str) -> None:
    owner = BY_NAME[PARAMETER_WORDS[word]]
    assert word in words(owner.text.parameters)
    assert word not in words(owner.text.name) + words(owner.text.description)
    others = [t.name for t in SAMPLE_TOOLS if t is not owner and word in words(t.text.all)]
    assert not others, f"{word!r} also occurs in {others}"
