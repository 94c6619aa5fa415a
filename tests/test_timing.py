"""The book's clock, attention_core.timing.cpu_time (chapters 2, 4-7, 9 and 10), and cpu_times,
the same for several functions in interleaved rounds (chapter 10)."""

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


def test_cpu_times_interleaves_the_rounds():
    """Every round calls each function in turn (a, b, a, b, ...), after one calibration each;
    each result is that function's own time per call."""
    order = []
    times = timing.cpu_times([lambda: (order.append("a"), busy_for(0.006)),
                              lambda: (order.append("b"), busy_for(0.012))], repeats=3)
    assert order == ["a", "b"] * 4
    assert 0.005 < times[0] < 0.009 and 0.011 < times[1] < 0.016


def test_cpu_times_calibrates_each_function_once(monkeypatch):
    ticks = itertools.count(0.0, 0.001)
    monkeypatch.setattr(timing.time, "thread_time", lambda: next(ticks))
    calls = []
    seconds = timing.cpu_times([lambda: calls.append(1)], repeats=2, at_least=0.005)
    assert len(seconds) == 1 and seconds[0] > 0
    # a clock that ticks 1 ms per reading: five calls to last 5 ms, then two rounds of five
    assert len(calls) == 5 + 2 * 5
