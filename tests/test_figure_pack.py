"""The figure pack and the figure numbers (issue 20, item 5; ``book/_ext/figure_pack.py``).

Three levels:

* the pieces: matplotlib's SVG of a figure (real vectors, deterministic), the slider's start
  frame as its SVG, file names, the attribution line in the SVG and the PNG;
* a small book built strictly (a numbered chapter with a line plot, a heat map and a
  slider; the appendix with one figure), with ``BOOK_REPOSITORY_URL`` set: numbers under
  the figures („Obrázek 1.2“, „Obrázek D.1“), links to existing files, the zip, the menu;
* the whole strictly built book: every figure of every page has its number and its pack
  files, the zip holds them all, every SVG parses and a figure without raster images (a
  line plot) has none in its SVG either.
"""

import io
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
import zipfile

import numpy as np
import pytest
from browser_support import chapter_pages
from PIL import Image

import attention_core
from attention_display import figures, interactive, style
from chapters import BOOK, ROOT, sphinx_warnings

sys.path.insert(0, str(BOOK / "_ext"))
import figure_pack  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
REPOSITORY = "https://github.com/example/mechanismus-pozornosti"


def line_figure(title="sinus"):
    fig, ax = style.new_figure(figsize=(7.5, 3))
    walk = np.cumsum(np.random.default_rng(0).normal(size=400))
    ax.plot(np.arange(400), walk, color=style.COLORS["weight"])
    ax.set(xlabel="čas", ylabel="hodnota", title=title)
    return fig


def heat_map_figure():
    fig, ax = style.new_figure(figsize=(4, 3))
    ax.imshow(np.arange(16).reshape(4, 4), cmap="Greys")
    return fig


def svg_images(text):
    return ET.fromstring(text.encode("utf-8")).findall(f".//{SVG}image")


# ---- the pieces ---------------------------------------------------------------------------


def test_a_line_plot_is_a_vector_svg_the_same_every_time():
    fig = line_figure()
    first = figures.svg(fig, figures.layout_for(figures.COLUMN_WIDTH))
    root = ET.fromstring(first.encode("utf-8"))
    assert root.tag == f"{SVG}svg"
    assert not svg_images(first) and figures.raster_images(fig) == 0
    # every letter a glyph path, placed by <use>; the curve one path of its ~400 points
    assert len(root.findall(f".//{SVG}use")) > 20 and not root.findall(f".//{SVG}text")
    assert max(path.get("d", "").count("L") for path in root.iter(f"{SVG}path")) > 300
    # laid out as the desktop picture: the column's 6,88 in = 495,36 pt; then put back
    assert root.get("width") == "495.36pt"
    assert tuple(fig.get_size_inches()) == (7.5, 3.0)
    assert figures.svg(fig, figures.layout_for(figures.COLUMN_WIDTH)) == first
    assert figures.svg(line_figure()) == figures.svg(line_figure())


def test_a_heat_map_keeps_its_raster_and_says_so():
    fig = heat_map_figure()
    text = figures.svg(fig)
    assert figures.raster_images(fig) == 1
    assert len(svg_images(text)) == figures.svg_raster_count(text) == 1
    # a colorbar of many colours: matplotlib rasterizes its ramp, a second image
    fig.colorbar(fig.axes[0].images[0])
    assert figures.raster_images(fig) == 2 == len(svg_images(figures.svg(fig)))


def test_a_figure_shown_in_the_html_book_carries_its_svg(monkeypatch):
    monkeypatch.setenv(interactive.HTML_BOOK, "1")
    fig = line_figure()
    bundle, _metadata = interactive._figure_bundle(fig)
    picture = bundle[interactive.PICTURE_MIME]
    assert picture["rasters"] == 0
    assert picture["svg"] == figures.svg(fig, figures.layout_for(figures.COLUMN_WIDTH))


def test_a_sliders_figure_is_its_start_frame(monkeypatch):
    monkeypatch.setenv(interactive.HTML_BOOK, "1")
    explorer = interactive.explore(line_figure, alt=lambda title: f"nadpis {title}",
                                   title=interactive.slider(["a", "b", "c"], value="b"))
    data = explorer.page_data()
    start = figures.svg(line_figure("b"), figures.layout_for(figures.PANEL_WIDTH))
    assert data["svg"] == start and data["rasters"] == 0
    assert data["svg"] != figures.svg(line_figure("a"), figures.layout_for(figures.PANEL_WIDTH))


