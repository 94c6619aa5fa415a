"""The whole book as one PDF, and the HTML book's link to it.

Run from the repository (this is the command in the README)::

    python book/_ext/book_pdf.py

1. ``jupyter-book build book/ --builder singlehtml``: every chapter on one page. It shares
   ``book/_build/.doctrees`` with the HTML build, so chapters already executed for the HTML
   book are not executed again.
2. Debian's Chromium (``/usr/bin/chromium``, or ``$CHROMIUM``), driven by Playwright, opens
   that page from the folder with the network blocked (Jupyter Book's own ``--builder
   pdfhtml`` needs Playwright's browser download, which an offline machine cannot make),
   waits for MathJax, its fonts and the figures, adds a title page, a table of contents with
   page numbers and, at the end, the solutions of the exercises (the print stylesheet keeps
   them out of the chapters), and prints A4 with page numbers and PDF bookmarks to
   ``book/_build/pdf/mechanismus-pozornosti.pdf``. Printing twice puts the page numbers in
   the contents: the first print tells on which page each chapter starts.
3. ``jupyter-book build book/``: the HTML book, which now offers the PDF in every page's
   download menu ("Celá kniha (PDF)") and carries a copy of it.

As a Sphinx extension (registered in ``attention_book.py``) this module adds that menu entry
when the PDF exists in the build folder, copies the PDF into the HTML output, and lets the
single-page builder render like the HTML builder: every node the HTML builder can
(sphinx-exercise registers ``singlehtml`` visitors of its own, which hides every other
extension's ``html`` visitors from that builder: the build failed on
sphinx-jupyterbook-latex's HiddenCellNode), and the same output of each cell (the sliders'
kernel-free view, chosen in ``_config.yml`` for the ``html`` builder only).
"""

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

#: File name of the book's PDF, in ``<book>/_build/pdf/`` and in the HTML output.
PDF_NAME = "mechanismus-pozornosti.pdf"

#: The menu entry's text (Czech, like the rest of the interface).
LINK_TEXT = "Celá kniha (PDF)"

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

MONTHS = ["ledna", "února", "března", "dubna", "května", "června", "července", "srpna",
          "září", "října", "listopadu", "prosince"]


# ---- the Sphinx side ---------------------------------------------------------------------

#: A sentence of a "Cvičení" section that says where the solutions are on screen.
FOLDED = re.compile(r"sbalen|rozbal")

#: What paper says instead when the PDF exists (in the single page printed to it, and in
#: the HTML book built after it): the browser prints a page without its solutions, the PDF
#: has them at its end.
PRINTED_SOLUTIONS = "Na papíře najdete řešení cvičení jen v PDF celé knihy, na jejím konci."

#: What paper says in an HTML book built without the PDF (``jupyter-book build book/``
#: alone), which offers no PDF to point to.
PRINTED_WITHOUT_PDF = ("Vytištěná stránka řešení cvičení neobsahuje; na obrazovce je najdete "
                       "pod každým cvičením.")


def printed_solutions(builder_name, book_pdf):
    """The printed sentence about the solutions for a page written by ``builder_name``, in
    a build where the config value ``book_pdf`` is set (the PDF exists) or empty."""
    if builder_name == "singlehtml" or book_pdf:
        return PRINTED_SOLUTIONS
    return PRINTED_WITHOUT_PDF


class PrintedExercises(SphinxPostTransform):
    """In each section titled "Cvičení" (a chapter's exercises; not, say, the teachers'
    page's "Cvičení do laboratoře …", whose paragraph on folded solutions is advice that
    paper must keep), the paragraph about the folded solutions is for the screen (class
    ``ac-screen-only``); paper gets :func:`printed_solutions` instead. A transform of the
    writing phase: the sentence depends on whether the PDF exists at that build."""

    default_priority = 890

    def run(self, **kwargs):
        sentence = printed_solutions(self.app.builder.name, self.config.book_pdf)
        for section in self.document.findall(nodes.section):
            if not (section.children and isinstance(section[0], nodes.title)
                    and section[0].astext() == "Cvičení"):
                continue
            for paragraph in section.findall(nodes.paragraph):
                if paragraph.parent is section and FOLDED.search(paragraph.astext()):
                    paragraph["classes"].append("ac-screen-only")
                    printed = nodes.paragraph("", sentence, classes=["ac-print-only"])
                    paragraph.parent.insert(paragraph.parent.index(paragraph) + 1, printed)
                    break


