"""Helpers the conformance suite's tests share: unique sessions, deadlines, response checks.

They are public so a backend author can reuse them in tests of their own.
"""

from __future__ import annotations

import os
import re
import threading
import uuid
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from toolscout.index import ToolIndex
from toolscout.types import ToolSearchRequest, ToolSearchResponse

__all__ = [
    "DEFAULT_DEADLINE_S",
    "WIRE_NAME",
    "assert_well_formed",
    "assert_wire_safe",
    "call_with_deadline",
    "eval_data",
    "names_of",
    "search",
    "search_or_value_error",
    "unique_session",
]

T = TypeVar("T")

#: Seconds a single call may take before the suite calls it a hang (the machine may be busy).
DEFAULT_DEADLINE_S = 10.0


#: A tool name OpenAI's API accepts (Anthropic's rule is the same): what every name a
#: model provider receives must match, written here apart from the code that makes them.
WIRE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def assert_wire_safe(names: Iterable[str]) -> None:
    """Every name is one a provider accepts, and no two are the same."""
    names = list(names)
    assert all(WIRE_NAME.match(name) for name in names), names
    assert len(set(names)) == len(names), names


def eval_data(*parts: str) -> Path:
    """A path in the evaluation data: under `TOOLSCOUT_EVAL_DATA`, else under the first
    `shared/eval` folder beside the working directory or one of its parents (where a clone
    of the repository finds it). It may not exist: tests that need it skip then."""
    root = os.environ.get("TOOLSCOUT_EVAL_DATA")
    if root is None:
        here = Path.cwd().resolve()
        found = (f / "shared" / "eval" for f in (here, *here.parents))
        root = str(next((f for f in found if f.is_dir()), Path("shared") / "eval"))
    return Path(root).joinpath(*parts)


def unique_session(prefix: str = "s") -> str:
    """A session id no other test or Hypothesis example uses, so one index serves many."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def call_with_deadline(fn: Callable[[], T], seconds: float, what: str) -> T:
    """Run `fn` in a daemon thread; fail the test if it takes longer than `seconds`.

    A hung call cannot be killed, but the thread is a daemon, so the test run still ends.
    Exceptions raised by `fn` propagate unchanged.
    """
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = fn()
        except BaseException as error:  # re-raised in the calling thread
            outcome["error"] = error

    thread = threading.Thread(target=target, name=f"toolscout-deadline: {what}", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(
            f"{what} did not return within {seconds:.0f} s: the backend hangs on this input; "
            "it must return a response or raise ValueError quickly"
        )
    if "error" in outcome:
        raise outcome["error"]
    value: T = outcome["value"]
    return value


def search(
    index: ToolIndex, session_id: str, query: str, max_results: int | None = 10
) -> ToolSearchResponse:
    """Search one session and check the response is well formed before returning it."""
    response = index.search(ToolSearchRequest(session_id, query, max_results))
    assert_well_formed(response, max_results)
    return response


def names_of(response: ToolSearchResponse) -> list[str]:
    """The ranked tool names of a response."""
    return [hit.name for hit in response.references]


def assert_well_formed(
    response: object, max_results: int | None, allowed: Collection[str] | None = None
) -> None:
    """A search answer is a `ToolSearchResponse` with unique names, sorted scores, at most
    `max_results` hits, `total_matches` no smaller than the hits, and (when `allowed` is
    given) only names from `allowed`."""
    assert isinstance(response, ToolSearchResponse), (
        f"search must return a ToolSearchResponse, got {type(response).__name__}"
    )
    names = names_of(response)
    assert len(names) == len(set(names)), f"a tool appears more than once in the hits: {names}"
    if max_results is not None:
        assert len(names) <= max_results, (
            f"asked for at most {max_results} results, got {len(names)}: {names}"
        )
    scores = [hit.score for hit in response.references]
    assert scores == sorted(scores, reverse=True), (
        f"hits must be sorted best first (scores descending), got {scores}"
    )
    assert response.total_matches >= len(names), (
        f"total_matches ({response.total_matches}) is smaller than the hits returned ({len(names)})"
    )
    if allowed is not None:
        strangers = sorted(set(names) - set(allowed))
        assert not strangers, (
            f"the search returned tools this session does not hold: {strangers}; "
            f"it holds {sorted(allowed)}"
        )


def search_or_value_error(
    index: ToolIndex,
    request: ToolSearchRequest,
    deadline_s: float = DEFAULT_DEADLINE_S,
    allowed: Collection[str] | None = None,
) -> ToolSearchResponse | None:
    """Search with bad input: the answer or None on ValueError; anything else fails.

    The contract for odd queries is "return a response or raise ValueError, quickly".
    """
    label = f"search({request.query[:40]!r}, max_results={request.max_results})"
    try:
        response = call_with_deadline(lambda: index.search(request), deadline_s, label)
    except ValueError:
        return None
    except Exception as error:
        pytest.fail(
            f"{label} raised {type(error).__name__}: {error}; bad input must give a response "
            "or a ValueError with a clear message, never another exception"
        )
    assert_well_formed(response, request.max_results, allowed)
    return response
