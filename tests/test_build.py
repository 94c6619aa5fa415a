"""Layer 3: the strict build of the whole book succeeds with no warnings."""

import re


def test_strict_build_has_no_warnings(strict_build):
    result, html = strict_build
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-6000:]
    # Sphinx's and myst-nb's warnings ("file: WARNING: ..."); the kernel's own log line
    # "[IPKernelApp] WARNING | Kernel is running over TCP" is not about the book.
    warnings = [line for line in log.splitlines() if re.search(r"(WARNING|ERROR):", line)]
    assert not warnings, "\n".join(warnings[:30])
    assert (html / "index.html").exists()


def test_pages_are_czech(built_html):
    for page in built_html.glob("*.html"):
        if page.name == "index.html":  # Jupyter Book's 58-byte redirect to intro.html
            continue
        assert '<html lang="cs"' in page.read_text(encoding="utf-8"), page.name