@pytest.mark.parametrize(("text", "name"), [
    ("Ztráta tří modelů v natech během 3 000 kroků tréninku, vodorovná osa logaritmická.",
     "ztrata-tri-modelu-v-natech-behem-3-000"),
    ("Tepelná mapa vah naučeného modelu s pozorností pro osm nových příkladů",
     "tepelna-mapa-vah-nauceneho-modelu"),  # no preposition at the end
    ("posuvník rozdíl skóre Δ", "posuvnik-rozdil-skore"),
    ("Δ √", "obrazek"),
])
def test_file_names_are_readable_ascii(text, name):
    assert figure_pack.slug(text) == name
    assert len(name) <= figure_pack.SLUG_CHARS


def test_numbers_from_the_table_of_contents_in_html_and_in_the_single_page():
    class Env:
        config = type("Config", (), {"root_doc": "intro"})
        toc_secnumbers = {"02_uloha": {"": (2,), "#uloha": (2, 1)}}

    html = Env()
    single = Env()  # the single-page builder's merged numbers
    single.toc_secnumbers = {"intro": {"02_uloha/": (2,), "02_uloha/#uloha": (2, 1)}}
    for env in (html, single):
        assert figure_pack.figure_number(env, "02_uloha", 3) == "2.3"
        assert figure_pack.figure_number(env, "dodatek", 1) == "D.1"
        assert figure_pack.chapter_of(env, "glosar") is None
        assert (figure_pack.file_stem(env, "dodatek", 1, "Přímka v dodatku.")
                == "obrazek-d-01-primka-v-dodatku")


def test_the_attribution_wraps_between_its_parts():
    parts = ["Obrázek 2.3 z knihy Mechanismus pozornosti, verze 0.1.0", REPOSITORY,
             "licence CC BY-SA 4.0"]
    assert figure_pack.wrap(parts, 1000) == [" · ".join(parts)]
    narrow = figure_pack.wrap(parts, 250)
    assert len(narrow) > 1 and " · ".join(narrow) == " · ".join(parts)


def test_the_svg_gets_its_attribution_title_and_licence():
    fig = line_figure()
    plain = figures.svg(fig)
    lines = ["Obrázek 2.3 z knihy Mechanismus pozornosti, verze 0.1.0", "licence CC BY-SA 4.0"]
    text = figure_pack.attributed_svg(plain, lines, "Obrázek 2.3", "Sinus „a“ <b>", REPOSITORY)
    root = ET.fromstring(text.encode("utf-8"))
    assert float(root.get("height").removesuffix("pt")) > float(
        ET.fromstring(plain.encode("utf-8")).get("height").removesuffix("pt"))
    assert root.get("viewBox").split()[3] == root.get("height").removesuffix("pt")
    assert [t.text for t in root.find(f"{SVG}g[@id='attribution']").iter(f"{SVG}text")] == lines
    assert root.find(f"{SVG}title").text == "Obrázek 2.3"
    assert root.find(f"{SVG}desc").text == "Sinus „a“ <b>"
    assert figure_pack.LICENSE_URL in text and REPOSITORY in text
    assert not svg_images(text)


def test_the_png_gets_its_attribution_line_and_text_chunks():
    png = interactive.figure_png(line_figure())
    lines = ["Obrázek 2.3 z knihy Mechanismus pozornosti, verze 0.1.0 · licence CC BY-SA 4.0"]
    framed = Image.open(io.BytesIO(figure_pack.attributed_png(png, lines, "Obrázek 2.3",
                                                              "sinus", REPOSITORY)))
    original = Image.open(io.BytesIO(png))
    assert framed.width == original.width and framed.height > original.height
    strip = np.asarray(framed.convert("L"))[original.height:]
    assert (strip < 160).sum() > 200, "no text drawn in the attribution strip"
    assert framed.text["Copyright"] == lines[0]
    assert framed.text["Source"] == REPOSITORY and framed.text["Description"] == "sinus"


# ---- a small book ------------------------------------------------------------------------

HEADER = textwrap.dedent("""\
    ---
    jupytext:
      text_representation:
        extension: .md
        format_name: myst
        format_version: 0.13
        jupytext_version: 1.19.6
    kernelspec:
      display_name: Python 3
      language: python
      name: python3
    ---
    """)

