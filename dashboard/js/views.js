// Helpers the list and detail views share.

import { el } from "./dom.js";

export const hint = (text) => el("span", { class: "hint" }, text);

/**
 * Replaces a list's rows. Each row works as a link: click, Enter or Space opens it; the arrow
 * keys move between rows. The focused row stays focused across a refresh.
 */
export function listRows(body, rows, selected, open, columns, empty) {
  const focused = document.activeElement && body.contains(document.activeElement) ? document.activeElement.dataset.id : null;
  body.replaceChildren(...rows.map((r) => el("tr", {
    tabindex: 0, "data-id": r.id, class: r.id === selected ? "selected" : "", "aria-selected": String(r.id === selected),
    onclick: () => open(r.id),
    onkeydown: (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); open(r.id); }
      else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const next = e.key === "ArrowDown" ? e.currentTarget.nextElementSibling : e.currentTarget.previousElementSibling;
        if (next) next.focus();
      }
    },
  }, r.cells.map((c) => el("td", {}, c)))));
  if (!rows.length) body.append(el("tr", {}, el("td", { colspan: columns, class: "hint" }, empty)));
  if (focused) {
    const again = body.querySelector(`tr[data-id="${CSS.escape(focused)}"]`);
    if (again) again.focus();
  }
}

/** Whether `data` differs from what `box` shows; an unchanged pane is left alone (open sections, loaded images, scroll). */
export function changed(box, data) {
  const text = JSON.stringify(data);
  if (box.dataset.shown === text) return false;
  box.dataset.shown = text;
  return true;
}

export const deviceLink = (ctx, id) => el("a", { class: "device-link", href: ctx.href("devices", id) }, id);
export const messageLink = (ctx, id, text) => el("a", { class: "message-link", href: ctx.href("messages", id) }, text || id);