def built_pdf(outdir):
    """The book's PDF next to the HTML output (``_build/pdf/`` beside ``_build/html/``)."""
    return Path(outdir).parent / "pdf" / PDF_NAME


def _single_page_like_html(app, config):
    # The sliders' kernel-free HTML view is chosen over the widget view "for the html
    # builder" in _config.yml; the single page (and so the PDF) must make the same choice.
    overrides = list(config.nb_mime_priority_overrides or [])
    for builder, mime, priority in list(overrides):
        copy = ("singlehtml", mime, priority)
        if builder == "html" and not any(tuple(o) == copy for o in overrides):
            overrides.append(copy)
    config.nb_mime_priority_overrides = overrides


def _note_pdf(app, config):
    # A config value of the "html" kind: when the PDF appears (or goes), every page is
    # written again with (or without) the link, without reading the chapters again.
    config.book_pdf = PDF_NAME if built_pdf(app.outdir).is_file() else ""


def _share_html_visitors(app):
    if app.builder.name != "singlehtml":
        return
    handlers = app.registry.translation_handlers
    single = handlers.setdefault("singlehtml", {})
    for name, pair in handlers.get("html", {}).items():
        single.setdefault(name, pair)


def _link_pdf(app, pagename, templatename, context, doctree):
    if not app.config.book_pdf or app.builder.name != "html":
        return
    for button in context.get("header_buttons", []):
        if button.get("label") == "download-buttons":
            button["buttons"].append({
                "type": "link",
                "url": context["pathto"](app.config.book_pdf, 1),
                "text": LINK_TEXT,
                "tooltip": "Stáhnout celou knihu jako PDF",
                "icon": "fas fa-book",
                "label": "download-book-pdf-button",
            })


def _copy_pdf(app, exception):
    if exception is None and app.builder.name == "html" and app.config.book_pdf:
        shutil.copyfile(built_pdf(app.outdir), Path(app.outdir, app.config.book_pdf))


def setup(app):
    app.add_config_value("book_pdf", "", "html", types=[str])
    app.connect("config-inited", _note_pdf)
    app.connect("config-inited", _single_page_like_html)
    app.connect("builder-inited", _share_html_visitors)
    # after the book theme has built its download menu (priority 501)
    app.connect("html-page-context", _link_pdf, priority=600)
    app.connect("build-finished", _copy_pdf)
    app.add_post_transform(PrintedExercises)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


# ---- the command -------------------------------------------------------------------------

