"""Layer 3: the strict build of the whole book succeeds with no warnings."""

from chapters import sphinx_warnings


def test_strict_build_has_no_warnings(strict_build):
    result, html = strict_build
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-6000:]
    warnings = sphinx_warnings(log)
    assert not warnings, "\n".join(warnings[:30])
    assert (html / "index.html").exists()


def test_pages_are_czech(built_html):
    for page in built_html.glob("*.html"):
        if page.name == "index.html":  # Jupyter Book's 58-byte redirect to intro.html
            continue
        assert '<html lang="cs"' in page.read_text(encoding="utf-8"), page.name