CHAPTER = HEADER + textwrap.dedent("""\

    # Kapitola s obrázky

    ```{code-cell} ipython3
    import numpy as np

    from attention_display.interactive import explore, slider
    from attention_display.style import new_figure


    def sine(k):
        fig, ax = new_figure(figsize=(6, 3))
        x = np.linspace(0, 10, 200)
        ax.plot(x, np.sin(k * x))
        ax.set(xlabel="x", ylabel="sin kx")
        return fig


    explore(sine, alt=lambda k: f"Sinus pro k = {k}.",
            k=slider([1, 2, 3], label="frekvence k", value=2))
    ```

    ```{code-cell} ipython3
    ---
    mystnb:
      image:
        alt: Čára sinu od nuly do deseti.
    ---
    sine(1)
    ```

    ```{code-cell} ipython3
    ---
    mystnb:
      image:
        alt: Tepelná mapa čtyři krát čtyři, od bílé po černou.
    ---
    fig, ax = new_figure(figsize=(4, 3))
    ax.imshow(np.arange(16).reshape(4, 4), cmap="Greys")
    fig
    ```
    """)

APPENDIX = HEADER + textwrap.dedent("""\

    # Dodatek s obrázkem

    ```{code-cell} ipython3
    ---
    mystnb:
      image:
        alt: Přímka v dodatku.
    ---
    from attention_display.style import new_figure

    fig, ax = new_figure(figsize=(5, 3))
    ax.plot([0, 1], [0, 1])
    fig
    ```
    """)


@pytest.fixture(scope="module")
def small_book(tmp_path_factory):
    """The small book built strictly with BOOK_REPOSITORY_URL set; its HTML folder."""
    source = tmp_path_factory.mktemp("figure-pack") / "book"
    source.mkdir()
    for name in ("_config.yml", "references.bib"):
        shutil.copy(BOOK / name, source / name)
    for folder in ("_ext", "_static"):
        if (BOOK / folder).is_dir():
            shutil.copytree(BOOK / folder, source / folder,
                            ignore=shutil.ignore_patterns("__pycache__"))
    (source / "intro.md").write_text("# Úvod\n\nKniha s obrázky.\n", encoding="utf-8")
    (source / "01_obrazky.md").write_text(CHAPTER, encoding="utf-8")
    (source / "dodatek.md").write_text(APPENDIX, encoding="utf-8")
    (source / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nparts:\n  - caption: Kapitoly\n    numbered: true\n"
        "    chapters:\n      - file: 01_obrazky\n  - caption: Doplňky\n    chapters:\n"
        "      - file: dodatek\n", encoding="utf-8")
    env = {**os.environ, "BOOK_REPOSITORY_URL": REPOSITORY}
    result = subprocess.run(["jupyter-book", "build", "-W", "-n", "--keep-going", str(source)],
                            capture_output=True, text=True, cwd=ROOT, timeout=900, env=env)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-6000:]
    assert not sphinx_warnings(log), "\n".join(sphinx_warnings(log))
    return source / "_build" / "html"


LABEL = re.compile(r'<p class="ac-figure-label"><span class="ac-figure-number">'
                   r"Obrázek&nbsp;([0-9A-Z]+)\.(\d+)</span>(.*?)</p>")


def labels(html):
    return [(chapter, int(index), re.findall(r'href="([^"]+)"', rest))
            for chapter, index, rest in LABEL.findall(html)]


def figures_on(html):
    """The page's figures in order: a static figure's light picture, a slider's panel."""
    return re.findall(r'<picture class="ac-picture ac-light">(?:(?!</picture>).)*'
                      r'class="ac-figure"|<div class="ac-explore">', html, re.S)


def test_the_small_books_figures_are_numbered_with_their_files(small_book):
    chapter = (small_book / "01_obrazky.html").read_text(encoding="utf-8")
    found = labels(chapter)
    assert [(c, i) for c, i, _ in found] == [("1", 1), ("1", 2), ("1", 3)]
    assert len(figures_on(chapter)) == 3
    # each label follows its figure: the slider's panel, then each picture
    assert chapter.index('<div class="ac-explore">') < chapter.index("Obrázek&nbsp;1.1")
    names = [links for _c, _i, links in found]
    assert names[0] == ["obrazky/obrazek-01-01-posuvnik-frekvence-k.svg",
                        "obrazky/obrazek-01-01-posuvnik-frekvence-k.png"]
    assert names[1][0] == "obrazky/obrazek-01-02-cara-sinu-od-nuly-do-deseti.svg"
    appendix = labels((small_book / "dodatek.html").read_text(encoding="utf-8"))
    assert [(c, i) for c, i, _ in appendix] == [("D", 1)]
    assert appendix[0][2][0] == "obrazky/obrazek-d-01-primka-v-dodatku.svg"
    for _c, _i, links in found + appendix:
        for link in links:
            assert (small_book / link).is_file(), link


