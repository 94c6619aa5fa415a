"""Section 4: how long one slider move takes, uncached, for every slider of every chapter.

Each chapter of ``book/_toc.yml`` is run in a fresh Python process, one per chapter as a
kernel would be: its code cells in order, in an IPython shell, with ``book/`` as the working
folder, as in JupyterLab (the HTML book's full pre-render is section 5's). Then every slider
of every ``explore`` of the chapter moves 20 times through its grid, the others staying at
their start. One move is what a live notebook does when a reader drags a slider to a value
not seen before: ``Explorer.frame`` with that frame dropped from its cache, i.e.
``draw(**values)``, drawn by the explore's ``figures.Painter`` (first layout reused, each
unchanged axis pasted) at 2 pixels per CSS pixel, and its PNG. (Meanwhile the browser shows
the nearest frame drawn so far; a frame already drawn it shows at once, without the kernel,
see ``attention_display.interactive``.) The same moves are then replayed with the live slider
widgets, from the cache: the kernel's part of a move to a drawn frame. And for each explore:
how long after it is shown the background thread has drawn the start's neighbours (one step
on each slider), the frames a reader's first move reaches.

Reported: the median and the worst of the 20 moves per slider in CPU time of the thread,
which other programs running on this shared machine do not inflate (the wall-clock median
is shown beside it), and the ratio to a reference timed in the same run: the simplest
slider figure (one panel in the book's style, one line) drawn by matplotlib the plain way
(a new canvas, a full draw) at the same density, with the same PNG encoder. The target is
a median of 50 ms for one panel and 100 ms for four (in between: linear in the panels).
"""

import contextlib
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from . import ROOT
from .table import Row, ms, verdict

MOVES = 20
MEDIAN_TARGET = 0.050  # one panel
FOUR_PANEL_TARGET = 0.100
SECTION = "4 sliders"


def median_target(panels):
    """50 ms for one panel, 100 ms for four, linear in between (and beyond: 100 ms)."""
    share = (min(panels, 4) - 1) / 3
    return MEDIAN_TARGET + share * (FOUR_PANEL_TARGET - MEDIAN_TARGET)


def target_text(panels=1, clock="CPU"):
    return f"med <= {median_target(panels) * 1e3:.0f} ms ({clock})"


def chapter_paths():
    """The chapters of ``book/_toc.yml`` (the same list the notebook tests use)."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from chapters import chapter_paths as paths
    finally:
        sys.path.remove(str(ROOT / "tests"))
    return paths()


def walk(size, moves=MOVES):
    """Grid indices to visit: back and forth over the grid, never the same one twice in a row."""
    if size == 1:
        return [0] * moves
    cycle = list(range(size)) + list(range(size - 2, 0, -1))
    return [cycle[(k + 1) % len(cycle)] for k in range(moves)]


def run_chapter(path):
    """Run the chapter's code cells here; return the ``Explorer`` objects it made."""
    import jupytext
    from IPython.core.interactiveshell import InteractiveShell

    from attention_display.interactive import explorers

    shell = InteractiveShell.instance()
    shell.reset(new_session=False)
    before = len(explorers())
    notebook = jupytext.read(path)
    here = os.getcwd()
    os.chdir(path.parent)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            for number, cell in enumerate(notebook.cells, start=1):
                if cell.cell_type != "code":
                    continue
                result = shell.run_cell(cell.source, silent=True, store_history=False)
                if not result.success:
                    error = result.error_in_exec or result.error_before_exec
                    raise RuntimeError(f"cell {number}: {type(error).__name__}: {error}")
    finally:
        os.chdir(here)
    return explorers()[before:]


def time_moves(explorer, index):
    """Wall-clock and CPU seconds of MOVES uncached moves of the explorer's slider ``index``.

    The frames made stay in the explorer's cache, so that :func:`time_cached_moves` can
    replay the same moves from it.
    """
    from attention_display.interactive import wait_for_frames

    spec = list(explorer.specs.values())[index]
    start = list(explorer._start())
    wall, cpu = [], []
    for i in walk(len(spec.values)):
        indices = list(start)
        indices[index] = i
        explorer._cache.pop(tuple(indices), None)
        wait_for_frames()  # no frame drawn in the background meanwhile
        t0, c0 = time.perf_counter(), time.thread_time()
        explorer.frame(tuple(indices))
        wall.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
    return wall, cpu


def time_cached_moves(explorer, index):
    """Wall-clock seconds of the same moves made with the live slider, served from the cache.

    The kernel's part of a move to a frame drawn before (the browser has switched the image
    already): the frame is kept, so the move only puts its Image widget in place and asks
    the background thread for its neighbours (drawn between the moves, not timed).
    """
    from attention_display.interactive import wait_for_frames

    name, spec = list(explorer.specs.items())[index]
    control = explorer.sliders[name]
    start = control.value
    wall = []
    for i in walk(len(spec.values)):
        wait_for_frames()
        t0 = time.perf_counter()
        control.value = spec.values[i]
        wall.append(time.perf_counter() - t0)
    control.value = start
    wait_for_frames()
    return wall


def time_neighbours(explorer):
    """Wall-clock seconds from showing the explore (its widget built, the start frame drawn
    already) until the background thread has drawn the start's neighbours; their count."""
    from attention_display.interactive import wait_for_frames

    t0 = time.perf_counter()
    explorer.widget  # noqa: B018 - built as when the cell's output is shown
    wait_for_frames()
    return time.perf_counter() - t0, len(explorer._images) - 1


