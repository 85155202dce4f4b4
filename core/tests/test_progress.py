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


class RecordingEmbedder(CountingEmbedder):
    """Notes what the terminal showed when each batch began (the first batch is where a
    lazily loaded model is loaded, or built)."""

    def __init__(self, screen: Terminal) -> None:
        self.screen = screen
        self.seen: list[str] = []

    def embed(self, texts: Any) -> Any:
        self.seen.append(self.screen.getvalue())
        return super().embed(texts)


def test_the_bar_is_up_before_the_first_batch() -> None:
    """Issue 38, 14: the first draw came after the first 512 texts, so a terminal showed
    nothing while the first batch ran and the model loaded for it."""
    screen = Terminal()
    embedder = RecordingEmbedder(screen)
    with shown("tool texts embedded (1,200 tools)", screen):
        EmbeddingCache(batch_size=512).embed_documents(embedder, [f"text {n}" for n in range(1200)])
    assert "0/1200 tool texts embedded (1,200 tools)" in embedder.seen[0]
    drawn = screen.getvalue()
    # The draw at 0 does not hold back the first batch's (no throttle in between).
    assert " 512/1200" in drawn and "1200/1200" in drawn
    assert drawn.endswith("\r\x1b[2K")


def test_a_step_without_a_count_says_what_it_does() -> None:
    """Work with no count (an embedder building its model) shows a status line on the bar
    shown around it, which the bar's next update replaces; cleared at the end, drawn only on
    a terminal, and a no-op with no bar."""
    from toolscout.progress import status

    screen = Terminal()
    with shown("tool texts embedded", screen):
        status("building the ONNX model of test (once)…")
        assert screen.getvalue().endswith("\r\x1b[2Kbuilding the ONNX model of test (once)…")
        advance(0, 10)
        assert screen.getvalue().endswith(" 0/10 tool texts embedded")
    assert screen.getvalue().endswith("\r\x1b[2K")
    status_only = Terminal()
    with shown("x", status_only):
        status("loading…")
    assert status_only.getvalue().endswith("\r\x1b[2K")  # a status alone is cleared too
    piped = io.StringIO()
    with shown("x", piped):
        status("loading…")
    assert piped.getvalue() == ""
    status("no bar: nothing happens")
