"""The teacher's trial of issue 19, as tools for its tests (not a test module itself).

* :func:`make_venv`: a fresh virtual environment with only the packages a student's kernel
  has (no repository on its path: ``PYTHONPATH`` is dropped for everything run in it);
* :func:`run_notebooks`: each reader's notebook copied alone into an empty folder and run
  top to bottom by nbclient with that environment's kernel, two at a time (two cores), with
  the built book served on 127.0.0.1 as the site its install cell uses (``BOOK_BASE_URL``);
  run as a script, this module executes one notebook (the worker of :func:`run_notebooks`).
"""

import json
import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def declared_minimums():
    """``name==version`` for every ``name>=version`` of pyproject.toml's dependencies."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [re.sub(r"\s*>=\s*", "==", r) for r in project["dependencies"] if ">=" in r]


#: The oldest versions the packages declare (pyproject.toml; ipywidgets 7.7.1 is Colab's).
MINIMUM = [*declared_minimums(), "ipykernel"]

#: The newest of each, whatever the package index serves today.
NEWEST = ["numpy", "matplotlib", "pillow", "ipywidgets", "ipykernel"]

#: Appended to every notebook run: what the kernel really imported, one JSON line.
VERSIONS_PROBE = r'''
import json as _json, importlib.metadata as _md, attention_core as _ac
print("VERSIONS " + _json.dumps({
    **{name: _md.version(name) for name in ("numpy", "matplotlib", "ipywidgets", "pillow")},
    "attention_core": _ac.__version__, "attention_core_file": _ac.__file__}))
'''


def clean_env(**extra):
    """The environment of a student's kernel: no PYTHONPATH, nothing of the book's build."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "ATTENTION_CORE_HTML_BOOK", "VIRTUAL_ENV")}
    return {**env, **extra}


def make_venv(path, requirements, timeout=900):
    """A virtual environment at ``path`` with ``requirements`` installed by pip."""
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, timeout=120,
                   env=clean_env())
    python = path / "bin" / "python"
    result = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         *requirements], capture_output=True, text=True, timeout=timeout, env=clean_env())
    if result.returncode != 0:
        raise AssertionError(f"pip install {' '.join(requirements)} failed:\n"
                             + result.stdout[-3000:] + result.stderr[-3000:])
    return python, time.monotonic() - started


def run_one(notebook, folder, python, site, timeout=900):
    """Run ``notebook`` alone in ``folder`` with the kernel of ``python``; return the path
    of the executed notebook (in ``folder``) or raise with the error."""
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    sys.path.insert(0, str(Path(__file__).parent))
    from chapters import SLIDER_PROBE

    folder.mkdir(parents=True, exist_ok=True)
    target = folder / notebook.name
    nb = nbformat.read(str(notebook), as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(VERSIONS_PROBE))
    nb.cells.append(nbformat.v4.new_code_cell(SLIDER_PROBE))
    specs = folder.parent / f"kernels-{folder.name}"
    (specs / "student").mkdir(parents=True, exist_ok=True)
    (specs / "student" / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "student", "language": "python"}))
    manager = KernelManager(kernel_name="student",
                            kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(specs)]))
    client = NotebookClient(nb, km=manager, timeout=timeout,
                            resources={"metadata": {"path": str(folder)}})
    try:
        client.execute(env=clean_env(BOOK_BASE_URL=site))
    finally:
        nbformat.write(nb, str(target))
    return target


def run_notebooks(notebooks, work, python, site, parallel=2, timeout=1200):
    """Run every notebook (each in its own empty folder under ``work``), ``parallel`` at a
    time, each in a worker process; return {name: (returncode, seconds, output tail)}.

    The first one runs alone: its install cell installs the wheels, which the others then
    find installed (two pip processes installing into one environment at once would race).
    """
    notebooks = list(notebooks)
    if parallel > 1 and len(notebooks) > 1:
        first = run_notebooks(notebooks[:1], work, python, site, 1, timeout)
        return {**first, **run_notebooks(notebooks[1:], work, python, site, parallel, timeout)}
    work.mkdir(parents=True, exist_ok=True)
    pending, running, results = notebooks, {}, {}
    while pending or running:
        while pending and len(running) < parallel:
            notebook = pending.pop(0)
            folder = work / notebook.stem
            log = open(work / f"{notebook.stem}.log", "w")  # noqa: SIM115 (closed below)
            process = subprocess.Popen(
                [sys.executable, __file__, str(notebook), str(folder), str(python), site],
                stdout=log, stderr=subprocess.STDOUT)
            running[notebook.name] = (process, time.monotonic(), log)
        time.sleep(0.5)
        for name, (process, started, log) in list(running.items()):
            if process.poll() is None and time.monotonic() - started < timeout:
                continue
            if process.poll() is None:
                process.kill()
                process.wait()
            log.close()
            text = Path(log.name).read_text(encoding="utf-8", errors="replace")
            results[name] = (process.returncode, time.monotonic() - started, text[-4000:])
            del running[name]
    return results


def probe_lines(executed, prefix):
    """The JSON printed after ``prefix`` by the probes in the last cells of ``executed``."""
    import nbformat

    nb = nbformat.read(str(executed), as_version=4)
    for cell in nb.cells[-2:]:
        for output in cell.get("outputs", []):
            for line in output.get("text", "").splitlines():
                if line.startswith(prefix + " "):
                    return json.loads(line.removeprefix(prefix + " "))
    raise AssertionError(f"{executed.name}: no {prefix} line in its last cells")


if __name__ == "__main__":
    notebook, folder, python, site = sys.argv[1:5]
    run_one(Path(notebook), Path(folder), Path(python), site)
