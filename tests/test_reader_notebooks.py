"""Issue 19, the teacher's trial automated: the reader's notebooks and the book's wheels.

The built book (the session's strict build) is served on 127.0.0.1 as "the site". For the
oldest versions the packages declare (numpy 1.24, matplotlib 3.10, pillow 9.4 and Colab's
ipywidgets 7.7.1) and for the newest ones, a fresh virtual environment with only those and
ipykernel runs every reader's notebook of the site, each alone in an empty folder, top to
bottom: its first cell installs the book's wheels from the site, the chapter's code runs
(and checks its own numbers), every slider moves to a new, non-blank figure, and the kernel
imported ``attention_core`` from the wheel, not from the repository. The reader's notebooks
say no MyST (no raw directive or role, no glued name), have their solutions collapsed, and
the wheels install ``attention_core`` with numpy alone.
"""

import re
import subprocess
import zipfile
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import nbformat
import pytest
from packaging.version import Version
from reader_support import MINIMUM, NEWEST, clean_env, make_venv, probe_lines, run_notebooks

from chapters import chapter_paths

#: MyST that plain Jupyter would show as raw text, and a glued value's name.
RAW = re.compile(r"\{[a-z]+(?::[a-z]+)?\}`|^`{3,}\{|^:{3,}|^\([\w-]+\)=$|^:label:|^:class:"
                 r"|\\(?:dotaz|klic|skore|vaha|hodnota|vystup)\{|\bch\d\d_\w+", re.M)


def reader_notebooks(html):
    return [html / "notebooks" / f"{path.stem}.ipynb" for path in chapter_paths()]


def test_every_chapter_has_a_reader_notebook_in_plain_markdown(built_html):
    for path in reader_notebooks(built_html):
        assert path.exists(), f"{path.name}: no reader's notebook in the built site"
        nb = nbformat.read(str(path), as_version=4)
        nbformat.validate(nb)
        first = nb.cells[0]
        assert first.cell_type == "code" and first.source.startswith("# Nainstaluje balíčky")
        markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
        raw = sorted({m.group() for m in RAW.finditer(markdown)})
        assert not raw, f"{path.name}: MyST left in the Markdown: {raw}"
        assert not markdown.lstrip().startswith("---"), f"{path.name}: front matter shows"
        opened = markdown.count("<details>")
        assert opened == markdown.count("</details>") and "<details open" not in markdown
        for cell in nb.cells:
            if "solution" in cell.metadata.get("tags", []):
                assert cell.metadata["jupyter"]["source_hidden"], path.name
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code")


def test_exercises_and_solutions_as_in_the_html_book(built_html):
    """Every exercise of the page is a numbered heading, every solution a collapsed block
    with the page's Czech title."""
    for path in reader_notebooks(built_html):
        html = (built_html / f"{path.stem}.html").read_text(encoding="utf-8")
        exercises = len(re.findall(r'class="[^"]*\bexercise\b[^"]*admonition', html))
        markdown = "\n".join(c.source for c in nb_cells(path) if c.cell_type == "markdown")
        assert len(re.findall(r"^#### Cvičení \d+(?:\.\d+)?", markdown, re.M)) == exercises
        # a solution split by a code cell continues in a second block, "… (pokračování)"
        summaries = re.findall(r"<summary>(Řešení ke cvičení \d+(?:\.\d+)?[^<]*)", markdown)
        assert len([s for s in summaries if not s.rstrip().endswith("(pokračování)")]) \
            == exercises


def nb_cells(path):
    return nbformat.read(str(path), as_version=4).cells


def test_wheels_are_published_with_an_index(built_html):
    wheels = built_html / "wheels"
    index = (wheels / "index.html").read_text(encoding="utf-8")
    for name in ("attention_core", "attention_display"):
        (wheel,) = wheels.glob(f"{name}-*-py3-none-any.whl")
        assert f'href="{wheel.name}#sha256=' in index
        with zipfile.ZipFile(wheel) as archive:
            tops = {n.split("/")[0] for n in archive.namelist()}
        assert tops == {name, wheel.name.split("-py3")[0] + ".dist-info"}, tops


