"""The one table the benchmarks print, as a Markdown pipe table (so it pastes into the README)."""

from dataclasses import asdict, dataclass

#: The columns of the table, in order, with their headers.
COLUMNS = {
    "section": "Benchmark",
    "case": "Case",
    "time": "Time",
    "reference": "Reference",
    "ratio": "Ratio",
    "target": "Target",
    "met": "Met",
}


@dataclass
class Row:
    """One line of the table; every field is already text (or None for an empty cell)."""

    section: str
    case: str
    time: str | None = None
    reference: str | None = None
    ratio: str | None = None
    target: str | None = None
    met: str | None = None

    def as_dict(self):
        return asdict(self)


def ms(seconds):
    """``0.01234`` -> ``"12.3 ms"`` (three significant figures, or whole milliseconds)."""
    value = seconds * 1e3
    if value >= 100:
        return f"{value:.0f} ms"
    if value >= 10:
        return f"{value:.1f} ms"
    return f"{value:.2f} ms"


def seconds_text(seconds):
    return f"{seconds:.1f} s"


def verdict(ok):
    """``True`` -> ``"yes"``, ``False`` -> ``"NO"``, ``None`` -> empty."""
    return None if ok is None else ("yes" if ok else "NO")


def normalise(row, section=None):
    """A row from any section as a dict of text cells with exactly the keys of ``COLUMNS``.

    Accepts a :class:`Row`, a dict (extra keys are ignored; ``name``/``value``/``note`` are
    taken as ``case``/``time``/``target`` when those are missing), or a sequence of cells in
    the order of ``COLUMNS`` (without the section if it is shorter by one).
    """
    if isinstance(row, Row):
        cells = row.as_dict()
    elif isinstance(row, dict):
        cells = {key: row.get(key) for key in COLUMNS}
        for alias, key in (("name", "case"), ("value", "time"), ("note", "target"),
                           ("ok", "met")):
            if cells[key] is None and row.get(alias) is not None:
                cells[key] = row[alias]
    else:
        values = list(row)
        keys = list(COLUMNS)
        if len(values) < len(keys) and section is not None:
            keys = keys[1:]
        cells = dict.fromkeys(COLUMNS)
        cells.update(zip(keys, values, strict=False))
    if cells.get("section") is None:
        cells["section"] = section
    if isinstance(cells.get("met"), bool):
        cells["met"] = verdict(cells["met"])
    return {key: "" if cells.get(key) is None else str(cells[key]) for key in COLUMNS}


def render(rows):
    """The rows (dicts from :func:`normalise`) as an aligned Markdown pipe table."""
    header = list(COLUMNS.values())
    body = [[row[key] for key in COLUMNS] for row in rows]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    right = {2, 3, 4}  # numbers align right

    def line(cells):
        parts = [cell.rjust(w) if i in right else cell.ljust(w)
                 for i, (cell, w) in enumerate(zip(cells, widths, strict=True))]
        return "| " + " | ".join(parts) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if i in right else "-" * (w + 2)
                          for i, w in enumerate(widths)) + "|"
    return "\n".join([line(header), rule, *(line(cells) for cells in body)])


__all__ = ["COLUMNS", "Row", "ms", "normalise", "render", "seconds_text", "verdict"]
