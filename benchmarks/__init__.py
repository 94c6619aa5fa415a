"""Benchmarks of the book: ``python -m benchmarks`` prints one table (see ``__main__``).

These machines are noisy, so every measurement is a ratio against a reference timed in the
same run, interleaved with it: ``self_attention`` against the bare matrix products it must do,
``multi_head_attention`` against its products and against PyTorch, each slider move against its
budget, the book's builds against theirs.

A section is a module with ``run()`` returning a list of rows. A row is a dict with the keys
of :data:`benchmarks.table.COLUMNS` (missing keys print as empty cells); see
:class:`benchmarks.table.Row`.
"""

from pathlib import Path

#: The repository: benchmarks/ sits in it, beside book/ and tests/.
ROOT = Path(__file__).resolve().parents[1]