@pytest.fixture(scope="session")
def core_only(tmp_path_factory, built_html):
    """numpy alone, and attention_core's wheel with --no-deps."""
    work = tmp_path_factory.mktemp("core-only")
    python, _seconds = make_venv(work / "venv", ["numpy"])
    (wheel,) = (built_html / "wheels").glob("attention_core-*.whl")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)],
                   check=True, env=clean_env(), timeout=300)
    return python


def test_attention_core_wheel_needs_numpy_alone(core_only):
    code = """
import importlib.metadata as md, pkgutil, importlib
import numpy as np
import attention_core
for module in pkgutil.iter_modules(attention_core.__path__):
    importlib.import_module('attention_core.' + module.name)
installed = {d.metadata['Name'] for d in md.distributions()}
q, K, V = np.array([2.0, 1.0]), np.array([[1.0, 0], [0, 1], [-1, 0]]), np.array([10.0, 20, 30])
print(round(float(attention_core.attention(q, K, V)), 2),
      'site-packages' in attention_core.__file__, sorted(installed - {'pip', 'setuptools'}))
"""
    result = subprocess.run([str(core_only), "-c", code], capture_output=True, text=True,
                            env=clean_env(), timeout=120, cwd="/")
    assert result.returncode == 0, result.stderr
    wanted = ["13.94", "True", "['attention_core', 'numpy']"]
    assert result.stdout.strip().split(maxsplit=2) == wanted


@pytest.fixture(scope="session")
def student_kernels(tmp_path_factory):
    """Two fresh environments with only numpy, matplotlib, ipywidgets and ipykernel: the
    oldest versions the packages declare and the newest; made at the same time."""
    work = tmp_path_factory.mktemp("students")
    kinds = {"minimum": MINIMUM, "newest": NEWEST}
    with ThreadPoolExecutor(len(kinds)) as pool:
        made = {kind: pool.submit(make_venv, work / kind / "venv", requirements)
                for kind, requirements in kinds.items()}
        kernels = {kind: future.result() for kind, future in made.items()}
    for kind, (_python, seconds) in kernels.items():
        print(f"\n{kind}: virtual environment ready in {seconds:.0f} s")
    return {kind: (python, work / kind) for kind, (python, _s) in kernels.items()}


def test_reader_notebooks_run_alone_in_fresh_environments(student_kernels, site, built_html):
    """Each environment runs the notebooks one after another, both environments at once
    (two cores)."""
    notebooks = reader_notebooks(built_html)
    with ThreadPoolExecutor(len(student_kernels)) as pool:
        runs = {kind: pool.submit(run_notebooks, notebooks, work / "runs", python, site, 1)
                for kind, (python, work) in student_kernels.items()}
        results = {kind: future.result() for kind, future in runs.items()}
    failures = [f"{kind}: {name} (exit {code}):\n{tail}"
                for kind, found in results.items()
                for name, (code, _s, tail) in found.items() if code != 0]
    assert not failures, "\n\n".join(failures)
    for kind, found in results.items():
        times = ", ".join(f"{name.split('_')[0]} {seconds:.0f} s"
                          for name, (_c, seconds, _t) in sorted(found.items()))
        print(f"{kind}: {times}")
        check_runs(kind, notebooks, student_kernels[kind][1] / "runs")


def check_runs(kind, notebooks, runs):
    """What the kernel imported (the wheel; at the minimum exactly the oldest versions) and
    that every slider moved to a new, non-blank figure."""
    wanted = dict(r.split("==") for r in MINIMUM if "==" in r) if kind == "minimum" else {}
    for notebook in notebooks:
        executed = runs / notebook.stem / notebook.name
        versions = probe_lines(executed, "VERSIONS")
        assert "site-packages" in versions["attention_core_file"], versions
        for package, version in wanted.items():
            assert Version(versions[package]) == Version(version), (notebook.name, versions)
        for move in probe_lines(executed, "SLIDER_REPORT"):
            assert move["image_changed"] and move["ink"] > 0.005, (kind, notebook.name, move)


