"""The book's one clock, attention_core.timing.cpu_time (chapters 2, 4-7 and 10)."""

import itertools

import attention_core.timing as timing


def test_at_least_one_call_when_the_clock_jumps(monkeypatch):
    """The process's CPU clock counts every thread: it may pass ``at_least`` before the first
    call (a BLAS thread spinning, frames drawn in the background). That is no division by
    zero: the function is still called and timed."""
    ticks = itertools.chain([0.0, 1.0], itertools.count(2.0, 0.001))   # jumps by 1 s first
    monkeypatch.setattr(timing.time, "process_time", lambda: next(ticks))
    calls = []
    seconds = timing.cpu_time(lambda: calls.append(1), repeats=2, at_least=0.005)
    assert len(calls) == 1 + 2 and seconds > 0

