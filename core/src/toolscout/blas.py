"""A search's matrix products on one BLAS thread (`one_thread`).

numpy's BLAS (OpenBLAS, MKL, ...) spreads a matrix-vector product over every core, and its
threads spin while they wait for each other. A search's products are small (a set's vectors:
a few MB at most) and a server runs searches side by side, so the extra threads only wait:
with another process busy on a 2-core machine, one query vector against BFCL's 1,853 x 256
tool vectors took 6 ms on two threads and 35 µs on one.

So a search's products run inside `one_thread()`, one block at a time in the process: BLAS is
set to one thread, and set back when the block ends, by the same thread (threadpoolctl lets
one thread at a time set OpenBLAS's process-wide count; the block gives that control back).
Another thread of the process using BLAS meanwhile runs on one thread too, for those
microseconds. The libraries are found by threadpoolctl, once.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["one_thread"]

_lock = threading.RLock()  # a block inside a block of the same thread
_libraries: list[Any] | None = None


def _new_lock() -> None:
    """A child process starts with a free lock: a fork in the middle of another thread's
    block would leave the child's copy held forever (and BLAS on one thread, harmlessly)."""
    global _lock
    _lock = threading.RLock()


if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
    os.register_at_fork(after_in_child=_new_lock)


def _blas() -> list[Any]:
    """The BLAS libraries loaded in the process (found once, numpy's among them)."""
    global _libraries
    if _libraries is None:
        import numpy  # noqa: F401  # loads numpy's BLAS, so that it is found

        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # numpy installed without toolscout[vectors]: BLAS as it is
            _libraries = []
        else:
            found = ThreadpoolController().select(user_api="blas")
            _libraries = list(found.lib_controllers)
    return _libraries


@contextmanager
def one_thread() -> Iterator[None]:
    """BLAS on one thread while the block runs (see the module docstring)."""
    with _lock:
        saved = []
        for library in _blas():
            threads = library.get_num_threads()
            if threads is not None and threads > 1:
                library.set_num_threads(1)
                saved.append((library, threads))
        try:
            yield
        finally:
            for library, threads in saved:
                library.set_num_threads(threads)
                release = getattr(library, "clear_controlling_thread", None)
                if release is not None:
                    release()  # only if this thread holds it
