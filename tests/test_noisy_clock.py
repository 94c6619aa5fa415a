"""The chapters that measure time stay correct on a slow, noisy machine (issue 10).

The book has one clock, ``attention_core.timing.cpu_time``, and its interleaved form for several
functions, ``cpu_times``. Every chapter whose code uses them (found by reading the chapters, not
listed here) is executed with both replaced by clocks that return 3 x the real measurement x
log-normal noise (sigma = 0.3), drawn anew for every time returned, once per seed. The
chapter must run without an error or a write to stderr (so no assertion on a timing can be
broken by such a clock), must really have called the replaced clock, and must glue every
value its prose pastes (the sentences about a measurement are chosen from the measurement).

The replacement is a code cell put before the chapter's first cell; the package has no
hook for tests. The runs are ``conftest.live_runs``, executed side by side in one go (the
first seed's also moves the chapter's sliders, for ``test_notebooks.py``).
"""

import re

import pytest

from chapters import NOISY_SEEDS, TIMED


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


CASES = [(path, seed) for path in TIMED for seed in NOISY_SEEDS]


@pytest.mark.parametrize(("path", "seed"), CASES,
                         ids=[f"{path.stem}-seed{seed}" for path, seed in CASES])
def test_chapter_runs_with_a_slow_noisy_clock(live_runs, path, seed):
    nb = live_runs.get((path, seed))
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
            pasted |= set(re.findall(r"\{(?:glue(?::\w+)?|eval)\}`([\w.-]+)`", cell.source))
    missing = pasted - glued_names(nb)
    assert not missing, f"{path.name}, seed {seed}: nothing glued for {sorted(missing)}"
