"""Timing on a noisy machine: interleave what is measured with its reference, take medians."""

import gc
import statistics
import time


def interleaved(functions, budget=1.0, min_repeats=7, max_repeats=300, statistic="median"):
    """Seconds of one call of each function, calling them in turn (a, b, a, b, ...).

    Interleaving makes a slow spell of the machine hit all of them alike, so their ratio
    holds even when the absolute times wander. Each function is called once first to warm
    up; then rounds go on until ``budget`` seconds have passed (at least ``min_repeats``).
    ``statistic`` is ``"median"`` or ``"min"``: the best of the calls, the one least disturbed
    by other programs, which makes the ratio of two computations the most repeatable when
    the machine is shared.
    """
    if statistic not in ("median", "min"):
        raise ValueError(f"interleaved: statistic must be 'median' or 'min', not {statistic!r}")
    for f in functions:
        f()
    samples = [[] for _ in functions]
    started = time.perf_counter()
    enabled = gc.isenabled()
    gc.disable()
    try:
        rounds = 0
        while rounds < max_repeats and (rounds < min_repeats
                                        or time.perf_counter() - started < budget):
            for f, times in zip(functions, samples, strict=True):
                t0 = time.perf_counter()
                f()
                times.append(time.perf_counter() - t0)
            rounds += 1
    finally:
        if enabled:
            gc.enable()
    pick = statistics.median if statistic == "median" else min
    return [pick(times) for times in samples]
