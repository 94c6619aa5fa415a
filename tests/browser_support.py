"""Shared by the browser tests: Chromium's flags, one page visit that records every problem,
and checks of math, alt texts, sliders and downloads. Not a test module itself; the fixtures
``site`` and ``browser`` are in ``conftest.py``."""

import io
import json
import re
from urllib.parse import urlparse

import nbformat
from PIL import Image
from playwright.sync_api import Error as PlaywrightError

from chapters import chapter_paths

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

#: Share of non-white pixels below which an image counts as blank.
MIN_INK = 0.005


def ink(png):
    """Share of pixels that are not (nearly) white: 0 for a blank image."""
    grey = Image.open(io.BytesIO(png)).convert("L")
    histogram = grey.histogram()
    return sum(histogram[:245]) / (grey.width * grey.height)


def pages(built_html):
    return sorted(p.name for p in built_html.glob("*.html") if p.name != "index.html")


#: How long a page may take to load, or MathJax to start, before a test gives up: a busy
#: machine is slow, which says nothing about the page (Playwright's default is 30 s).
PATIENCE_MS = 180_000


def chapter_pages(built_html):
    return [f"{p.stem}.html" for p in chapter_paths() if (built_html / f"{p.stem}.html").exists()]


class Visit:
    """One page opened in a fresh browser context; collects everything that went wrong."""

    def __init__(self, browser, url, local_prefix):
        self.url = url
        self.problems = []
        self.context = browser.new_context(service_workers="block")
        self.context.set_default_timeout(PATIENCE_MS)
        self.page = self.context.new_page()
        self.local_prefix = local_prefix
        self.context.route("**/*", self._route)
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.on("requestfailed", lambda request: self.problems.append(
            f"failed request {request.url[:120]}: {request.failure}"))
        self.page.on("response", self._response)
        self.page.on("request", self._request)

    def _local(self, url):
        return url.startswith(self.local_prefix) or url.startswith("data:")

    def _route(self, route):
        if self._local(route.request.url):
            route.continue_()
        else:
            self.problems.append(f"non-local request blocked: {route.request.url[:160]}")
            route.abort("blockedbyclient")

    def _request(self, request):
        if not self._local(request.url):
            self.problems.append(f"non-local request: {request.url[:160]}")

    def _console(self, message):
        if message.type in ("error", "warning") and "blockedbyclient" not in message.text:
            self.problems.append(f"console {message.type}: {message.text[:300]}")

    def _response(self, response):
        if response.status >= 400:
            self.problems.append(f"HTTP {response.status} for {response.url[:160]}")

    def open(self):
        self.page.goto(self.url, wait_until="load")
        if self.page.locator(".math").count():
            try:
                self.page.wait_for_function(
                    "window.MathJax && MathJax.startup && MathJax.startup.promise")
                self.page.evaluate("MathJax.startup.promise")
            except PlaywrightError as error:
                self.problems.append(f"MathJax did not start: {str(error).splitlines()[0]}")
        return self

    def close(self):
        self.context.close()


def check_math(page, html_text):
    """Formulas typeset by MathJax, none left raw, the source's colours applied."""
    problems = []
    math = page.locator(".math").count()
    if not math:
        return problems
    typeset = page.locator(".math mjx-container").count()
    if typeset < math:
        problems.append(f"{math - typeset} of {math} formulas not typeset by MathJax")
    formulas = re.findall(r'<(?:span|div) class="math[^"]*">(.*?)</(?:span|div)>', html_text,
                          flags=re.S)
    errors = page.locator("mjx-merror, [data-mjx-error]").count()
    if errors:
        problems.append(f"{errors} MathJax errors")
    prose = page.evaluate("""() => {
        const article = document.querySelector('article') || document.body;
        const copy = article.cloneNode(true);
        copy.querySelectorAll('pre, code, script, style, mjx-container, .highlight')
            .forEach(e => e.remove());
        return copy.textContent;
    }""")
    for raw in ("$$", "\\(", "\\[", "\\frac", "\\color"):
        if raw in prose:
            at = prose.index(raw)
            problems.append(f"raw TeX {raw!r} left in the text: …{prose[max(0, at - 40):at + 40]}…")
    colours = set(re.findall(r"\\color\{#([0-9A-Fa-f]{6})\}", " ".join(formulas)))
    for name, colour in macro_colours(html_text).items():
        if re.search(r"\\" + name + r"(?![A-Za-z])", " ".join(formulas)):
            colours.add(colour)
    shown = set(page.evaluate("""() => {
        const seen = new Set();
        document.querySelectorAll('mjx-container *').forEach(e => {
            seen.add(getComputedStyle(e).color); });
        return [...seen];
    }"""))
    for colour in sorted(colours):
        rgb = "rgb({}, {}, {})".format(*(int(colour[i:i + 2], 16) for i in (0, 2, 4)))
        if rgb not in shown:
            problems.append(f"\\color{{#{colour}}} is not shown in any formula")
    return problems


