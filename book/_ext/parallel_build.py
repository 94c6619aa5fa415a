"""Read, and so execute, the book's pages on every core: ``jupyter-book build book/`` in
parallel without a flag.

Executing the chapters is most of a build (each one runs in its own kernel, one after
another by default), and Jupyter Book 1's command has no ``-j``. Sphinx reads pages in
parallel processes when ``app.parallel`` is above 1 and every extension declares itself
safe for it (all the book's do); this extension sets it to the number of cores this
process may use, at most :data:`MOST_JOBS`, or to ``$BOOK_JOBS`` (``BOOK_JOBS=1`` builds
one page at a time, as before).

Sphinx would hand each process a fixed slice of the pages in alphabetical order (on two
cores: chapters 1-6 to one, the rest to the other, which then waits). Here each process
takes one page at a time, the costliest first, so a core that is done takes the next:
pages are ordered by how long they took to read in the previous build (kept in the
environment), or, in a cold build, by the length of their code.

Three extensions Jupyter Book loads declare nothing, so Sphinx would read serially (with a
warning), and each is safe; the book declares them so (:data:`DECLARED_SAFE`):
sphinx-multitoc-numbering 0.1.3 only logs its version and replaces the method that
numbers the table of contents, which the main process runs after reading;
sphinx-mathjax-offline 0.0.2 only sets ``mathjax_path`` and copies MathJax after the
build; sphinx-jupyterbook-latex 1.0.0 changes each page's own nodes (the root page's
toctrees; the rest only for the LaTeX builder). None keeps anything per page. And
sphinx-proof 0.4.0 declares itself safe but its domain cannot merge what a process read
(Sphinx's default raises): the domain keeps nothing (sphinx-proof merges its list of proofs,
``env.proof_list``, itself), so its merge does nothing (:func:`_merge_nothing`).

The chapters that measure time measure CPU time (``attention_core.timing``), which two
kernels running side by side do not change.
"""

import os
import re
import time
from pathlib import Path

import sphinx.builders
from sphinx.domains import Domain
from sphinx.util import logging

logger = logging.getLogger(__name__)

JOBS_VARIABLE = "BOOK_JOBS"

#: The most pages read at once (each runs a kernel of its own).
MOST_JOBS = 4

#: Extensions that do not say whether they are safe for parallel reading, and are.
DECLARED_SAFE = ("sphinx_multitoc_numbering", "sphinx-mathjax-offline",
                 "sphinx_jupyterbook_latex")

_CODE_CELL = re.compile(r"^```\{code-cell\}.*?^```", re.MULTILINE | re.DOTALL)
_SPLIT_CHUNKS = sphinx.builders.make_chunks


def jobs():
    """How many pages to read at once: ``$BOOK_JOBS``, else the cores this process may
    use, at most MOST_JOBS."""
    value = os.environ.get(JOBS_VARIABLE, "").strip()
    if value:
        return max(1, int(value))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, MOST_JOBS))


def _merge_nothing(domain, docnames, otherdata):
    """A domain whose data is only its initial data: nothing to merge."""


def use_the_cores(app, config):
    if app.parallel <= 1:  # a -j given to Sphinx itself wins
        app.parallel = jobs()
    for name in DECLARED_SAFE:
        extension = app.extensions.get(name)
        if extension is not None and extension.parallel_read_safe is None:
            extension.parallel_read_safe = True
    proof = app.registry.domains.get("prf")
    if proof is not None and proof.merge_domaindata is Domain.merge_domaindata:
        proof.merge_domaindata = _merge_nothing


def _one_per_chunk(arguments, nproc, maxbatch=10):
    return [[argument] for argument in arguments]


def _estimate(app, docname):
    """Seconds a page took to read in the previous build, else the length of its code
    (only the order of the estimates matters)."""
    seconds = getattr(app.env, "book_read_seconds", {}).get(docname)
    if seconds is not None:
        return seconds
    path = Path(app.env.doc2path(docname))
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    return sum(len(cell) for cell in _CODE_CELL.findall(text)) / 1e5


def costliest_first(app, env, docnames):
    """Order the pages to read by their cost, and let each process take one at a time."""
    if app.parallel <= 1:
        return
    docnames.sort(key=lambda docname: -_estimate(app, docname))
    sphinx.builders.make_chunks = _one_per_chunk
    logger.info("parallel_build: %d pages, %d at a time", len(docnames), app.parallel)


def reading_done(app, env):
    sphinx.builders.make_chunks = _SPLIT_CHUNKS


def start_clock(app, docname, source):
    app.env.book_read_started = (docname, time.perf_counter())


def stop_clock(app, doctree):
    docname, started = getattr(app.env, "book_read_started", (None, 0.0))
    if docname == app.env.docname:
        if not hasattr(app.env, "book_read_seconds"):
            app.env.book_read_seconds = {}
        app.env.book_read_seconds[docname] = time.perf_counter() - started


def merge_clocks(app, env, docnames, other):
    seconds = getattr(other, "book_read_seconds", {})
    if not hasattr(env, "book_read_seconds"):
        env.book_read_seconds = {}
    env.book_read_seconds.update({d: seconds[d] for d in docnames if d in seconds})


def setup(app):
    app.connect("config-inited", use_the_cores)
    app.connect("env-before-read-docs", costliest_first)
    app.connect("env-updated", reading_done)
    app.connect("source-read", start_clock)
    app.connect("doctree-read", stop_clock)
    app.connect("env-merge-info", merge_clocks)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
