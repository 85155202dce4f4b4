"""Four processes indexing, removing and searching the same sessions at once, each with
its own pool: no lost write, no cross-session hit, and what one worker indexed is found
by the others on their next search."""

from __future__ import annotations

import multiprocessing
import queue

from toolscout_postgres import PostgresToolIndex
from workload import CATALOG, run

WORKERS = 4
SESSIONS = [f"shared{n}" for n in range(6)]
ROUNDS = 120


def test_four_processes_share_sessions(dsn: str, schema: str) -> None:
    context = multiprocessing.get_context("spawn")
    inboxes = [context.Queue() for _ in range(WORKERS)]
    results = context.Queue()
    processes = [
        context.Process(
            target=run,
            args=(
                dsn,
                schema,
                number,
                SESSIONS,
                ROUNDS,
                inboxes[number],
                [box for other, box in enumerate(inboxes) if other != number],
                results,
            ),
        )
        for number in range(WORKERS)
    ]
    for process in processes:
        process.start()
    reports = []
    try:
        for _ in processes:
            reports.append(results.get(timeout=300))
    except queue.Empty:
        raise AssertionError(f"only {len(reports)} of {WORKERS} workers reported") from None
    finally:
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
    problems = [problem for _, _, found, _ in reports for problem in found]
    assert not problems, "\n".join(problems[:20])
    assert sum(checked for *_, checked in reports) > 0, "no announced tool was checked"
    # No lost write: each session holds the catalog and every tool a worker kept there.
    index = PostgresToolIndex(dsn=dsn, schema=schema)
    try:
        for session in SESSIONS:
            expected = {t.name for t in CATALOG}
            for _, live, _, _ in reports:
                expected |= set(live[session])
            assert set(index.tools(session)) == expected, session
        # Sets are whole: no set without a holder, each set's size its members.
        with index._connection() as conn:
            orphans = conn.execute(
                f'SELECT count(*) FROM "{schema}".sets st WHERE NOT EXISTS '
                f'(SELECT 1 FROM "{schema}".sessions se WHERE se.set_id = st.id)'
            ).fetchone()
            wrong = conn.execute(
                f'SELECT count(*) FROM "{schema}".sets st WHERE st.size <> '
                f'(SELECT count(*) FROM "{schema}".members m WHERE m.set_id = st.id)'
            ).fetchone()
        assert orphans == (0,) and wrong == (0,)
    finally:
        index.close()
