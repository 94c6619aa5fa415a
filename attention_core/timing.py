"""Timing on this machine, for the chapters that measure (chapters 2, 4, 5, 6 and 7)."""

import time
from contextlib import contextmanager


def cpu_time(func, repeats=3, at_least=0.005):
    """The shortest CPU time in seconds of one call ``func()``, over ``repeats`` rounds.

    CPU time of this process (``time.process_time``), not wall-clock time: other programs
    on a shared machine inflate it far less. Calls shorter than ``at_least`` seconds are
    repeated within a round until the round lasts that long, and the round's time is
    divided by the number of calls, so the clock's resolution does not dominate.
    """
    calls, start = 0, time.process_time()
    # at least one call: the process's clock also counts its other threads (a BLAS thread
    # still spinning, a slider's frames drawn in the background), so on a busy machine it
    # can pass at_least before func has run at all
    while calls == 0 or time.process_time() - start < at_least:
        func()
        calls += 1
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(calls):
            func()
        best = min(best, (time.process_time() - start) / calls)
    return best


@contextmanager
def one_thread():
    """Run NumPy's matrix products on one thread inside the ``with`` block.

    The chapters time one thread, so that CPU time measures the work itself. The limit is
    set through ``threadpoolctl`` where it is installed (the book's build, most Jupyter
    installations); without it the block runs as it is, and yields False instead of True.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield False
        return
    with threadpool_limits(limits=1):
        yield True