def median_and_worst(times):
    ordered = sorted(times)
    half = len(ordered) // 2
    median = ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2
    return median, ordered[-1]


def floor_move():
    """One move of the simplest slider figure: one panel of the book's style, one line,
    drawn the plain way at 2 pixels per CSS pixel, encoded like a live frame."""
    import numpy as np

    from attention_display import figures
    from attention_display.style import new_figure

    x = np.linspace(0, 1, 50)
    fig, ax = new_figure()
    ax.plot(x, x ** 2)
    ax.set(title="titulek", xlabel="x", ylabel="y")
    figures.png(figures.draw_rgba(fig), compact=False)


def floor_times():
    floor_move()
    cpu = []
    for _ in range(MOVES):
        c0 = time.thread_time()
        floor_move()
        cpu.append(time.thread_time() - c0)
    return median_and_worst(cpu)


def floor_rows():
    """The reference row (the one-panel figure) and its median CPU seconds."""
    floor, floor_worst = floor_times()
    row = Row(SECTION, "reference: a one-panel figure in the book's style (new_figure, one "
              "line, title, labels) drawn in full at 2x and made a PNG", f"med {ms(floor)}, "
              f"max {ms(floor_worst)}", None, None, target_text(),
              verdict(floor <= MEDIAN_TARGET))
    return [row], floor


def chapter_rows(path, floor):
    """Rows of one chapter: run its code here, then time every slider's moves."""
    started = time.perf_counter()
    try:
        made = run_chapter(path)
    except Exception as error:  # noqa: BLE001 - a broken chapter is a row, not a crash
        return [Row(SECTION, f"{path.stem}: failed to run ({str(error)[:90]})", met="NO")]
    ran = time.perf_counter() - started
    frames = sum(_frames(ex) for ex in made)
    result = [Row(SECTION, f"{path.stem}: code run, as in JupyterLab ({len(made)} explore, "
                  f"start frames only; {frames} frames for the HTML book)", f"{ran:.1f} s")]
    cached = []
    for k, explorer in enumerate(made, start=1):
        seconds, count = time_neighbours(explorer)
        result.append(Row(
            SECTION, f"{path.stem}: explore {k}, shown: the start's {count} neighbours drawn "
            "in the background (the frames a first move reaches, switched in the browser)",
            f"{ms(seconds)} (wall)"))
        for index, spec in enumerate(explorer.specs.values()):
            wall, cpu = time_moves(explorer, index)
            cached += time_cached_moves(explorer, index)
            (w_med, _), (c_med, c_max) = median_and_worst(wall), median_and_worst(cpu)
            panels = count_panels(explorer)
            result.append(Row(
                SECTION, f"{path.stem}: explore {k}, slider {spec.label} "
                f"({len(spec.values)} values, {panels} panel{'s' if panels > 1 else ''}; "
                f"wall med {ms(w_med)})",
                f"med {ms(c_med)}, max {ms(c_max)}", f"{ms(floor)} (one panel)",
                f"{c_med / floor:.1f}", target_text(panels),
                verdict(c_med <= median_target(panels))))
    if cached:
        c_med, c_max = median_and_worst(cached)
        result.append(Row(
            SECTION, f"{path.stem}: the same moves with the live sliders, frames kept (the "
            "kernel's part; the browser switches a drawn frame itself)", f"med {ms(c_med)}, "
            f"max {ms(c_max)}", None, None, target_text(clock="wall"),
            verdict(c_med <= MEDIAN_TARGET)))
    return result


def _in_child(*args):
    """Run ``python -m benchmarks.sliders ARGS`` in a fresh interpreter; return its rows.

    A fresh process per chapter is what a kernel is: its heap holds one chapter, not the
    other sections' libraries (PyTorch), which would lengthen Python's full garbage
    collections and so the worst moves.
    """
    result = subprocess.run([sys.executable, "-m", "benchmarks.sliders", *map(str, args)],
                            capture_output=True, text=True, cwd=ROOT)
    for line in result.stdout.splitlines():
        if line.startswith("ROWS "):
            return json.loads(line.removeprefix("ROWS "))
    tail = (result.stderr.strip().splitlines() or ["no output"])[-1]
    return {"rows": [Row(SECTION, f"{args[-1]}: failed ({tail[:90]})", met="NO").as_dict()]}


def rows():
    floor = _in_child("--floor")
    result = list(floor["rows"])
    for path in chapter_paths():
        if not path.exists():
            result.append(Row(SECTION, f"{path.stem}: not written yet"))
            continue
        result += _in_child("--floor-seconds", floor.get("floor", 0.04), path)["rows"]
    return result


def main(argv):
    """The child's side of :func:`_in_child`."""
    if argv[:1] == ["--floor"]:
        made, floor = floor_rows()
        report = {"rows": [row.as_dict() for row in made], "floor": floor}
    else:
        floor, path = float(argv[1]), Path(argv[2])
        report = {"rows": [row.as_dict() for row in chapter_rows(path, floor)]}
    print("ROWS " + json.dumps(report, ensure_ascii=False))


def count_panels(explorer):
    """The panels of the explore's figure (colorbars and twin axes are not panels)."""
    from attention_display import figures

    return len(figures._panels(explorer._draw(**explorer.values(explorer._start()))))


def _frames(explorer):
    count = 1
    for spec in explorer.specs.values():
        count *= len(spec.values)
    return count


if __name__ == "__main__":
    main(sys.argv[1:])
