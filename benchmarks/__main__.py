"""``python -m benchmarks [--only NAME ...]``: measure, then print the machine and one table.

Sections, in order (``--only`` takes these names, several times or comma-separated):

* ``self_attention``   - 1: ``self_attention`` against its bare matrix products;
* ``multi_head``       - 2: ``multi_head_attention`` against its products and PyTorch;
* ``toy_training``     - 3: training steps per second of chapter 2's models
  (``benchmarks/toy_training.py``);
* ``transformer_training`` - 3b: a training step of chapter 9's small transformer against
  the same model in PyTorch (``benchmarks/transformer_training.py``);
* ``sliders``          - 4: one uncached move of every slider of every chapter;
* ``book``             - 5: cold strict build of the book (and where its time goes), a rebuild
  with nothing changed, and what each chapter's first load transfers at 390 and 1 280 px;
* ``jupyterlab``       - 6: JupyterLab, Run All to a new figure under each chapter's first
  slider, against a reference notebook (``benchmarks/jupyterlab.py``);
* ``blocked``          - 7: peak memory and time of ``blocked_attention`` against
  ``self_attention`` (``benchmarks/blocked.py``).

Progress goes to stderr, the table (Markdown) to stdout.
"""

import argparse
import datetime
import importlib
import os
import sys
import time

from .machine import describe
from .table import Row, normalise, render, verdict

TOY_SECTION = "3 toy training (ch. 2)"


def _self_attention():
    from .attention import self_attention_rows
    return self_attention_rows()


def _multi_head():
    from .attention import multi_head_rows
    return multi_head_rows()


def _toy_training():
    """Rows of ``benchmarks/toy_training.py`` (written separately), shaped for this table."""
    try:
        toy = importlib.import_module("benchmarks.toy_training")
    except ModuleNotFoundError as error:
        if error.name not in ("benchmarks.toy_training", "attention_core.toy_task"):
            raise
        return [Row(TOY_SECTION, "benchmarks/toy_training.py not present yet")]
    return toy_rows(toy.run())


def toy_rows(raw):
    """Turn the toy benchmark's rows (dicts with ``steps_per_second``) into table rows.

    NumPy's attention model is set against PyTorch's at the same dtype (float64) and thread
    count: the target is NumPy at least as fast. Rows already in this table's shape pass.
    """
    rows = []
    reference = {}
    for row in raw:
        if isinstance(row, dict) and "steps_per_second" in row:
            if str(row.get("framework", "")).startswith("PyTorch") and row["steps_per_second"]:
                reference[(row.get("model"), row.get("dtype"), row.get("threads"))] = row
    for row in raw:
        if not (isinstance(row, dict) and "steps_per_second" in row):
            cells = normalise(row, section=TOY_SECTION)
            cells["section"] = TOY_SECTION
            rows.append(cells)
            continue
        threads = row.get("threads")
        case = (f"{row.get('framework')} {row.get('model')} ({row.get('dtype') or '-'}, "
                f"batch {row.get('batch')}, {threads} thread{'s' if threads != 1 else ''})")
        speed = row["steps_per_second"]
        if speed is None:
            rows.append(Row(TOY_SECTION, case, None, row.get("note") or "not measured"))
            continue
        line = Row(TOY_SECTION, case, f"{speed:,.0f} steps/s")
        torch_row = reference.get((row.get("model"), row.get("dtype"), threads))
        if row.get("framework") == "NumPy" and torch_row is not None:
            torch_speed = torch_row["steps_per_second"]
            line.reference = f"{torch_speed:,.0f} steps/s (PyTorch)"
            line.ratio = f"{speed / torch_speed:.2f}"
            line.target = ">= 1 x PyTorch"
            line.met = verdict(speed >= torch_speed)
        elif row.get("framework") == "NumPy" and row.get("model") == "attention":
            line.reference = "PyTorch not installed"
        rows.append(line)
    return rows


def _transformer_training():
    from .transformer_training import run
    return run()


def _sliders():
    from .sliders import rows
    return rows()


def _book():
    from .book import rows
    return rows()


def _blocked():
    from .blocked import rows
    return rows()


def _jupyterlab():
    from .jupyterlab import rows
    return rows()


SECTIONS = {
    "self_attention": _self_attention,
    "multi_head": _multi_head,
    "toy_training": _toy_training,
    "transformer_training": _transformer_training,
    "sliders": _sliders,
    "book": _book,
    "blocked": _blocked,
    "jupyterlab": _jupyterlab,
}


def parse(argv):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Measure the book's speed side by side with its references; print a table.")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="run only this section (repeatable or comma-separated); "
                             f"known: {', '.join(SECTIONS)}")
    args = parser.parse_args(argv)
    chosen = list(SECTIONS)
    if args.only:
        chosen = [name.strip() for value in args.only for name in value.split(",") if name.strip()]
        unknown = [name for name in chosen if name not in SECTIONS]
        if unknown:
            names = ", ".join(map(repr, unknown))
            parser.exit(2, f"python -m benchmarks: unknown benchmark {names}; "
                           f"known: {', '.join(SECTIONS)}\n")
    return chosen


def main(argv=None):
    chosen = parse(sys.argv[1:] if argv is None else argv)
    started = time.perf_counter()
    load_before = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    rows = []
    for name in chosen:
        print(f"benchmarks: {name} ...", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        for row in SECTIONS[name]():
            rows.append(normalise(row))
        print(f"benchmarks: {name} took {time.perf_counter() - t0:.1f} s", file=sys.stderr,
              flush=True)
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"Benchmarks of Mechanismus pozornosti, {now}")
    for key, value in describe():
        print(f"- {key}: {value}")
    if load_before is not None:
        print(f"- Load: 1-minute load average {load_before:.1f} at the start, "
              f"{os.getloadavg()[0]:.1f} at the end (on {os.cpu_count()} cores; more than "
              "that means other programs competed for the processor)")
    print()
    print(render(rows))
    print()
    print(f"Total time {time.perf_counter() - started:.0f} s.")


if __name__ == "__main__":
    main()
