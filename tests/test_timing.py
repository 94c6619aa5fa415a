"""The book's one clock, attention_core.timing.cpu_time (chapters 2, 4-7 and 10)."""

import itertools
import threading
import time

import attention_core.timing as timing


def test_at_least_one_call_when_the_clock_jumps(monkeypatch):
    """A clock that passes ``at_least`` before the first call is no division by zero: the
    function is still called and timed."""
    ticks = itertools.chain([0.0, 1.0], itertools.count(2.0, 0.001))   # jumps by 1 s first
    jumping = lambda: next(ticks)  # noqa: E731
    monkeypatch.setattr(timing.time, "thread_time", jumping)
    monkeypatch.setattr(timing.time, "process_time", jumping)
    calls = []
    seconds = timing.cpu_time(lambda: calls.append(1), repeats=2, at_least=0.005)
    assert len(calls) == 1 + 2 and seconds > 0


def busy_for(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_other_threads_of_the_process_are_not_counted():
    """A background thread burning CPU (as the sliders' frame thread does) while a call of
    ~20 ms is timed: the result stays near 20 ms, not near the two threads' sum."""
    stop = threading.Event()

    def burn():
        while not stop.is_set():
            sum(range(1000))

    alone = timing.cpu_time(lambda: busy_for(0.02), repeats=2)
    worker = threading.Thread(target=burn, daemon=True)
    worker.start()
    try:
        beside = timing.cpu_time(lambda: busy_for(0.02), repeats=2)
    finally:
        stop.set()
        worker.join()
    assert 0.015 < alone < 0.03
    assert 0.015 < beside < 0.03


def test_one_thread_says_whether_it_could_limit():
    with timing.one_thread() as limited:
        assert limited is True   # threadpoolctl is installed with the book
