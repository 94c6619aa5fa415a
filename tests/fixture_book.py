"""A two-page fixture book (tests/fixtures/*.md) built once per test run with the book's own
_config.yml, _ext and _static, for the hidden-solutions and link-preview tests. Not a test
module itself."""

import atexit
import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from chapters import BOOK, ROOT, sphinx_warnings

FIXTURES = ROOT / "tests" / "fixtures"

#: The published address the fixture book is built for (link previews).
FIXTURE_BASE_URL = "https://example.org/mechanismus-pozornosti/"


@functools.cache
def build_fixture_book():
    """Build the fixture book strictly (its code cells, solutions' included, run as in the
    book) with ``BOOK_BASE_URL`` set; return its HTML folder."""
    work = Path(tempfile.mkdtemp(prefix="fixture-book-"))
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    source = work / "book"
    source.mkdir()
    for name in ("_config.yml", "references.bib"):
        shutil.copy(BOOK / name, source / name)
    for folder in ("_ext", "_static"):
        if (BOOK / folder).is_dir():
            shutil.copytree(BOOK / folder, source / folder,
                            ignore=shutil.ignore_patterns("__pycache__"))
    for page in FIXTURES.glob("*.md"):
        shutil.copy(page, source / page.name)
    (source / "_toc.yml").write_text("format: jb-book\nroot: cviceni\nchapters:\n"
                                     "  - file: prozrazene\n", encoding="utf-8")
    env = {**os.environ, "BOOK_BASE_URL": FIXTURE_BASE_URL}
    result = subprocess.run(["jupyter-book", "build", "-W", "-n", "--keep-going", str(source)],
                            capture_output=True, text=True, cwd=ROOT, timeout=600, env=env)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-6000:]
    warnings = sphinx_warnings(log)
    assert not warnings, "\n".join(warnings)
    return source / "_build" / "html"