#: Run in the single page before printing: the chapters as top-level parts with their own
#: headings, a title page, the contents, the solutions at the end. Returns the ids of the
#: headings listed in the contents.
_PREPARE = r"""([title, author, date]) => {
  const article = document.querySelector('article.bd-article');
  const make = (tag, cls, text) => {
    const el = document.createElement(tag);
    if (cls) el.className = cls;
    if (text !== undefined) el.textContent = text;
    return el;
  };
  const headingText = h => h.textContent.replace(/#$/, '').trim();
  const intro = article.querySelector(':scope > section');

  // Sphinx's single page nests every chapter inside the root page's toctree (as h3, h4...):
  // make each chapter a part of its own, after the introduction, with h1, h2... headings.
  const chapters = [...article.querySelectorAll('span[id^="document-"] + section')];
  for (const chapter of chapters) {
    const marker = chapter.previousElementSibling;
    const depth = Number(chapter.querySelector('h1, h2, h3, h4, h5, h6').tagName[1]) - 1;
    article.append(chapter);
    chapter.prepend(marker);  // links to "#document-…" still land on the chapter
    chapter.querySelectorAll('h1, h2, h3, h4, h5, h6').forEach(h => {
      const level = Math.max(1, Number(h.tagName[1]) - depth);
      const promoted = document.createElement('h' + level);
      for (const a of h.attributes) promoted.setAttribute(a.name, a.value);
      promoted.append(...h.childNodes);
      h.replaceWith(promoted);
    });
  }
  // the root page's list of chapters is now empty; its title becomes the title page
  intro.querySelectorAll('.toctree-wrapper').forEach(w => {
    const section = w.closest('section');
    w.remove();
    if (section !== intro && !section.querySelector('p, ul, ol, div, table')) section.remove();
  });
  const introTitle = intro.querySelector(':scope > h1');
  let subtitle = null;
  const first = introTitle?.nextElementSibling;
  if (first && first.tagName === 'P' && first.children.length === 1 &&
      first.firstElementChild.tagName === 'EM' &&
      first.textContent.trim() === first.firstElementChild.textContent.trim()) {
    subtitle = first.textContent.trim();
    first.remove();
  }
  if (introTitle && headingText(introTitle) === title) introTitle.textContent = 'Úvod';

  // solutions: out of the chapters, into a last part, grouped by chapter
  const solutions = make('section', 'pdf-solutions');
  solutions.append(make('h1', '', 'Řešení cvičení'));
  let moved = 0;
  for (const chapter of [intro, ...chapters]) {
    const found = [...chapter.querySelectorAll('div.solution')];
    if (!found.length) continue;
    solutions.append(make('h2', '', headingText(chapter.querySelector('h1'))));
    for (const solution of found) {
      solution.classList.remove('toggle-hidden', 'dropdown', 'toggle');
      solution.querySelectorAll('.toggle-button').forEach(b => b.remove());
      solutions.append(solution);
      moved += 1;
    }
  }
  if (moved) article.append(solutions);

  // contents: every part (h1) and its sections (h2), with a slot for the page number
  const toc = make('nav', 'pdf-toc');
  const tocTitle = make('h2', 'pdf-toc-title', 'Obsah');
  tocTitle.id = 'pdf-obsah';
  toc.setAttribute('aria-labelledby', tocTitle.id);
  toc.append(tocTitle);
  const list = make('ol', 'pdf-toc-list');
  const ids = [];
  const headings = [...article.querySelectorAll(
    ':scope > section > h1, :scope > section > section > h2')];
  headings.forEach((h, k) => {
    if (h.closest('.pdf-solutions') && h.tagName === 'H2') return;
    h.id = 'pdf-heading-' + k;  // section ids repeat between chapters of the single page
    const entry = make('li', 'pdf-toc-' + h.tagName.toLowerCase());
    const link = make('a', '', headingText(h));
    link.href = '#' + h.id;
    entry.append(link, make('span', 'pdf-toc-page', '…'));
    entry.dataset.target = h.id;
    list.append(entry);
    ids.push(h.id);
  });
  toc.append(list);

  const cover = make('section', 'pdf-title-page');
  cover.append(make('p', 'pdf-title', title));
  if (subtitle) cover.append(make('p', 'pdf-subtitle', subtitle));
  if (author && author !== title) cover.append(make('p', 'pdf-author', author));
  cover.append(make('p', 'pdf-date', date));
  article.prepend(cover, toc);
  window.bookPrint && window.bookPrint.prepare();
  return ids;
}"""

