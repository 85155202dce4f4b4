"""What each process of the many-workers test does (imported by spawned processes)."""

from __future__ import annotations

import queue
import random
import traceback
from typing import Any

from toolscout import ToolReference, ToolSearchRequest

#: Every session starts with this catalog (all workers index it at once: one set).
CATALOG = [
    ToolReference(f"cat_{word}", f"Shared ledger tool that handles {word} requests.")
    for word in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")
]


def tool(session: str, kind: str, worker: int, number: int) -> ToolReference:
    """A tool only `session` may hold: its name starts with the session's tag."""
    name = f"{session}__{kind}_w{worker}_{number}"
    return ToolReference(name, f"Shared ledger tool {kind} {number} of worker {worker}.")


def run(
    dsn: str,
    schema: str,
    worker: int,
    sessions: list[str],
    rounds: int,
    inbox: Any,
    outboxes: list[Any],
    results: Any,
) -> None:
    """Index, remove and search the shared sessions at random; check every answer.

    - every hit belongs to the searched session (its name carries the session's tag, or
      is a catalog tool);
    - a tool another worker announced (it indexed it and never removes it) is found, by
      its exact name, on this worker's next search of that session;
    - at the end, report which of its own tools each session must still hold.
    """
    from toolscout_postgres import PostgresToolIndex

    problems: list[str] = []
    live: dict[str, set[str]] = {session: set() for session in sessions}
    temporary: dict[str, list[str]] = {session: [] for session in sessions}
    checked = 0
    index = None
    try:
        index = PostgresToolIndex(dsn=dsn, schema=schema, pool_max_size=4)
        rng = random.Random(worker)
        for session in sessions:
            index.index_tools(session, CATALOG)
        for number in range(rounds):
            session = rng.choice(sessions)
            roll = rng.random()
            if roll < 0.35:
                kept = tool(session, "keep", worker, number)
                index.index_tool(session, kept)
                live[session].add(kept.name)
                for outbox in outboxes:
                    outbox.put((session, kept.name))
            elif roll < 0.55:
                batch = [tool(session, "tmp", worker, number * 10 + i) for i in range(3)]
                index.index_tools(session, batch)
                live[session].update(t.name for t in batch)
                temporary[session].extend(t.name for t in batch)
            elif roll < 0.7 and temporary[session]:
                gone = temporary[session][: rng.randint(1, len(temporary[session]))]
                del temporary[session][: len(gone)]
                index.remove_tools(session, gone)
                live[session].difference_update(gone)
            else:
                response = index.search(ToolSearchRequest(session, "shared ledger tool", 50))
                for hit in response.references:
                    if not (hit.name.startswith(f"{session}__") or hit.name.startswith("cat_")):
                        problems.append(f"{session} returned {hit.name}")
            # Tools other workers announced: found on this worker's next search.
            while True:
                try:
                    where, name = inbox.get_nowait()
                except queue.Empty:
                    break
                response = index.search(ToolSearchRequest(where, name, 3))
                checked += 1
                if not response.references or response.references[0].name != name:
                    problems.append(
                        f"worker {worker}: {name} not found first in {where}: "
                        f"{[h.name for h in response.references]}"
                    )
    except Exception:
        problems.append(f"worker {worker}: {traceback.format_exc()}")
    finally:
        if index is not None:
            index.close()
        results.put((worker, {s: sorted(names) for s, names in live.items()}, problems, checked))
