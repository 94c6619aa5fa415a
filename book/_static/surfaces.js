/* The book wherever its readers are (see surfaces.css): table cells that hold numbers,
 * keyboard access to formulas that scroll, and a page that prints well.
 *
 * 0. A table cell that holds a number (or a vector of numbers) gets the class book-number,
 *    which keeps it on one line.
 * 1. A display formula written with and without its line breaks (book/_ext/book_math.py)
 *    shows without them wherever that fits its column. A display formula wider than the
 *    column scrolls in its own box; such a box gets a tab stop so it can be scrolled from
 *    the keyboard (the theme does the same for code, outputs and tables, not for MathJax's
 *    boxes).
 * 2. A table wider than its column (a phone) is shown as cards: each row a box, each cell
 *    on a line of its own after its column's heading (data-label, written here from the
 *    table's head). Whether it fits is measured in the table's own form.
 * 3. Before printing: a page in dark mode switches to light (paper is white), every slider
 *    goes back to its start value (the figure and readout the chapter opens with), a
 *    formula or table still wider than the paper's column is scaled down to fit instead of
 *    being cut, and code is split into lines, so that a wrapped line keeps its indentation.
 *    After printing everything is put back.
 *    The whole-book PDF (book/_ext/book_pdf.py) calls window.bookPrint.prepare() itself.
 */