#: Print styles of the PDF's own parts (the chapters use the book's print stylesheet).
_PDF_CSS = """
#jb-print-docs-body { display: none !important; }
.pdf-title-page { break-after: page; text-align: center; padding-top: 32vh; }
.pdf-title-page .pdf-title { font-size: 2.6rem; font-weight: 600; margin: 0 0 1rem; }
.pdf-title-page .pdf-subtitle { font-size: 1.3rem; font-style: italic; }
.pdf-title-page .pdf-author { font-size: 1.1rem; margin-top: 3rem; }
.pdf-title-page .pdf-date { margin-top: 1rem; color: #444; }
.pdf-toc { break-after: page; }
.pdf-toc .pdf-toc-title { font-size: 2rem; margin: 0 0 1rem; }
.pdf-toc-list { list-style: none; padding: 0; margin: 0; }
.pdf-toc-list li { display: flex; align-items: baseline; gap: 0.4em; margin: 0.1em 0; }
.pdf-toc-list li a { color: inherit; text-decoration: none; }
.pdf-toc-list li .pdf-toc-page { margin-left: auto; font-variant-numeric: tabular-nums; }
.pdf-toc-list li.pdf-toc-h1 { font-weight: 600; margin-top: 0.7em; }
.pdf-toc-list li.pdf-toc-h2 { padding-left: 1.5em; font-size: 0.92em; }
.bd-main .bd-content .bd-article > section, .pdf-solutions { break-before: page; }
.bd-main .bd-content .bd-article > section.pdf-title-page { break-before: auto; }
.bd-main .bd-content .bd-article h1:first-of-type { display: block; }
.bd-article .pdf-solutions div.solution { display: block !important; break-inside: auto; }
.bd-article .pdf-solutions div.solution > * { height: auto !important; opacity: 1 !important;
  visibility: visible !important; }
"""

_FOOTER = ('<div style="width:100%;font-size:8pt;color:#555;text-align:center;'
           'font-family:sans-serif"><span class="pageNumber"></span></div>')


def czech_date(day):
    return f"{day.day}. {MONTHS[day.month - 1]} {day.year}"


def book_metadata(book):
    """The book's title, author and root page name (from _config.yml and _toc.yml)."""
    import yaml

    config = yaml.safe_load((book / "_config.yml").read_text(encoding="utf-8"))
    toc = yaml.safe_load((book / "_toc.yml").read_text(encoding="utf-8"))
    return config.get("title", ""), config.get("author", ""), toc.get("root", "index")


def run(command, cwd):
    print("+", " ".join(command), flush=True)
    subprocess.run(command, cwd=cwd, check=True)


def page_of_destinations(pdf_path):
    """The 1-based page of each named destination (Chromium names them by element id)."""
    from pypdf import PdfReader

    reader = PdfReader(str(pdf_path))
    pages = {}
    for name, destination in reader.named_destinations.items():
        try:
            pages[str(name).lstrip("/")] = reader.get_destination_page_number(destination) + 1
        except Exception:  # noqa: BLE001 - a destination without a page is not in the contents
            continue
    return pages, len(reader.pages)


#: How long the browser may take to load the single page, typeset it and print it: minutes
#: on a busy machine (Playwright's default of 30 s is not enough there).
PATIENCE_MS = 600_000


def _page_for_print(context, root_html, title, author):
    """A fresh page of the single-page book, typeset, its figures loaded and laid out for
    print with the title page and the contents (page numbers empty); returns the page and
    the contents' ids."""
    page = context.new_page()
    page.set_default_timeout(PATIENCE_MS)
    page.goto(root_html.resolve().as_uri(), wait_until="load")
    page.wait_for_function("window.MathJax && MathJax.startup && MathJax.startup.promise")
    page.evaluate("MathJax.startup.promise")
    untypeset = page.evaluate("""() => [...document.querySelectorAll('.math')]
        .filter(m => !m.querySelector('mjx-container') || m.querySelector('mjx-merror'))
        .map(m => m.textContent.slice(0, 80))""")
    if untypeset:
        raise RuntimeError(f"{len(untypeset)} formulas not typeset by MathJax: {untypeset[:5]}")
    page.evaluate("document.fonts.ready.then(() => true)")
    # Figures may be lazy ("loading=lazy"): load every image that is shown (the dark-mode
    # pictures are not), and wait for them, five minutes at most.
    page.evaluate("""() => Promise.race([
        Promise.all([...document.images].filter(i => i.getClientRects().length)
          .map(i => { i.loading = 'eager'; return i.complete ? 0 :
            new Promise(r => { i.addEventListener('load', r);
                               i.addEventListener('error', r); }); })),
        new Promise(r => setTimeout(r, 300000))])""")
    missing = page.evaluate("""() => [...document.images]
        .filter(i => i.getClientRects().length && !(i.complete && i.naturalWidth))
        .map(i => (i.currentSrc || i.src).slice(0, 80))""")
    if missing:
        raise RuntimeError(f"{len(missing)} figures did not load: {missing[:5]}")
    page.emulate_media(media="print")
    page.add_style_tag(content=_PDF_CSS)
    ids = page.evaluate(_PREPARE, [title, author, czech_date(datetime.date.today())])
    page.evaluate("document.fonts.ready.then(() => true)")
    return page, ids


