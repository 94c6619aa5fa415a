/*
 * Czech search for the book (loaded by the search page only; see book/_ext/czech_search.py).
 *
 * The index holds Snowball Czech stems without diacritics. A query word is reduced the same
 * way through the table the build wrote (CZECH_SEARCH_DATA.forms, from the Python stemmer);
 * a word the book does not use loses the longest ending the book's forms have, if what
 * remains is a term of the index. Results: one line per page, a Czech count with the right
 * plural, and a snippet from CZECH_SEARCH_DATA.texts (no fetch, so it works from file://).
 */
"use strict";

const CzechSearch = (() => {
  const data = (typeof CZECH_SEARCH_DATA !== "undefined")
    ? CZECH_SEARCH_DATA : { forms: {}, endings: [], texts: {} };
  const has = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
  const fold = (word) => word.normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC");
  const WORD = /[\p{L}\p{N}_]+/gu;

  const isTerm = (term) => {
    const index = (typeof Search !== "undefined") ? Search._index : null;
    return !!index && (has(index.terms, term) || has(index.titleterms, term));
  };

  /** The index term for one word of a query (or of a page). */
  const stem = (word) => {
    const lower = word.toLowerCase();
    if (has(data.forms, lower)) return data.forms[lower];
    const folded = fold(lower);
    if (has(data.forms, folded)) return data.forms[folded];
    if (isTerm(folded)) return folded;
    for (const ending of data.endings) {
      if (folded.length > ending.length + 1 && folded.endsWith(ending)) {
        const rest = folded.slice(0, folded.length - ending.length);
        if (isTerm(rest)) return rest;
      }
    }
    return folded;
  };

  /** "Nalezena 1 stránka", "Nalezeny 3 stránky", "Nalezeno 5 stránek". */
  const countMessage = (count) => {
    if (count === 0) {
      return "Nic nenalezeno. Zkuste jiné nebo méně slov; diakritiku psát nemusíte.";
    }
    const n = count.toLocaleString("cs-CZ");
    if (count === 1) return `Nalezena 1\u00a0stránka.`;
    if (count >= 2 && count <= 4) return `Nalezeny ${n}\u00a0stránky.`;
    return `Nalezeno ${n}\u00a0stránek.`;
  };

  /** Does the page word ``term`` answer the query term ``wanted`` (whole or partly)? */
  const matches = (term, wanted) => term === wanted
    || (wanted.length > 2 && term.includes(wanted));

  /** A paragraph with some 240 characters of ``text`` around the first matching word. */
  const snippet = (text, searchTerms) => {
    const wanted = [...searchTerms];
    const hits = [];
    for (const match of text.matchAll(WORD)) {
      const term = stem(match[0]);
      if (wanted.some((w) => matches(term, w))) {
        hits.push([match.index, match.index + match[0].length]);
      }
    }
    const first = hits.length ? hits[0][0] : 0;
    let start = Math.max(0, first - 100);
    if (start > 0) {
      const space = text.indexOf(" ", start);
      if (space !== -1 && space < first) start = space + 1;
    }
    let end = Math.min(text.length, start + 240);
    if (end < text.length) {
      const space = text.lastIndexOf(" ", end);
      if (space > first) end = space;
    }
    const paragraph = document.createElement("p");
    paragraph.classList.add("context");
    paragraph.append(start > 0 ? "… " : "");
    let position = start;
    for (const [a, b] of hits) {
      if (a < start || b > end) continue;
      paragraph.append(text.slice(position, a));
      const mark = document.createElement("span");
      mark.classList.add("highlighted");
      mark.textContent = text.slice(a, b);
      paragraph.append(mark);
      position = b;
    }
    paragraph.append(text.slice(position, end) + (end < text.length ? " …" : ""));
    return paragraph;
  };

  /** Titles in the index carry the book's no-break spaces; queries have plain ones. */
  const plainTitles = () => {
    const index = Search._index;
    if (!index || index._czechPlainTitles) return;
    const titles = {};
    for (const [title, places] of Object.entries(index.alltitles)) {
      const plain = title.replace(/[\u00a0\u202f]/g, " ");
      titles[plain] = (titles[plain] || []).concat(places);
    }
    index.alltitles = titles;
    index._czechPlainTitles = true;
  };

  const showItem = (item, searchTerms) => {
    const [docName, title, anchor, descr] = item;
    const listItem = document.createElement("li");
    const link = listItem.appendChild(document.createElement("a"));
    link.href = docName + DOCUMENTATION_OPTIONS.LINK_SUFFIX + anchor;
    link.innerHTML = title;
    if (descr) {
      listItem.appendChild(document.createElement("span")).innerHTML = " (" + descr + ")";
    }
    if (has(data.texts, docName)) {
      listItem.appendChild(snippet(data.texts[docName], searchTerms));
    }
    Search.output.appendChild(listItem);
  };

  /** Replaces Search.query of Sphinx's searchtools.js: same search, Czech display. */
  const query = (queryText) => {
    plainTitles();
    const [searchQuery, searchTerms, excludedTerms, highlightTerms, objectTerms] =
      Search._parseQuery(queryText.replace(/[\u00a0\u202f]/g, " "));
    const results = Search._performSearch(
      searchQuery, searchTerms, excludedTerms, highlightTerms, objectTerms);
    // best first, each page once (its best place: a section title or the page)
    const seen = new Set();
    const pages = results.reverse().filter((item) => {
      if (seen.has(item[0])) return false;
      seen.add(item[0]);
      return true;
    });
    Search.stopPulse();
    Search.title.innerText = "Výsledky hledání";
    pages.forEach((item) => showItem(item, searchTerms));
    Search.status.innerText = countMessage(pages.length);
    Search.status.setAttribute("role", "status");
  };

  return { stem, fold, countMessage, query, snippet };
})();

if (typeof Search !== "undefined") {
  Search.query = CzechSearch.query;
}
