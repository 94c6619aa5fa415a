/*
 * Czech labels for the buttons that two extensions create in English from their scripts
 * (book/_ext/czech_interface.py does everything else on the Python side).
 *
 * - sphinx-copybutton: its Czech messages are missing; its script keeps `messages` and
 *   `locale` as globals and reads them when it adds the buttons (on DOMContentLoaded,
 *   after this file has run) and when a copy succeeds.
 * - sphinx-togglebutton: the button of each dropdown (a solution) is labelled
 *   "Toggle hidden content"; its state is in aria-expanded.
 * - sphinx-book-theme: the table of contents printed above a page is labelled "Page" in its
 *   layout template (shown only in print; a template override would replace the whole
 *   layout for one word).
 * - pydata-sphinx-theme's colour-mode button: its name and tooltip say the mode it is in
 *   ("Barevný režim: podle systému (tmavý)"), updated when a click changes it. The book's
 *   default mode is the system's ("auto"), resolved here at once, before the page is
 *   drawn (the theme's script, loaded later, would show a light page first).
 */
"use strict";

(() => {
  const root = document.documentElement;
  const systemDark = window.matchMedia("(prefers-color-scheme: dark)");
  if (root.dataset.theme !== "light" && root.dataset.theme !== "dark") {
    root.dataset.theme = systemDark.matches ? "dark" : "light";
  }
  const MODES = { light: "světlý", dark: "tmavý" };
  const modeLabel = () => {
    const mode = root.dataset.mode;
    const shown = MODES[root.dataset.theme] || MODES.light;
    return "Barevný režim: " + (MODES[mode] || `podle systému (${shown})`);
  };
  const labelModeButtons = () => {
    const label = modeLabel();
    document.querySelectorAll(".theme-switch-button").forEach((button) => {
      if (button.getAttribute("aria-label") === label) return;
      button.setAttribute("aria-label", label);
      button.setAttribute("data-bs-title", label);
      const tooltip = window.bootstrap && window.bootstrap.Tooltip.getInstance(button);
      if (tooltip) tooltip.setContent({ ".tooltip-inner": label });
    });
  };
  new MutationObserver(labelModeButtons).observe(root, {
    attributes: true, attributeFilter: ["data-mode", "data-theme"] });

  if (typeof messages !== "undefined" && typeof locale !== "undefined"
      && document.documentElement.lang === "cs") {
    messages.cs = {
      copy: "Kopírovat",
      copy_to_clipboard: "Zkopírovat do schránky",
      copy_success: "Zkopírováno",
      copy_failure: "Kopírování se nezdařilo",
    };
    locale = "cs";
    const retitle = (svg, text) => svg.replace(/<title>[^<]*<\/title>/, `<title>${text}</title>`);
    if (typeof iconCopy !== "undefined") iconCopy = retitle(iconCopy, messages.cs.copy_to_clipboard);
    if (typeof iconCheck !== "undefined") iconCheck = retitle(iconCheck, messages.cs.copy_success);
  }

  const relabel = () => {
    document.querySelectorAll(".toggle-button").forEach((button) => {
      button.setAttribute("aria-label", "Zobrazit nebo skrýt");
    });
    document.querySelectorAll('#jb-print-toc nav[aria-label="Page"]').forEach((nav) => {
      nav.setAttribute("aria-label", "Obsah stránky");
    });
    labelModeButtons();
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", relabel);
  } else {
    relabel();
  }
})();
