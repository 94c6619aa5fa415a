"""Timing on this machine, for the chapters that measure (chapters 2, 4, 5, 6, 7, 9 and 10)."""

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
    return _shortest([func], repeats, at_least)[0]


def cpu_times(functions, repeats=3, at_least=0.005):
    """The shortest CPU time in seconds of one call of each of ``functions`` (a list).

    As :func:`cpu_time` for each function, but the rounds are interleaved: round 1 times
    every function in turn, then round 2 does, and so on. A slow spell of a shared machine
    (another program filling the cache, the processor clocked down) then falls on all of
    them alike instead of on a few neighbouring ones, so the times of the rows of one table
    are comparable (chapter 10 compares a recurrent layer with self-attention this way).
    """
    return _shortest(list(functions), repeats, at_least)


def _shortest(functions, repeats, at_least):
    """The best per-call time of each function over ``repeats`` interleaved rounds."""
    with one_thread() as limited:
        clock = time.thread_time if limited else time.process_time
        calls = []
        for func in functions:
            count, start = 0, clock()
            # at least one call, whatever the clock did meanwhile
            while count == 0 or clock() - start < at_least:
                func()
                count += 1
            calls.append(count)
        best = [float("inf")] * len(functions)
        for _ in range(repeats):
            for index, (func, count) in enumerate(zip(functions, calls)):
                start = clock()
                for _ in range(count):
                    func()
                best[index] = min(best[index], (clock() - start) / count)
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