def test_the_small_books_zip_and_menu(small_book):
    folder = small_book / figure_pack.FOLDER
    manifest = json.loads((folder / "obrazky.json").read_text(encoding="utf-8"))
    assert [m["number"] for m in manifest] == ["1.1", "1.2", "1.3", "D.1"]
    assert [m["raster_images"] for m in manifest] == [0, 0, 1, 0]
    with zipfile.ZipFile(folder / figure_pack.ZIP_NAME) as pack:
        names = set(pack.namelist())
        expected = {f"obrazky/{m[kind]}" for m in manifest for kind in ("svg", "png")}
        assert expected | {"obrazky/README.txt", "obrazky/obrazky.json"} == names
        for m in manifest:
            svg = pack.read(f"obrazky/{m['svg']}").decode("utf-8")
            assert len(svg_images(svg)) == m["raster_images"], m["svg"]
            assert (folder / m["svg"]).read_text(encoding="utf-8") == svg
            attribution = m["attribution"]
            assert f"Obrázek {m['number']} z knihy Mechanismus pozornosti" in attribution
            assert f"verze {attention_core.__version__}" in attribution
            assert REPOSITORY in attribution and "CC BY-SA 4.0" in attribution
            png = Image.open(io.BytesIO(pack.read(f"obrazky/{m['png']}")))
            assert png.text["Copyright"] == attribution
    page = (small_book / "intro.html").read_text(encoding="utf-8")
    assert f'href="obrazky/{figure_pack.ZIP_NAME}"' in page
    assert figure_pack.LINK_TEXT in page


def test_the_print_stylesheet_keeps_the_number_and_drops_the_links(small_book):
    css = (small_book / "_static" / figure_pack.CSS_FILE).read_text(encoding="utf-8")
    assert re.search(r"@media print\s*{\s*\.ac-figure-files\s*{\s*display:\s*none", css)
    assert "ac-figure-number" not in css.split("@media print")[1]


# ---- the whole book ----------------------------------------------------------------------


@pytest.mark.build
def test_every_figure_of_the_book_has_its_number_and_pack_files(built_html):
    folder = built_html / figure_pack.FOLDER
    manifest = json.loads((folder / "obrazky.json").read_text(encoding="utf-8"))
    linked = set()
    for name in chapter_pages(built_html):
        html = (built_html / name).read_text(encoding="utf-8")
        found = labels(html)
        assert len(found) == len(figures_on(html)), f"{name}: a figure without its number"
        section = re.search(r'<h1><span class="section-number">(\d+)\.', html)
        chapter = (section.group(1) if section
                   else figure_pack.PAGE_LETTERS.get(name.removesuffix(".html")))
        assert [(c, i) for c, i, _ in found] == [(chapter, k + 1) for k in range(len(found))]
        for _c, _i, links in found:
            assert [link.rsplit(".", 1)[1] for link in links] == ["svg", "png"], links
            for link in links:
                assert (built_html / link).is_file(), f"{name}: {link} missing"
                linked.add(link.removeprefix(f"{figure_pack.FOLDER}/"))
        # the pack is a download: no page loads a file of it
        assert not re.search(rf'(?:src|srcset)="{figure_pack.FOLDER}/', html), name
    files = {m[kind] for m in manifest for kind in ("svg", "png")}
    assert linked == files
    with zipfile.ZipFile(folder / figure_pack.ZIP_NAME) as pack:
        assert {f"{figure_pack.FOLDER}/{f}" for f in files} <= set(pack.namelist())
    line_plots = 0
    for m in manifest:
        svg = (folder / m["svg"]).read_text(encoding="utf-8")
        assert len(svg_images(svg)) == m["raster_images"], m["svg"]
        line_plots += m["raster_images"] == 0
    assert line_plots >= 20, f"only {line_plots} figures without raster images"
