"""The chapters that measure time stay correct on a slow, noisy machine (issue 10).

The book has one clock, ``attention_core.timing.cpu_time``, and its interleaved form for several
functions, ``cpu_times``. Every chapter whose code uses them (found by reading the chapters, not
listed here) is executed with both replaced by clocks that return 3 x the real measurement x
log-normal noise (sigma = 0.3), drawn anew for every time returned, once per seed. The
chapter must run without an error or a write to stderr (so no assertion on a timing can be
broken by such a clock), must really have called the replaced clock, and must glue every
value its prose pastes (the sentences about a measurement are chosen from the measurement).

The replacement is a code cell put before the chapter's first cell; the package has no
hook for tests.
"""

import re

import jupytext
import pytest

from chapters import chapter_paths, execute

SEEDS = [1, 2, 3]

NOISY_CLOCK = '''
import numpy as _np
import attention_core.timing as _timing

_real_cpu_time, _real_cpu_times = _timing.cpu_time, _timing.cpu_times
_noise = _np.random.default_rng({seed})
_noisy_calls = []


def _noisy_cpu_time(*args, **kwargs):
    """3 x the real CPU time x log-normal noise (sigma = 0.3): a slow, busy machine."""
    _noisy_calls.append(1)
    return 3 * _real_cpu_time(*args, **kwargs) * _noise.lognormal(0.0, 0.3)


def _noisy_cpu_times(*args, **kwargs):
    """The same for each of the functions, each with its own noise."""
    _noisy_calls.append(1)
    times = _real_cpu_times(*args, **kwargs)
    return [3 * t * _noise.lognormal(0.0, 0.3) for t in times]


_timing.cpu_time = _noisy_cpu_time
_timing.cpu_times = _noisy_cpu_times
'''

REPORT = 'print("NOISY_CLOCK_CALLS", len(_noisy_calls))'


def uses_the_clock(path):
    """True if a code cell of the chapter at ``path`` mentions ``cpu_time`` (or ``cpu_times``)."""
    nb = jupytext.read(path)
    return any(cell.cell_type == "code" and "cpu_time" in cell.source for cell in nb.cells)


TIMED = [path for path in chapter_paths() if uses_the_clock(path)]
CASES = [(path, seed) for path in TIMED for seed in SEEDS]


def test_the_chapters_that_measure_are_found():
    assert TIMED, "no chapter uses attention_core.timing.cpu_time"


def glued_names(nb):
    names = set()
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                names.add(name)
    return names


@pytest.mark.parametrize(("path", "seed"), CASES,
                         ids=[f"{path.stem}-seed{seed}" for path, seed in CASES])
def test_chapter_runs_with_a_slow_noisy_clock(path, seed):
    nb = execute(path, setup_code=NOISY_CLOCK.format(seed=seed), extra_code=REPORT)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", (
                f"{path.name}, seed {seed}: {output.get('ename')}: {output.get('evalue')}")
            assert output.get("name") != "stderr", (
                f"{path.name}, seed {seed} wrote to stderr: {output['text'][:500]}")
    report = "".join(output.get("text", "") for output in nb.cells[-1].outputs)
    calls = int(re.search(r"NOISY_CLOCK_CALLS (\d+)", report).group(1))
    assert calls > 0, f"{path.name} did not call the replaced clock"
    pasted = set()
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            pasted |= set(re.findall(r"\{glue(?::\w+)?\}`([\w.-]+)`", cell.source))
    missing = pasted - glued_names(nb)
    assert not missing, f"{path.name}, seed {seed}: nothing glued for {sorted(missing)}"