def print_pdf(root_html, target, title, author, chromium):
    """Print the single-page book at ``root_html`` to ``target``; return the page count.

    The contents' page numbers are read from a print without them and written into the
    next print, until a print puts every heading on the page its contents line says (the
    numbers can move what follows: a longer line, a page more). Each print is made from a
    freshly loaded page: Chromium does not lay out a page it has printed once the same way
    again (two prints of one unchanged page differ by a page break).
    """
    from playwright.sync_api import sync_playwright

    prefix = root_html.parent.resolve().as_uri() + "/"
    options = dict(format="A4", print_background=True, display_header_footer=True,
                   header_template="<span></span>", footer_template=_FOOTER,
                   margin={"top": "16mm", "bottom": "18mm", "left": "14mm", "right": "14mm"},
                   outline=True, tagged=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    numbers, moved = None, []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(color_scheme="light", service_workers="block")
            context.add_init_script("try { localStorage.setItem('mode', 'light'); } catch (e) {}")
            context.route("**/*", lambda route: route.continue_()
                          if route.request.url.startswith((prefix, "data:"))
                          else route.abort("blockedbyclient"))
            for _ in range(4):
                page, ids = _page_for_print(context, root_html, title, author)
                if numbers is not None:
                    page.evaluate("""(numbers) => {
                        document.querySelectorAll('.pdf-toc-list li').forEach(li => {
                          const n = numbers[li.dataset.target];
                          li.querySelector('.pdf-toc-page').textContent = n === undefined ? '' : n;
                        });
                    }""", numbers)
                page.pdf(path=str(target), **options)
                page.close()
                pages, count = page_of_destinations(target)
                printed = {i: pages[i] for i in ids if i in pages}
                if numbers is not None:
                    moved = [i for i in numbers if printed.get(i) != numbers[i]]
                    if not moved:
                        break
                numbers = printed
        finally:
            browser.close()
    if moved or numbers is None:
        raise RuntimeError(f"the contents' page numbers moved between the prints: {moved}")
    return count


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("book", nargs="?", default=str(Path(__file__).resolve().parents[1]),
                        help="the book's folder (default: the folder above _ext)")
    parser.add_argument("--no-html", action="store_true",
                        help="do not rebuild the HTML book afterwards (it then has no link)")
    args = parser.parse_args(argv)
    book = Path(args.book).resolve()
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not Path(chromium).exists():
        sys.exit(f"Chromium not found at {chromium} (apt-get install chromium, or set CHROMIUM)")
    jupyter_book = [sys.executable, "-m", "jupyter_book.cli.main"]
    if shutil.which("jupyter-book"):
        jupyter_book = ["jupyter-book"]
    # Without its old output, the single page is written again with the current stylesheets
    # (Sphinx copies static files only when it writes a page); the chapters are not re-run.
    shutil.rmtree(book / "_build" / "singlehtml", ignore_errors=True)
    run([*jupyter_book, "build", str(book), "--builder", "singlehtml"], cwd=book.parent)
    title, author, root = book_metadata(book)
    target = book / "_build" / "pdf" / PDF_NAME
    count = print_pdf(book / "_build" / "singlehtml" / f"{root}.html", target, title, author,
                      chromium)
    print(f"PDF: {target} ({count} pages, {target.stat().st_size / 1e6:.1f} MB)", flush=True)
    if not args.no_html:
        run([*jupyter_book, "build", str(book)], cwd=book.parent)
    return 0


if __name__ == "__main__":
    sys.exit(main())
