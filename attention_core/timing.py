"""Timing on this machine, for the chapters that measure (chapters 2, 4, 5, 6, 7 and 10)."""

import time
from contextlib import contextmanager


def cpu_time(func, repeats=3, at_least=0.005):
    """The shortest CPU time in seconds of one call ``func()``, over ``repeats`` rounds.

    CPU time, not wall-clock time: other programs on a shared machine inflate it far less.
    It is the CPU time of the calling thread alone (``time.thread_time``), with NumPy's
    matrix products held to that one thread (:func:`one_thread`), so that work of the
    process's other threads (a slider's frames drawn in the background, say) is not counted.
    Where the products cannot be held to one thread (no ``threadpoolctl``), the whole
    process's CPU time is taken instead (``time.process_time``). Calls shorter than
    ``at_least`` seconds are repeated within a round until the round lasts that long, and
    the round's time is divided by the number of calls, so the clock's resolution does not
    dominate.
    """
    with one_thread() as limited:
        clock = time.thread_time if limited else time.process_time
        calls, start = 0, clock()
        # at least one call, whatever the clock did meanwhile
        while calls == 0 or clock() - start < at_least:
            func()
            calls += 1
        best = float("inf")
        for _ in range(repeats):
            start = clock()
            for _ in range(calls):
                func()
            best = min(best, (clock() - start) / calls)
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