def macro_colours(html_text):
    """The book's colour macros (``\\dotaz`` ...) from the page's MathJax configuration, and
    the colour each shows in light mode: a macro either colours directly (``\\color{#...}``)
    or wraps its argument in a term's class (``\\class{ac-term-query}``), which the book's
    CSS colours with ``attention_display.style.TEXT_COLORS``."""
    from attention_display.style import TEXT_COLORS

    found = dict(re.findall(r'"(\w+)": \["\{\\\\color\{##?([0-9A-Fa-f]{6})\}', html_text))
    for name, term in re.findall(r'"(\w+)": \["\{\\\\class\{ac-term-(\w+)\}', html_text):
        if term in TEXT_COLORS:
            found[name] = TEXT_COLORS[term].lstrip("#")
    return found


def check_alt_texts(page):
    problems = []
    for img in page.locator("article img").all():
        alt = (img.get_attribute("alt") or "").strip()
        src = (img.get_attribute("src") or "")[:60]
        if len(alt) < 10 or alt.startswith("<") or "Figure size" in alt:
            problems.append(f"figure {src} has no proper Czech alt text: {alt!r}")
    return problems


#: The frame an explore shows (the <img> of the colour mode's <picture>), as the page sees it.
SHOWN_FRAME = """(root) => {
    const img = [...root.querySelectorAll('img.ac-frame')].find(i => i.getClientRects().length);
    if (!img) return null;
    const box = img.getBoundingClientRect();
    return {src: img.currentSrc || img.src, complete: img.complete, width: img.naturalWidth,
            alt: img.alt, shown: [box.width, box.height]};
}"""


def shown_frame(root, timeout=15_000):
    """The frame ``root`` (an ``.ac-explore``) shows, once the browser has loaded it."""
    root.page.wait_for_function(
        "(root) => { const i = [...root.querySelectorAll('img.ac-frame')]"
        ".find(i => i.getClientRects().length); return i && i.complete && i.naturalWidth; }",
        arg=root.element_handle(), timeout=timeout)
    return root.evaluate(SHOWN_FRAME)


def frame_file(built_html, src):
    """The file of a frame's address (``http://…/_images/x.png`` or ``file:///…``)."""
    return built_html / "_images" / urlparse(src).path.rsplit("/_images/", 1)[1]


