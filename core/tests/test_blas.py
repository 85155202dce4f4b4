"""`toolscout.blas.one_thread`: a search's products on one BLAS thread, and the process's
setting back afterwards, also with searches side by side."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from threadpoolctl import ThreadpoolController
from toolscout.blas import one_thread


def _libraries() -> list[Any]:
    return list(ThreadpoolController().select(user_api="blas").lib_controllers)


def _threads() -> list[int]:
    return [library.get_num_threads() for library in _libraries()]


@pytest.fixture
def two_threads() -> Iterator[None]:
    """numpy's BLAS on two threads (whatever this machine's cores), as a test sets it."""
    libraries = _libraries()
    assert libraries, "numpy's BLAS is not found"
    before = [library.get_num_threads() for library in libraries]
    for library in libraries:
        library.set_num_threads(2)
        getattr(library, "clear_controlling_thread", lambda: None)()
    yield
    for library, threads in zip(libraries, before, strict=True):
        library.set_num_threads(threads)
        getattr(library, "clear_controlling_thread", lambda: None)()


@pytest.mark.usefixtures("two_threads")
def test_one_thread_inside_and_the_setting_back_after() -> None:
    assert set(_threads()) == {2}
    with one_thread():
        assert set(_threads()) == {1}
        with one_thread():  # a block inside a block
            assert set(_threads()) == {1}
        assert set(_threads()) == {1}
    assert set(_threads()) == {2}


@pytest.mark.usefixtures("two_threads")
def test_set_back_after_an_error() -> None:
    with pytest.raises(RuntimeError), one_thread():
        raise RuntimeError("a failed product")
    assert set(_threads()) == {2}


@pytest.mark.usefixtures("two_threads")
def test_searches_side_by_side_each_compute_on_one_thread() -> None:
    matrix = np.ones((256, 2000), dtype=np.float32)
    seen: list[list[int]] = []
    results: list[float] = []
    start = threading.Barrier(4)

    def search() -> None:
        start.wait()
        for _ in range(50):
            with one_thread():
                seen.append(_threads())
                results.append(float((np.ones(256, dtype=np.float32) @ matrix)[0]))

    workers = [threading.Thread(target=search) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(seen) == 200
    assert all(set(threads) == {1} for threads in seen)
    assert set(results) == {256.0}
    assert set(_threads()) == {2}  # and no thread kept BLAS on one thread


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork: POSIX only")
def test_a_process_forked_inside_a_block_can_search() -> None:
    inside = threading.Event()
    leave = threading.Event()

    def hold() -> None:
        with one_thread():
            inside.set()
            leave.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    inside.wait(10)
    try:
        child = os.fork()
        if child == 0:  # the child: a search's product, then out
            code = 1
            try:
                with one_thread():
                    np.ones((64, 64), dtype=np.float32) @ np.ones(64, dtype=np.float32)
                code = 0
            finally:
                os._exit(code)
        deadline = time.monotonic() + 20
        while True:
            done, status = os.waitpid(child, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(child, signal.SIGKILL)
                os.waitpid(child, 0)
                pytest.fail("the forked process waited forever for the BLAS lock")
            time.sleep(0.01)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        leave.set()
        holder.join()


def test_a_block_that_raises_gives_the_lock_and_the_threads_back() -> None:
    from toolscout.blas import _lock, one_thread

    controller = ThreadpoolController().select(user_api="blas")
    before = [lib.get_num_threads() for lib in controller.lib_controllers]
    with pytest.raises(KeyError), one_thread():
        with one_thread():  # a block inside a block of the same thread
            pass
        raise KeyError("x")
    assert [lib.get_num_threads() for lib in controller.lib_controllers] == before
    taken: list[bool] = []

    def take() -> None:  # another thread: an RLock is always free to its holder
        taken.append(_lock.acquire(blocking=False))
        if taken[0]:
            _lock.release()

    other = threading.Thread(target=take)
    other.start()
    other.join()
    assert taken == [True]
