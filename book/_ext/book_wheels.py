"""The book's two packages as wheels, published with the HTML book (``<site>/wheels/``).

A reader's notebook (``reader_notebooks.py``) installs ``attention_core`` and
``attention_display`` from there: exactly the version the book was built with. The root
``pyproject.toml`` is the one source: its ``[project]`` gives the version (read from
``attention_core.__version__``), the licence and every dependency with its lowest supported
version; ``[tool.book-wheels.<package>]`` says which of those dependencies each package
needs. For each package a temporary project is laid out (the package, ``LICENSE`` and a
``pyproject.toml`` generated from those tables) and setuptools' own build backend makes the
wheel, offline and without build isolation. ``SOURCE_DATE_EPOCH`` is fixed, so the same
sources give the same bytes (and the same SHA-256 in ``wheels/index.html``).

``wheels/index.html`` lists the wheels with their hashes, in the form that ``pip install
--find-links <site>/wheels/`` reads (a static host such as GitHub Pages lists no folder).

Run as a script, it builds the wheels into a folder: ``python book/_ext/book_wheels.py OUT``.
"""

import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

import attention_core

#: The checkout the book's build imports the packages from (its ``pyproject.toml``): the
#: book folder may be a copy elsewhere (the tests build one), the packages are not.
ROOT = Path(attention_core.__file__).resolve().parents[1]

#: Where the wheels land in the HTML output.
FOLDER = "wheels"

#: 1 January 1980, the earliest time a zip file can record: the wheels' fixed timestamp.
EPOCH = "315532800"


@dataclass(frozen=True)
class Wheel:
    """One package's wheel: its distribution name, version, summary and requirements."""

    name: str
    version: str
    description: str
    requires: tuple

    @property
    def filename(self):
        return f"{self.name}-{self.version}-py3-none-any.whl"


def _version(root):
    text = (root / "attention_core" / "__init__.py").read_text(encoding="utf-8")
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def _requirement_name(requirement):
    return re.match(r"[A-Za-z0-9_.-]+", requirement).group().lower().replace("-", "_")


def wheels(root=ROOT):
    """The wheels ``pyproject.toml`` describes, each requirement with its version bound."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    version = _version(root)
    bounds = {_requirement_name(r): r for r in config["project"]["dependencies"]}
    found = []
    for name, table in config["tool"]["book-wheels"].items():
        bounds[name] = f"{name}=={version}"  # the book's packages go together
        requires = []
        for wanted in table["requires"]:
            if wanted not in bounds:
                raise ValueError(f"book_wheels: {name} requires {wanted!r}, which "
                                 "[project] dependencies of pyproject.toml do not list")
            requires.append(bounds[wanted])
        found.append(Wheel(name, version, table["description"], tuple(requires)))
    return found


def oldest_python(root=ROOT):
    """The oldest Python the packages support, from ``requires-python = ">=3.11"``: "3.11"."""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    bound = config["project"]["requires-python"]
    match = re.fullmatch(r">=\s*(\d+\.\d+)", bound.strip())
    if not match:
        raise ValueError(f"book_wheels: requires-python must read '>=X.Y'; got {bound!r}")
    return match.group(1)


def _project_toml(wheel, project):
    """The ``pyproject.toml`` of one package's temporary project (strings as JSON, which
    TOML reads)."""
    def quoted(value):
        return json.dumps(value, ensure_ascii=False)

    return "\n".join([
        "[build-system]",
        'requires = ["setuptools>=77"]',
        'build-backend = "setuptools.build_meta"',
        "",
        "[project]",
        f"name = {quoted(wheel.name)}",
        f"version = {quoted(wheel.version)}",
        f"description = {quoted(wheel.description)}",
        f"requires-python = {quoted(project['requires-python'])}",
        f"license = {quoted(project['license'])}",
        'license-files = ["LICENSE"]',
        f"dependencies = [{', '.join(quoted(r) for r in wheel.requires)}]",
        "",
        "[tool.setuptools]",
        f"packages = [{quoted(wheel.name)}]",
        "",
    ])


def build(out, root=ROOT):
    """Build every wheel into the folder ``out``; write its ``index.html``; return the paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    made = []
    for wheel in wheels(root):
        with tempfile.TemporaryDirectory(prefix=f"{wheel.name}-") as work:
            work = Path(work)
            shutil.copytree(root / wheel.name, work / wheel.name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            shutil.copy(root / "LICENSE", work / "LICENSE")
            (work / "pyproject.toml").write_text(_project_toml(wheel, project),
                                                 encoding="utf-8")
            code = ("import sys; from setuptools import build_meta; "
                    "print(build_meta.build_wheel(sys.argv[1]))")
            result = subprocess.run(
                [sys.executable, "-c", code, str(work / "dist")], cwd=work,
                capture_output=True, text=True, timeout=300,
                env={**_clean_env(), "SOURCE_DATE_EPOCH": EPOCH})
            if result.returncode != 0:
                raise RuntimeError(f"book_wheels: building {wheel.name} failed:\n"
                                   + result.stdout[-2000:] + result.stderr[-2000:])
            built = work / "dist" / result.stdout.split()[-1]
            if built.name != wheel.filename:
                raise RuntimeError(f"book_wheels: expected {wheel.filename}, got {built.name}")
            made.append(Path(shutil.copy(built, out / built.name)))
    _write_index(out, made)
    return made


def _clean_env():
    """The environment without PYTHONPATH (the temporary project is built on its own)."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}


def _write_index(out, paths):
    links = "\n".join(
        f'<a href="{html.escape(p.name)}#sha256={hashlib.sha256(p.read_bytes()).hexdigest()}">'
        f"{html.escape(p.name)}</a><br>" for p in paths)
    (out / "index.html").write_text(
        '<!DOCTYPE html>\n<html lang="cs"><head><meta charset="utf-8">'
        "<title>Balíčky knihy Mechanismus pozornosti</title></head>\n<body>\n"
        f"{links}\n</body></html>\n", encoding="utf-8")


def _sources_digest(root=ROOT):
    """A digest of everything a wheel is made from (to skip rebuilding unchanged wheels)."""
    digest = hashlib.sha256((root / "pyproject.toml").read_bytes())
    digest.update((root / "LICENSE").read_bytes())
    for wheel in wheels(root):
        for path in sorted((root / wheel.name).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return digest.hexdigest()


def publish(app, exception):
    """``build-finished``: the wheels into ``<outdir>/wheels/`` (rebuilt when a source
    changed, or when they are missing)."""
    if exception is not None or app.builder.format != "html":
        return
    out = Path(app.outdir, FOLDER)
    stamp = Path(app.doctreedir, "book_wheels.sha256")
    digest = _sources_digest()
    present = all((out / w.filename).exists() for w in wheels()) and (out / "index.html").exists()
    if present and stamp.exists() and stamp.read_text() == digest:
        return
    build(out)
    stamp.write_text(digest)


def setup(app):
    app.connect("build-finished", publish)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    for path in build(sys.argv[1] if len(sys.argv) > 1 else "dist"):
        print(path)
