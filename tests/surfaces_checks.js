/* Checks run inside the book's pages by the reader-surface tests (tests/surfaces_support.py).
 * One object of functions; Python evaluates "(<this file>).name()" in the page. */
({
  MIN_FIGURE_SCALE: 1 / 2.3,

  measureLayout() {
    const problems = [];
    const px = v => parseFloat(v) || 0;
    const article = document.querySelector('article.bd-article') || document.querySelector('main');
    // The column an element must fit in: the content box (inside the padding) of the box
    // it sits in. That is the narrowest content box among its ancestors up to the article
    // (a proof's or an exercise's inner section has its own padding, a cell is narrower
    // than its table); inline ancestors lay out no column and are passed over.
    const columnOf = el => {
      let width = Infinity;
      for (let box = el.parentElement; box; box = box.parentElement) {
        const s = getComputedStyle(box);
        if (s.display !== 'inline' && s.display !== 'contents') {
          width = Math.min(width, box.clientWidth - px(s.paddingLeft) - px(s.paddingRight));
        }
        if (box === article) break;
      }
      return width;
    };
    const where = el => {
      const section = el.closest('section[id]');
      return section ? '#' + section.id : '';
    };
    const short = t => t.replace(/\s+/g, ' ').trim().slice(0, 60);
    const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';

    const scroller = document.scrollingElement;
    const sideways = scroller.scrollWidth - window.innerWidth;
    if (sideways > 1) problems.push({kind: 'page', text: `the page scrolls sideways by ${sideways} px`});

    const counts = {tables: 0, formulas: 0, outputs: 0, images: 0};
    // a number, or a vector of numbers, with at most a short unit: must not wrap in a cell
    const NUMBER = /^[\s\u00a0\u202f]*[−+\-–±(\[]?[\d\s\u00a0\u202f,.;:()\[\]−+\-–±×%\/·=≈<>…]*\d[\d\s\u00a0\u202f,.;:()\[\]−+\-–±×%\/·=≈<>…]*([\s\u00a0\u202f]*[A-Za-zμ]{1,3})?[\s\u00a0\u202f]*$/;
    if (!article) return {problems, counts};

    article.querySelectorAll('table').forEach(table => {
      if (!shown(table)) return;
      counts.tables += 1;
      const col = columnOf(table);
      const width = Math.max(table.scrollWidth, table.getBoundingClientRect().width);
      if (width > col + 1) {
        const head = short(table.querySelector('th, td')?.textContent || '');
        problems.push({kind: 'table', text: `table ${where(table)} „${head}…“ is ${Math.round(width)} px wide in a column of ${Math.round(col)} px`});
      }
      table.querySelectorAll('td, th').forEach(cell => {
        const text = cell.textContent.trim();
        if (!NUMBER.test(text)) return;
        const tops = [];
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          if (!node.textContent.trim()) continue;
          const range = document.createRange();
          range.selectNodeContents(node);
          for (const r of range.getClientRects()) if (r.width > 0) tops.push(r.top);
        }
        if (Math.max(...tops) - Math.min(...tops) > 4) problems.push({kind: 'table', text: `table ${where(table)}: the number „${short(text)}“ wraps over two lines`});
      });
    });

    article.querySelectorAll('mjx-container[display="true"]').forEach(formula => {
      if (!shown(formula)) return;
      counts.formulas += 1;
      const math = formula.querySelector('mjx-math') || formula;
      const width = math.getBoundingClientRect().width;
      const col = columnOf(formula.closest('div.math') || formula);
      if (width > col + 1) {
        const tex = short(formula.closest('.math')?.getAttribute('data-tex') || formula.querySelector('mjx-assistive-mml')?.textContent || '');
        problems.push({kind: 'formula', text: `display formula ${where(formula)} is ${Math.round(width)} px wide in a column of ${Math.round(col)} px: ${tex}`});
      }
    });

    article.querySelectorAll('.cell_output pre, .output pre').forEach(pre => {
      if (!shown(pre)) return;
      counts.outputs += 1;
      if (pre.scrollWidth > pre.clientWidth + 1) {
        problems.push({kind: 'output', text: `output ${where(pre)} „${short(pre.textContent)}…“ needs ${pre.scrollWidth} px in ${pre.clientWidth} px (not wrapped)`});
      }
    });

    article.querySelectorAll('img').forEach(img => {
      if (!shown(img) || !img.naturalWidth) return;
      counts.images += 1;
      const scale = img.getBoundingClientRect().width / img.naturalWidth;
      if (scale < this.MIN_FIGURE_SCALE) {
        problems.push({kind: 'figure', text: `figure ${where(img)} (${img.naturalWidth} px) is shown at ${scale.toFixed(2)} of its width`});
      }
    });

    // a toggle's title and its hint ("Klikněte pro zobrazení") side by side, not overlapping
    article.querySelectorAll('.admonition.toggle > .admonition-title').forEach(title => {
      const button = title.querySelector('button.toggle-button');
      if (!button || !shown(button)) return;
      const hint = button.getBoundingClientRect();
      const range = document.createRange();
      for (const node of title.childNodes) {
        if (node === button) continue;
        range.selectNodeContents(node);
        for (const r of range.getClientRects()) {
          if (r.width > 0 && r.right > hint.left + 1 && r.bottom > hint.top + 1 && r.top < hint.bottom - 1) {
            problems.push({kind: 'title', text: `the title „${short(title.textContent)}“ runs into its toggle's hint`});
            return;
          }
        }
      }
    });

    // anything else that sticks out of the article on the right (not inside a scroller)
    const right = article.getBoundingClientRect().right;
    const scrolls = el => { const o = getComputedStyle(el).overflowX; return o === 'auto' || o === 'scroll' || o === 'hidden'; };
    let outside = 0;
    article.querySelectorAll('p, li, div, pre, table, img, dl, h1, h2, h3, h4').forEach(el => {
      if (!shown(el) || el.getBoundingClientRect().right <= right + 1) return;
      for (let up = el.parentElement; up && up !== article; up = up.parentElement) if (scrolls(up)) return;
      if (outside++ < 5) problems.push({kind: 'sticks out', text: `<${el.tagName.toLowerCase()} class="${el.className}"> ${where(el)} ends ${Math.round(el.getBoundingClientRect().right - right)} px right of the article`});
    });
    return {problems, counts};
  },

  explores() {
    return [...document.querySelectorAll('article .ac-explore')].map(panel => {
      const img = [...panel.querySelectorAll('img.ac-frame')].find(i => i.getClientRects().length);
      const box = img ? img.getBoundingClientRect() : {width: 0, height: 0};
      const section = panel.closest('section[id]');
      return {where: section ? '#' + section.id : '', height: panel.getBoundingClientRect().height,
              src: img ? img.currentSrc : '', shown: [box.width, box.height],
              loaded: !!(img && img.complete && img.naturalWidth)};
    });
  },

  formulas() {
    // MathJax's own tab stops (a formula that scrolls in its box gets one from surfaces.js,
    // role "region"), and the font of Czech text inside formulas against the text's
    const article = document.querySelector('article.bd-article');
    const textFont = article ? getComputedStyle(article.querySelector('p') || article).fontFamily : '';
    const tabStops = [...document.querySelectorAll('mjx-container, mjx-container *')]
      .filter(e => e.tabIndex >= 0 && e.getAttribute('role') !== 'region').length;
    const regions = document.querySelectorAll('mjx-container[role="region"]').length;
    const fonts = [...document.querySelectorAll('mjx-mtext')]
      .filter(e => /[^\x00-\x7f]/.test(e.textContent.replace(/\u00a0/g, '')))
      .filter(e => !getComputedStyle(e).fontFamily.endsWith(textFont))
      .map(e => e.textContent.trim() + ': ' + getComputedStyle(e).fontFamily);
    const breakable = [...document.querySelectorAll('.ac-breakable')].map(b => ({
      fits: b.classList.contains('ac-fits'), breaks: b.classList.contains('ac-breaks')}));
    return {tabStops, regions, fonts, breakable};
  },

  backgrounds() {
    const parse = c => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return [0, 0, 0, 0];
      const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
    const effective = el => {
      const layers = [];
      for (let e = el; e; e = e.parentElement) layers.push(parse(getComputedStyle(e).backgroundColor));
      let rgb = [255, 255, 255];  // the canvas
      for (const [r, g, b, a] of layers.reverse()) rgb = [r * a + rgb[0] * (1 - a), g * a + rgb[1] * (1 - a), b * a + rgb[2] * (1 - a)];
      return rgb;
    };
    const lum = ([r, g, b]) => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
    const kinds = {
      'table': 'article table, article table tr',
      'output': 'article .cell_output .output, article .cell_output pre',
      'slider panel': 'article .ac-explore',
      'admonition': 'article .admonition, article div.exercise, article div.solution, article div.proof, article details.hide > summary',
    };
    const found = [];
    for (const [kind, selector] of Object.entries(kinds)) {
      document.querySelectorAll(selector).forEach(el => {
        if (!el.getClientRects().length) return;
        const bg = effective(el);
        const section = el.closest('section[id]');
        found.push({kind, where: section ? '#' + section.id : '', luminance: lum(bg),
                    rgb: bg.map(Math.round)});
      });
    }
    return found;
  },

  printProblems() {
    const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    const problems = [];
    const count = (selector, what) => {
      const n = [...document.querySelectorAll(selector)].filter(shown).length;
      if (n) problems.push(`${n} ${what} printed`);
    };
    count('article details.hide > summary', 'code toggles („Zobrazit kód“)');
    count('article .ac-explore input[type=range]', 'slider controls');
    count('article div.solution', 'solutions (inside the chapter)');
    count('article button.toggle-button, article button.copybtn', 'buttons');
    document.querySelectorAll('article .ac-explore').forEach((panel, k) => {
      const img = panel.querySelector('img.ac-frame');
      if (!img || !shown(img)) problems.push(`slider ${k + 1}: its figure is not printed`);
      const caption = panel.querySelector('.ac-caption');
      if (!caption || !shown(caption)) problems.push(`slider ${k + 1}: its readout is not printed`);
      if (getComputedStyle(panel).breakInside !== 'avoid') problems.push(`slider ${k + 1}: may be split from its figure by a page break`);
      panel.querySelectorAll('input[type=range]').forEach((input, j) => {
        if (input.value !== input.defaultValue) problems.push(`slider ${k + 1}.${j + 1}: printed at ${input.value}, not at its start value ${input.defaultValue}`);
      });
    });
    const title = document.querySelector('article.bd-article h1');
    if (title && (!shown(title) || (title.querySelector('.section-number') && !shown(title.querySelector('.section-number'))))) {
      problems.push(`the chapter's title „${title.textContent.trim().slice(0, 40)}“ is printed without its number`);
    }
    document.querySelectorAll('article section').forEach(section => {
      const heading = section.querySelector(':scope > h1, :scope > h2, :scope > h3');
      if (!heading || !/Cvičení/.test(heading.textContent)) return;
      [...section.querySelectorAll(':scope > p')].filter(shown).forEach(p => {
        if (/sbalen|rozbal/.test(p.textContent)) problems.push(`„${p.textContent.trim().slice(0, 50)}…“ is printed, but paper has no folded solutions`);
      });
    });
    document.querySelectorAll('article div.highlight pre').forEach(pre => {
      if (shown(pre) && pre.textContent.trim() && !pre.querySelector('.ac-print-line')) {
        problems.push(`the code „${pre.textContent.trim().slice(0, 40)}…“ is not split into lines (a wrapped line would start at column 0)`);
      }
    });
    document.querySelectorAll('article pre').forEach(pre => {
      if (shown(pre) && pre.scrollWidth > pre.clientWidth + 1) {
        problems.push(`a line of „${pre.textContent.trim().slice(0, 40)}…“ is cut at the right edge (${pre.scrollWidth} px in ${pre.clientWidth} px)`);
      }
    });
    document.querySelectorAll('article .cell_output').forEach(out => {
      if (shown(out) && out.scrollHeight > out.clientHeight + 1) {
        problems.push(`an output „${out.textContent.trim().slice(0, 40)}…“ is cut at the bottom`);
      }
    });
    return problems;
  },

  solutions() {
    const shown = el => {
      if (!el.getClientRects().length) return false;
      const s = getComputedStyle(el);
      if (s.visibility === 'hidden' || Number(s.opacity) === 0) return false;
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0;
    };
    return [...document.querySelectorAll('article div.solution')].map((solution, k) => {
      const title = solution.querySelector(':scope > .admonition-title');
      const body = [...solution.children].filter(c => c !== title);
      const visible = [];
      body.forEach(part => {
        [part, ...part.querySelectorAll('*')].forEach(el => {
          if (!shown(el)) return;
          const own = [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim();
          if (own || ['IMG', 'PRE', 'svg', 'MJX-CONTAINER', 'TABLE'].includes(el.tagName)) {
            visible.push((el.className && typeof el.className === 'string' ? el.tagName.toLowerCase() + '.' + el.className.split(' ')[0] : el.tagName.toLowerCase()) + (own ? ` „${own.slice(0, 30)}“` : ''));
          }
        });
      });
      return {index: k, id: solution.id, title: title ? title.textContent.trim() : '',
              collapsible: !!solution.querySelector('.toggle-button'),
              visible: visible.slice(0, 5), visibleCount: visible.length,
              code: solution.querySelectorAll('.cell_input').length,
              outputs: solution.querySelectorAll('.cell_output').length};
    });
  },

  looseCells() {
    const loose = [];
    document.querySelectorAll('article section').forEach(section => {
      const heading = section.querySelector(':scope > h1, :scope > h2, :scope > h3');
      if (!heading || !/^Cvičení/.test(heading.textContent.trim())) return;
      section.querySelectorAll('div.cell').forEach(cell => {
        // a cell that shows nothing (input removed, no output) gives nothing away
        if (!cell.closest('div.exercise, div.solution') && cell.textContent.trim()) {
          loose.push('#' + section.id + ': „' + cell.textContent.trim().replace(/\s+/g, ' ').slice(0, 50) + '…“');
        }
      });
    });
    return loose;
  },

})