(function () {
  "use strict";

  /* The display formulas shown (not the copy of a formula that book_math.py hides). */
  function displayFormulas() {
    return Array.prototype.filter.call(
      document.querySelectorAll('mjx-container[jax="CHTML"][display="true"]'),
      function (box) { return getComputedStyle(box).visibility !== "hidden"; });
  }

  /* Each formula with breaks for narrow columns: the copy without them if it fits the
   * width ``widthOf(box)`` (the box's own by default). */
  function chooseBreaks(widthOf) {
    document.querySelectorAll(".ac-breakable").forEach(function (box) {
      var wide = box.querySelector(".ac-math-wide mjx-math");
      if (!wide) return;
      var width = widthOf ? widthOf(box) : box.clientWidth;
      var fits = wide.getBoundingClientRect().width <= width + 0.5;
      box.classList.toggle("ac-fits", fits);
      box.classList.toggle("ac-breaks", !fits);
    });
  }

  function fitFormulas() {
    chooseBreaks();
    addTabStops();
    stackTables();
  }

  /* The width a table may take: the content box (inside the padding) of the box it sits
   * in, the narrowest among its ancestors up to the article (a proof's or an exercise's
   * inner section has padding of its own), as tests/surfaces_checks.js measures it. */
  function columnWidth(table) {
    var article = table.closest("article") || document.body;
    var width = Infinity;
    for (var box = table.parentElement; box; box = box.parentElement) {
      var style = getComputedStyle(box);
      if (style.display !== "inline" && style.display !== "contents") {
        width = Math.min(width, box.clientWidth - parseFloat(style.paddingLeft) -
          parseFloat(style.paddingRight));
      }
      if (box === article) break;
    }
    return width;
  }

  function labelCells(table) {
    var heads = table.querySelectorAll("thead th");
    table.querySelectorAll("tbody tr").forEach(function (row) {
      Array.prototype.forEach.call(row.children, function (cell, k) {
        if (heads[k] && !cell.hasAttribute("data-label")) {
          cell.setAttribute("data-label", heads[k].textContent.replace(/\s+/g, " ").trim());
        }
      });
    });
  }

  function stackTables() {
    document.querySelectorAll(".bd-article table").forEach(function (table) {
      if (!table.querySelector("thead th") || table.closest("td, th")) return;
      table.classList.remove("ac-stacked");
      var width = Math.max(table.scrollWidth, table.getBoundingClientRect().width);
      if (width > columnWidth(table) + 1) {
        labelCells(table);
        table.classList.add("ac-stacked");
      }
    });
  }

  function addTabStops() {
    displayFormulas().forEach(function (box) {
      if (box.scrollWidth > box.clientWidth + 1) {
        box.tabIndex = 0;
        box.setAttribute("role", "region");
        if (!box.hasAttribute("aria-label")) box.setAttribute("aria-label", "vzorec");
      } else if (box.getAttribute("role") === "region") {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
    });
  }

  function whenTypeset(callback) {
    var mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise) {
      mj.startup.promise.then(callback);
    } else {
      window.addEventListener("load", function () {
        var later = window.MathJax;
        if (later && later.startup && later.startup.promise) later.startup.promise.then(callback);
        else callback();
      });
    }
  }

  /* A cell is "a number" when it holds only digits and what numbers are written with:
   * signs, separators, brackets of a vector, ±, ×, %, and at most a short unit. */
  var NUMBER = /^[\s\u00a0\u202f]*[−+\-–±(\[]?[\d\s\u00a0\u202f,.;:()\[\]−+\-–±×%\/·=≈<>…]*\d[\d\s\u00a0\u202f,.;:()\[\]−+\-–±×%\/·=≈<>…]*([\s\u00a0\u202f]*[A-Za-zμ]{1,3})?[\s\u00a0\u202f]*$/;

  function markNumbers() {
    document.querySelectorAll(".bd-article td").forEach(function (cell) {
      if (NUMBER.test(cell.textContent)) cell.classList.add("book-number");
    });
  }

  var resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(fitFormulas, 200);
  });
  function start() {
    markNumbers();
    whenTypeset(fitFormulas);
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }

  /* ---- print ---- */

  var undo = [];

  function setSlider(input, value) {
    if (input.value === value) return;
    input.value = value;
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }

  /* The column on A4 paper with the page margins of surfaces.css: 210 mm - 2 x 14 mm. */
  var PAPER_COLUMN = 182 / 25.4 * 96;

  /* The width ``element`` may take on paper. Laid out for print (the PDF emulates print
   * media before it calls prepare), that is the width of its column; from the browser's
   * print dialog the page is still laid out for the screen, so the paper's column less the
   * insets of the box around it (an admonition's padding) is the best estimate. */
  function paperWidth(element) {
    var article = element.closest("article") || document.body;
    var box = element.parentElement.closest(".admonition, .exercise, .solution, .proof, li") ||
      article;
    if (window.matchMedia("print").matches) return box.clientWidth;
    return PAPER_COLUMN - Math.max(0, article.clientWidth - box.clientWidth);
  }

  function fitWidth(element) {
    var needed = element.scrollWidth;
    var available = paperWidth(element);
    if (needed > available + 1 && available > 0) {
      var previous = element.style.zoom;
      element.style.zoom = String(Math.max(0.5, available / needed));
      undo.push(function () { element.style.zoom = previous; });
    }
  }

  /* The code of ``pre`` as one element per line, each with its indentation (--indent),
   * its highlighting kept: printed, a wrapped line goes on under its own indentation. */
  function splitLines(pre) {
    var lines = [[]];
    (function walk(node, classes) {
      node.childNodes.forEach(function (child) {
        if (child.nodeType === 3) {
          child.textContent.split("\n").forEach(function (part, k) {
            if (k) lines.push([]);
            if (part) lines[lines.length - 1].push([part, classes]);
          });
        } else if (child.nodeType === 1) {
          walk(child, classes.concat([child.className]));
        }
      });
    })(pre, []);
    if (!lines[lines.length - 1].length) lines.pop();
    var original = pre.innerHTML;
    pre.textContent = "";
    lines.forEach(function (pieces) {
      var line = document.createElement("span");
      line.className = "ac-print-line";
      var text = pieces.map(function (piece) { return piece[0]; }).join("");
      line.style.setProperty("--indent", text.match(/^ */)[0].length + "ch");
      pieces.forEach(function (piece) {
        var content = document.createTextNode(piece[0]);
        piece[1].slice().reverse().forEach(function (name) {
          var span = document.createElement("span");
          span.className = name;
          span.appendChild(content);
          content = span;
        });
        line.appendChild(content);
      });
      if (!text) line.textContent = "\u200b";  // an empty line keeps its height
      pre.appendChild(line);
    });
    undo.push(function () { pre.innerHTML = original; });
  }

  function prepare() {
    if (undo.length) return;  // already prepared
    var root = document.documentElement;
    if (root.dataset.theme === "dark") {  // paper is light: print a dark page in light mode
      root.dataset.theme = "light";
      undo.push(function () { root.dataset.theme = "dark"; });
    }
    chooseBreaks(paperWidth);
    undo.push(function () { chooseBreaks(); });
    document.querySelectorAll(".ac-explore input[type=range]").forEach(function (input) {
      var now = input.value;
      var start = input.defaultValue;  // the value attribute: the slider's start value
      setSlider(input, start);
      undo.push(function () { setSlider(input, now); });
    });
    displayFormulas().forEach(function (box) {
      var math = box.querySelector("mjx-math") || box;
      var previous = box.style.zoom;
      var available = paperWidth(box);
      var needed = math.getBoundingClientRect().width / (Number(previous) || 1);
      if (needed > available + 1) {
        box.style.zoom = String(Math.max(0.5, available / needed));
        undo.push(function () { box.style.zoom = previous; });
      }
    });
    document.querySelectorAll(".bd-article table").forEach(fitWidth);
    document.querySelectorAll(".bd-article div.highlight pre").forEach(splitLines);
    undo.push(function () {});  // marks "prepared" even on a page with nothing to undo
  }

  function restore() {
    while (undo.length) undo.pop()();
  }

  window.bookPrint = { prepare: prepare, restore: restore };
  window.addEventListener("beforeprint", prepare);
  window.addEventListener("afterprint", restore);
})();
