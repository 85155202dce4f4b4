"""Progress of long work deep inside a call (embedding a catalog's tool texts), drawn by
the bar the caller shows around it, on a terminal only."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
from toolscout.embedders import EmbeddingCache
from toolscout.progress import advance, shown


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class CountingEmbedder:
    model_id = "test-counting-4"
    dimension = 4

    def embed(self, texts: Any) -> Any:
        return np.array([[len(t), 1, 0, 0] for t in texts], dtype=np.float32)


def test_embedding_reports_to_the_bar_shown_around_it() -> None:
    screen = Terminal()
    cache = EmbeddingCache(batch_size=2)
    with shown("tool texts embedded", screen):
        cache.embed_documents(CountingEmbedder(), [f"text {n}" for n in range(5)])
    drawn = screen.getvalue()
    assert "5/5 tool texts embedded" in drawn
    assert drawn.endswith("\r\x1b[2K")  # cleared when the block ends
    assert "2/5" in drawn  # drawn as batches finish (the first draw is never throttled)


def test_nothing_is_drawn_off_a_terminal_or_without_a_bar() -> None:
    piped = io.StringIO()
    with shown("tool texts embedded", piped):
        EmbeddingCache(batch_size=2).embed_documents(CountingEmbedder(), ["a", "b", "c"])
    assert piped.getvalue() == ""
    advance(3, 10)  # no bar shown: nothing happens
    screen = Terminal()
    with shown("nothing long inside", screen):
        pass
    assert screen.getvalue() == ""