def move_sliders(page, built_html):
    """Move every range input with the keyboard; return (problems, number of sliders moved).

    After each move the frame shown must be another file, loaded and not blank, with the
    readout, ``aria-valuetext``, alt text and caption of the new position."""
    problems = []
    explorers = page.locator(".ac-explore")
    moved = 0
    for e in range(explorers.count()):
        root = explorers.nth(e)
        root.scroll_into_view_if_needed()
        data = json.loads(root.locator("script.ac-data").text_content())
        inputs = root.locator("input[type=range]")
        readouts = root.locator("output.ac-readout")
        for j in range(inputs.count()):
            where = f"explorer {e + 1}, slider {j + 1}"
            slider = inputs.nth(j)
            if not (slider.get_attribute("aria-label") or "").strip():
                problems.append(f"{where}: no aria-label")
            last = int(slider.get_attribute("max"))
            start = int(slider.input_value())
            before = shown_frame(root)["src"]
            slider.focus()
            if start < last:
                keys, target = ("ArrowRight", "End"), last
            else:
                keys, target = ("ArrowLeft", "Home"), 0
            for key in keys:
                slider.press(key)
            moved += 1
            value = int(slider.input_value())
            if value != target:
                problems.append(f"{where}: keys {keys} left the value at {value}, not {target}")
                continue
            label = data["labels"][j][target]
            if readouts.nth(j).text_content() != label:
                problems.append(f"{where}: readout {readouts.nth(j).text_content()!r} "
                                f"is not {label!r}")
            if slider.get_attribute("aria-valuetext") != label:
                problems.append(f"{where}: aria-valuetext not updated to {label!r}")
            after = shown_frame(root)
            if after["src"] == before:
                problems.append(f"{where}: moving it to {label} kept the same image")
            amount = ink(frame_file(built_html, after["src"]).read_bytes())
            if amount < MIN_INK:
                problems.append(f"{where}: the image at {label} is blank (ink {amount:.4f})")
            caption = root.locator(".ac-caption").text_content()
            if not after["alt"].strip() or after["alt"] != caption:
                problems.append(f"{where}: alt {after['alt']!r} and caption {caption!r} disagree")
    return problems, moved


def check_notebook_link(visit, site, name):
    """The theme's download menu offers the page's two reader's notebooks, the teacher's
    ``notebooks/<page>.ipynb`` and the student's ``notebooks/<page>-bez-reseni.ipynb``, each
    a valid notebook; the student's has no solution cell."""
    links = visit.page.locator("a[href$='.ipynb']")
    hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
    problems = []
    for suffix, solutions in (("", True), ("-bez-reseni", False)):
        wanted = [h for h in hrefs if h.endswith("/" + name.replace(".html", f"{suffix}.ipynb"))]
        if not wanted:
            problems.append(f"no link to download its {suffix or 'full'} .ipynb (links: {hrefs})")
            continue
        response = visit.page.request.get(site + wanted[0])
        if not response.ok:
            problems.append(f"{wanted[0]} answers HTTP {response.status}")
            continue
        nb = nbformat.reads(response.text(), as_version=4)
        nbformat.validate(nb)
        if nb.metadata.get("kernelspec", {}).get("name") != "python3":
            problems.append(f"{wanted[0]} has no python3 kernelspec")
        if not any(cell.cell_type == "code" for cell in nb.cells):
            problems.append(f"{wanted[0]} has no code cell")
        tagged = any("solution" in c.metadata.get("tags", []) for c in nb.cells)
        if tagged != solutions:
            problems.append(f"{wanted[0]}: solution cells {'missing' if solutions else 'left in'}")
    return problems




#: Content types a compressing web host sends gzipped (fonts in WOFF and images are
#: compressed already).
COMPRESSED_TYPES = ("text/", "javascript", "json", "svg", "xml")

#: The most a chapter's first load may transfer, gzip-counted (issue 22): at 390 and 1 280 px.
MAX_TRANSFER = {"phone": 1_000_000, "desktop": 1_600_000}


def transfer(browser, url, width, height):
    """Everything the first load of ``url`` fetches, with an empty cache, at ``width`` x
    ``height``: ``(total bytes, [(bytes, url)])``, each response counted as a host that
    gzips text sends it (level 6), scripts and fonts included."""
    import gzip

    context = browser.new_context(viewport={"width": width, "height": height},
                                  service_workers="block")
    context.set_default_timeout(PATIENCE_MS)
    page = context.new_page()
    responses = []

    def count(response):
        try:
            body = response.body()
        except PlaywrightError:  # a redirect or an aborted request has no body
            return
        kind = response.headers.get("content-type", "")
        size = len(gzip.compress(body, 6)) if kind.startswith(COMPRESSED_TYPES) or any(
            t in kind for t in COMPRESSED_TYPES) else len(body)
        responses.append((size, response.url))

    page.on("response", count)
    page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")
    context.close()
    return sum(size for size, _url in responses), sorted(responses, reverse=True)
