"""The hosted book (issue 12, item 6): the GitHub workflows, checked offline with zizmor and
read for what they must do, and the link previews of the pages.
"""

import re
import shutil
import subprocess
import sys

import pytest
import yaml
from fixture_book import FIXTURE_BASE_URL, build_fixture_book

from chapters import BOOK, ROOT

sys.path.insert(0, str(BOOK / "_ext"))
from link_previews import BASE_URL_VARIABLE, tex_to_text  # noqa: E402

WORKFLOWS = ROOT / ".github" / "workflows"

#: The README's commands, as the workflow must run them.
BUILD_COMMAND = "jupyter-book build book/"
PDF_COMMAND = "python book/_ext/book_pdf.py"


def workflow(name):
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))


def triggers(flow):
    # YAML 1.1 reads the key "on" as True
    return flow.get("on", flow.get(True))


def steps(flow):
    return [step for job in flow["jobs"].values() for step in job.get("steps", [])]


def test_zizmor_finds_nothing_of_high_severity_offline():
    zizmor = shutil.which("zizmor")
    assert zizmor, "zizmor is not installed (pip install -r requirements.txt)"
    for persona in ("regular", "pedantic"):
        result = subprocess.run([zizmor, "--offline", "--persona", persona, "--min-severity",
                                 "high", str(WORKFLOWS)], capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


def test_every_action_is_pinned_to_a_commit():
    for path in WORKFLOWS.glob("*.yml"):
        for step in steps(yaml.safe_load(path.read_text(encoding="utf-8"))):
            if "uses" in step:
                assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", step["uses"]), \
                    f"{path.name}: {step['uses']} is not pinned to a commit"


def test_pushes_to_main_build_and_publish_the_book():
    flow = workflow("book.yml")
    assert triggers(flow)["push"]["branches"] == ["main"]
    assert flow["permissions"] == {}, "no permission by default"
    build, deploy = flow["jobs"]["build"], flow["jobs"]["deploy"]
    assert build["permissions"] == {"contents": "read", "pages": "read"}
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    runs = [step.get("run", "") for step in build["steps"]]
    assert any(run.strip() == BUILD_COMMAND for run in runs), runs
    assert any(run.strip() == PDF_COMMAND for run in runs), runs
    uses = {step["uses"].split("@")[0]: step for step in steps(flow) if "uses" in step}
    assert uses["actions/upload-pages-artifact"]["with"]["path"] == "book/_build/html"
    assert "actions/deploy-pages" in uses
    assert uses["actions/setup-python"]["with"]["cache"] == "pip"
    assert uses["actions/checkout"]["with"]["persist-credentials"] is False
    build_step = next(s for s in build["steps"] if s.get("run", "").strip() == BUILD_COMMAND)
    assert build_step["env"][BASE_URL_VARIABLE] == "${{ steps.pages.outputs.base_url }}"


def test_pull_requests_run_the_ci_script():
    flow = workflow("ci.yml")
    assert "pull_request" in triggers(flow)
    assert flow["permissions"] == {}
    assert any(step.get("run", "").strip() == "bash .ci/run" for step in steps(flow))
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "zizmor --offline" in ci


def test_readme_shows_the_hosted_book_and_the_pdf_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## The hosted book" in readme
    assert "GitHub Actions" in readme and "github.io" in readme
    assert PDF_COMMAND in readme and "mechanismus-pozornosti.pdf" in readme
    assert BASE_URL_VARIABLE in readme


@pytest.mark.parametrize(("tex", "text"), [
    (r"\dotaz{q} \cdot \klic{k_i} / \sqrt{d}", "q · kᵢ / √d"),
    (r"{\color{#E69F00}{s_i}}", "sᵢ"),
    (r"\frac{1}{\sqrt{d}}", "1/√d"),
    (r"\operatorname{Var}(q \cdot k) = d", "Var(q · k) = d"),
    (r"\begin{aligned} a \end{aligned}", None),
])
def test_formulas_in_link_previews_read_as_text(tex, text):
    assert tex_to_text(tex) == text


def _meta(html_text):
    return dict(re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)"', html_text))


@pytest.mark.build
def test_pages_have_link_previews_without_raw_tex(built_html):
    """Built without a published address: title, description and site name, no og:url."""
    for page in built_html.glob("*.html"):
        if not (BOOK / f"{page.stem}.md").is_file():
            continue  # pages Sphinx generates: index, search, the proofs' list
        meta = _meta(page.read_text(encoding="utf-8"))
        assert meta.get("og:title"), page.name
        assert meta.get("og:site_name") == "Mechanismus pozornosti", page.name
        description = meta.get("og:description")
        if description is not None or page.name.startswith("0"):  # chapters have prose
            assert len(description or "") > 40, (page.name, description)
            assert "\\" not in description and "{" not in description, (page.name, description)
        assert "og:url" not in meta, page.name


@pytest.mark.build
def test_a_published_build_links_its_previews_to_the_site():
    """Built with BOOK_BASE_URL (the fixture book): absolute og:url, a canonical link and a
    preview card image that exists."""
    fixture_book = build_fixture_book()
    text = (fixture_book / "cviceni.html").read_text(encoding="utf-8")
    meta = _meta(text)
    assert meta["og:url"] == FIXTURE_BASE_URL + "cviceni.html"
    assert f'<link rel="canonical" href="{FIXTURE_BASE_URL}cviceni.html"' in text
    image = meta["og:image"]
    assert image.startswith(FIXTURE_BASE_URL) and image.endswith(".png"), image
    assert (fixture_book / image.removeprefix(FIXTURE_BASE_URL)).is_file(), image


def test_binder_gets_the_python_the_wheels_require(tmp_path):
    """Binder's default Python can be older than the wheels accept (requires-python): the
    branch "notebooks" carries runtime.txt with the oldest Python they do accept."""
    import book_wheels
    import reader_notebooks

    reader_notebooks.write_binder_files(tmp_path, book_wheels.wheels())
    runtime = (tmp_path / "runtime.txt").read_text(encoding="utf-8")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    minimum = re.search(r'requires-python = ">=(\d+\.\d+)"', pyproject).group(1)
    assert runtime == f"python-{minimum}\n"
    assert "numpy" in (tmp_path / "requirements.txt").read_text(encoding="utf-8")