def _extension(name):
    import importlib
    import sys

    from chapters import BOOK

    sys.path.insert(0, str(BOOK / "_ext"))
    return importlib.import_module(name)


def test_launch_buttons_only_with_the_repository_address(monkeypatch):
    attention_book = _extension("attention_book")
    config = SimpleNamespace(html_theme_options={"launch_buttons": {"thebe": False}})
    monkeypatch.delenv("BOOK_REPOSITORY_URL", raising=False)
    attention_book.configure_launch_buttons(None, config)
    assert "launch_buttons" not in config.html_theme_options
    monkeypatch.setenv("BOOK_REPOSITORY_URL", "https://github.com/skola/kniha/")
    attention_book.configure_launch_buttons(None, config)
    options = config.html_theme_options
    assert options["repository_url"] == "https://github.com/skola/kniha"
    assert options["repository_branch"] == "notebooks" and options["path_to_docs"] == ""
    assert options["launch_buttons"]["colab_url"] == "https://colab.research.google.com"
    assert not options["launch_buttons"]["jupyterhub_url"]


def test_buttons_open_and_download_the_reader_notebook():
    attention_book = _extension("attention_book")
    colab = "https://colab.research.google.com/github/skola/kniha/blob/notebooks/"
    context = {"pathto": lambda target, _resource: "../" + target, "header_buttons": [
        {"label": "download-buttons", "buttons": [
            {"label": "download-notebook-button", "url": "_sources/05_sebepozornost.ipynb"}]},
        {"label": "launch-buttons", "tooltip": "Launch interactive content", "buttons": [
            {"type": "link", "text": "Colab", "tooltip": "Launch on Colab",
             "url": colab + "05_sebepozornost.md"}]},
    ]}
    app = SimpleNamespace(env=SimpleNamespace(
        found_docs={"05_sebepozornost"},
        doc2path=lambda name: str(_extension("chapters").BOOK / f"{name}.md")))
    attention_book.point_buttons(app, "05_sebepozornost", "page.html", context, object())
    download, launch = context["header_buttons"]
    teacher, student = download["buttons"]
    assert teacher["url"] == "../notebooks/05_sebepozornost.ipynb"
    assert teacher["text"] == "Notebook s řešeními"
    assert student["url"] == "../notebooks/05_sebepozornost-bez-reseni.ipynb"
    assert student["text"] == "Notebook bez řešení"
    assert student["label"] == "download-student-notebook-button"
    button = launch["buttons"][0]
    assert button["url"] == colab + "05_sebepozornost.ipynb"
    assert button["text"] == "Otevřít v Colabu" and "Colab" in button["tooltip"]
    assert launch["tooltip"] == "Spustit notebook kapitoly"


def test_the_workflow_publishes_the_notebooks_with_the_least_permission():
    import yaml

    from chapters import ROOT

    flow = yaml.safe_load((ROOT / ".github/workflows/book.yml").read_text(encoding="utf-8"))
    build, job = flow["jobs"]["build"], flow["jobs"]["notebooks"]
    assert build["permissions"] == {"contents": "read", "pages": "read"}
    assert job["permissions"] == {"contents": "write"} and job["needs"] == "build"
    assert not any("checkout" in step.get("uses", "") for step in job["steps"])
    # the job's variables reach both steps that build the book (the PDF's rebuilds it)
    repository = "${{ github.server_url }}/${{ github.repository }}"
    assert build["env"]["BOOK_REPOSITORY_URL"] == repository
    assert build["env"]["BOOK_REVISION"] == "${{ github.sha }}"
    building = [s for s in build["steps"]
                if s.get("run") in ("jupyter-book build book/", "python book/_ext/book_pdf.py")]
    assert len(building) == 2
    assert all(s["env"]["BOOK_BASE_URL"] == "${{ steps.pages.outputs.base_url }}"
               for s in building)
    uploaded = [s for s in build["steps"] if "upload-artifact" in s.get("uses", "")]
    assert uploaded[0]["with"]["path"] == "book/_build/html/notebooks"
