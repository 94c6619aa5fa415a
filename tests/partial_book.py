"""Build a few pages of the book, for a quick look while writing them (not a test module).

    python tests/partial_book.py 08_masky_a_poradi [more pages ...] [--out DIR]

Copies ``book/`` (without ``_build``) to DIR (default: a fresh folder under /tmp), writes a
``_toc.yml`` with the title page, the given pages, the glossary and the literature (so that
``{term}`` and ``{cite}`` resolve), builds it with ``jupyter-book build`` (not strict: links
to pages left out warn) and prints the HTML folder. The whole book's strict build is the
test suite's (``tests/test_build.py``).
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BOOK = Path(__file__).resolve().parents[1] / "book"
ALWAYS = ("glosar", "literatura")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="+", help="page names as in _toc.yml, e.g. 05_sebepozornost")
    parser.add_argument("--out", type=Path, help="folder for the copy (default: new under /tmp)")
    args = parser.parse_args()
    work = args.out or Path(tempfile.mkdtemp(prefix="partial-book-"))
    source = work / "book"
    if source.exists():
        shutil.rmtree(source)
    shutil.copytree(BOOK, source, ignore=shutil.ignore_patterns("_build", "__pycache__"))
    pages = [p.removesuffix(".md") for p in args.pages]
    entries = "".join(f"      - file: {name}\n" for name in pages)
    extra = "".join(f"      - file: {name}\n" for name in ALWAYS if name not in pages)
    (source / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nparts:\n  - caption: Kapitoly\n    numbered: true\n"
        f"    chapters:\n{entries}  - caption: Doplňky\n    chapters:\n{extra}",
        encoding="utf-8")
    result = subprocess.run(["jupyter-book", "build", str(source)], cwd=BOOK.parent)
    print(source / "_build" / "html")
    sys.exit(result.returncode)


if __name__ == "__main__":
    main()
