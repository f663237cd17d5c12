// Quire's document browser page: plain JavaScript, no framework, nothing from the internet.
// Every change is a POST carrying the session's CSRF token; everything the server learns
// (files changed by anyone, a document changed elsewhere, progress) arrives as server-sent
// events. Text from files is only ever put in the page as text (textContent), never as HTML.
"use strict";

const csrf = document.querySelector('meta[name="quire-csrf"]').content;
const $ = (id) => document.getElementById(id);
const state = {
  view: "grid", sort: "name", type: "", tag: "", place: "all", query: "",
  items: [], selected: null, editor: null, pendingEdit: null, editTimer: null, sending: false,
};

// MARK: Talking to the server

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Quire-CSRF": csrf },
    body: JSON.stringify(body),
  };
  const response = await fetch(path, { credentials: "same-origin", ...options });
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  if (!response.ok) {
    const error = new Error((data && data.error) || `The server answered ${response.status}.`);
    error.status = response.status;
    throw error;
  }
  return data;
}

function toast(message) {
  const node = $("toast");
  node.textContent = message;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { node.textContent = ""; }, 5000);
}

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes, unit = -1;
  do { value /= 1024; unit += 1; } while (value >= 1024 && unit < units.length - 1);
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function formatDate(iso) {
  const date = new Date(iso);
  return isNaN(date) ? "" : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

// MARK: Listing

// Each listing or search has a number; an answer that arrives after a newer request was
// made is dropped, so a slow listing never replaces search results (or the other way).
let generation = 0;

async function refresh() {
  if (state.query) return runSearch(state.query);
  const mine = ++generation;
  const params = new URLSearchParams({ sort: state.sort });
  if (state.type) params.set("type", state.type);
  if (state.tag) params.set("tag", state.tag);
  const path = state.place === "recents" ? "/api/recents" : `/api/documents?${params}`;
  try {
    const data = await api(path);
    if (mine !== generation) return;
    state.items = data.items;
    if (data.types) fillSelect($("type-filter"), data.types.map((t) => [t.id, t.name]), state.type, "All types");
    if (data.tags) { fillSelect($("tag-filter"), data.tags.map((t) => [t, t]), state.tag, "All tags"); fillTags(data.tags); }
    if (data.folders) fillFolders(data.folders);
    renderItems();
  } catch (error) {
    $("list-status").textContent = error.message;
  }
}

function fillSelect(select, options, current, allLabel) {
  select.replaceChildren(element("option", { value: "", text: allLabel }),
    ...options.map(([value, label]) => element("option", { value, text: label, selected: value === current })));
}

function fillTags(tags) {
  $("tag-list").replaceChildren(...tags.map((tag) => element("li", {},
    element("button", { type: "button", class: "tag-button", "aria-pressed": String(state.tag === tag), text: tag,
      onclick: () => { state.tag = state.tag === tag ? "" : tag; $("tag-filter").value = state.tag; showPlace("all"); } }))));
}

function fillFolders(folders) {
  state.folders = folders;
  $("folder-list").replaceChildren(...folders.map((folder) => element("li", { class: "meta", title: folder.path, text: folder.name })));
}

function renderItems() {
  const list = $("doc-list");
  $("hit-list").hidden = true;
  list.hidden = false;
  list.className = `docs ${state.view}`;
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-orientation", state.view === "grid" ? "horizontal" : "vertical");
  const focusedDoc = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.doc : null;
  list.replaceChildren(...state.items.map(renderItem));
  $("list-status").textContent = state.items.length === 1 ? "1 document" : `${state.items.length} documents`;
  const again = focusedDoc && list.querySelector(`[data-doc="${CSS.escape(focusedDoc)}"]`);
  if (again) again.focus();
  if (state.selected && !state.items.some((item) => item.doc === state.selected.doc)) {
    // The selected document went (renamed, moved, trashed by anyone): follow it when it can be found.
    hidePreview();
  }
}

function renderItem(item, index) {
  const selected = state.selected && state.selected.doc === item.doc;
  const meta = [item.typeName, formatSize(item.size), formatDate(item.modified)].filter(Boolean).join(" · ");
  const node = element("li", {
    class: "doc", role: "option", tabindex: (selected || (!state.selected && index === 0)) ? "0" : "-1",
    "aria-selected": String(Boolean(selected)), "data-doc": item.doc,
    "aria-label": `${item.name}, ${meta}${item.tags.length ? ", tags " + item.tags.join(", ") : ""}${item.gone ? ", gone" : ""}`,
    onclick: () => select(item), ondblclick: () => openEditor(item),
  },
  element("img", { src: item.thumbnail, alt: "", width: "256", height: "256", decoding: "async" }),
  element("div", { class: "name", text: item.name }),
  element("div", { class: "meta", text: item.folder ? `${item.folder} · ${meta}` : meta }),
  item.tags.length ? element("ul", { class: "tags", "aria-label": "Tags" }, ...item.tags.map((tag) => element("li", { text: tag }))) : null);
  return node;
}

// MARK: Search

async function runSearch(query) {
  state.query = query;
  if (!query) { showPlace(state.place); return; }
  const mine = ++generation;
  try {
    const data = await api(`/api/search?${new URLSearchParams({ q: query })}`);
    if (mine !== generation) return;
    const hits = $("hit-list");
    $("doc-list").hidden = true;
    hits.hidden = false;
    $("list-heading").textContent = `Search: ${query}`;
    $("list-status").textContent = data.hits.length === 1 ? "1 match" : `${data.hits.length} matches`;
    hits.replaceChildren(...data.hits.map((hit) => {
      const snippet = element("p", { class: "snippet" });
      for (const part of hit.snippet) snippet.append(part.hit ? element("mark", { text: part.text }) : document.createTextNode(part.text));
      return element("li", { "data-doc": hit.item.doc },
        element("button", { type: "button", text: hit.item.name, onclick: () => select(hit.item) }),
        element("span", { class: "meta", text: ` ${hit.item.folder || ""}` }), snippet);
    }));
  } catch (error) {
    $("list-status").textContent = error.message;
  }
}

// MARK: Selection and preview

function select(item) {
  state.selected = item;
  for (const node of document.querySelectorAll("#doc-list .doc")) {
    const on = node.dataset.doc === item.doc;
    node.setAttribute("aria-selected", String(on));
    node.tabIndex = on ? 0 : -1;
  }
  const pane = $("preview-pane");
  pane.hidden = false;
  $("preview-title").textContent = item.name;
  $("preview-meta").textContent = [item.typeName, formatSize(item.size), formatDate(item.modified), item.tags.join(", ")].filter(Boolean).join(" · ");
  const frame = $("preview-frame");
  frame.title = `Preview of ${item.name}`;
  const isPDF = item.mime === "application/pdf";
  frame.hidden = isPDF;
  $("pdf-viewer").hidden = !isPDF;
  if (isPDF) {
    frame.removeAttribute("src");
    showPDF(item);
  } else {
    pdf.doc = null;
    frame.src = `/api/preview?${new URLSearchParams({ doc: item.doc, v: item.modified })}`;
  }
  $("raw-link").href = item.raw;
  pane.querySelector('[data-action="edit"]').disabled = !item.editable;
}

function hidePreview() {
  state.selected = null;
  $("preview-pane").hidden = true;
  $("preview-frame").removeAttribute("src");
}

// MARK: PDF view (pages drawn by the server, a strip of thumbnails, outline, find, markup)

const pdf = { doc: null, info: null, observer: null, placingNote: false, version: 0 };

function pdfQuery(params) { return new URLSearchParams({ doc: pdf.doc, ...params }); }

/** The width to draw pages at: the pane's width at the screen's resolution (at least 800). */
function pdfDrawWidth() {
  const width = $("pdf-pages").clientWidth || 600;
  return Math.min(4096, Math.max(800, Math.round(width * (window.devicePixelRatio || 1))));
}

async function showPDF(item) {
  pdf.doc = item.doc;
  pdf.placingNote = false;
  const pages = $("pdf-pages"), strip = $("pdf-strip");
  pages.replaceChildren();
  strip.replaceChildren();
  $("pdf-status").textContent = "Loading…";
  if (pdf.observer) pdf.observer.disconnect();
  let info;
  try {
    info = await api(`/api/pdf/info?${pdfQuery({})}`);
  } catch (error) {
    $("pdf-status").textContent = error.message;
    return;
  }
  if (pdf.doc !== item.doc) return;
  pdf.info = info;
  showPDFUndo(info);
  $("pdf-status").textContent = `${info.pages.length} page${info.pages.length === 1 ? "" : "s"}` + (info.annotations ? ` · ${info.annotations} annotation${info.annotations === 1 ? "" : "s"}` : "");
  renderOutline(info.outline);
  // Pages are drawn as they scroll into view, at the pane's width and the screen's resolution.
  pdf.observer = new IntersectionObserver((entries) => {
    for (const entry of entries) if (entry.isIntersecting) loadPDFPage(entry.target);
  }, { root: pages, rootMargin: "200px" });
  info.pages.forEach((size, index) => {
    const page = element("div", { class: "pdf-page", "data-page": index, "aria-label": `Page ${index + 1}` });
    page.style.aspectRatio = `${size.width || 1} / ${size.height || 1}`;
    page.dataset.width = size.width;
    page.dataset.height = size.height;
    page.addEventListener("click", (event) => placeNote(event, page));
    pages.append(page);
    pdf.observer.observe(page);
    const thumb = element("button", { type: "button", "aria-label": `Go to page ${index + 1}`, onclick: () => page.scrollIntoView({ block: "start" }) },
      element("img", { alt: "", loading: "lazy", src: `/api/pdf/page?${pdfQuery({ page: index, width: 120, v: pdf.version })}` }),
      element("span", { text: String(index + 1) }));
    strip.append(thumb);
  });
  pages.addEventListener("scroll", markCurrentThumbnail);
  markCurrentThumbnail();
}

function markCurrentThumbnail() {
  const pages = $("pdf-pages");
  const top = pages.getBoundingClientRect().top;
  let current = 0;
  for (const page of pages.children) if (page.getBoundingClientRect().top - top < pages.clientHeight / 2) current = Number(page.dataset.page);
  [...$("pdf-strip").children].forEach((button, index) => button.setAttribute("aria-current", String(index === current)));
}

function renderOutline(entries) {
  const list = $("pdf-outline");
  const items = (entries) => entries.map((entry) => element("li", {},
    element("button", { type: "button", text: entry.label, disabled: entry.page === null || entry.page === undefined,
      onclick: () => document.querySelector(`.pdf-page[data-page="${entry.page}"]`)?.scrollIntoView({ block: "start" }) }),
    entry.children.length ? element("ul", {}, ...items(entry.children)) : null));
  list.replaceChildren(...items(entries));
  $("pdf-outline-box").hidden = entries.length === 0;
}

async function loadPDFPage(page, force = false) {
  if (page.dataset.loaded && !force) return;
  page.dataset.loaded = "1";
  const index = Number(page.dataset.page);
  const image = element("img", { alt: `Page ${index + 1}`, src: `/api/pdf/page?${pdfQuery({ page: index, width: pdfDrawWidth(), v: pdf.version })}` });
  const old = page.querySelector("img");
  if (old) old.replaceWith(image); else page.prepend(image);
  if (page.querySelector(".pdf-text")) return;
  // A text layer of invisible words over the drawing, so text can be selected.
  try {
    const words = await api(`/api/pdf/words?${pdfQuery({ page: index })}`);
    const layer = element("div", { class: "pdf-text" });
    const width = Number(page.dataset.width), height = Number(page.dataset.height);
    for (const word of words) {
      const span = element("span", { text: word.text + " " });
      Object.assign(span.dataset, { x: word.x, y: word.y, w: word.w, h: word.h });
      span.style.left = `${(100 * word.x) / width}%`;
      span.style.top = `${(100 * word.y) / height}%`;
      span.style.width = `${(100 * word.w) / width}%`;
      span.style.height = `${(100 * word.h) / height}%`;
      span.style.fontSize = `${(word.h / height) * page.clientHeight}px`;
      layer.append(span);
    }
    page.append(layer);
  } catch (_) { /* a page without readable text keeps its drawing only */ }
}

async function findInPDF() {
  const text = $("pdf-find").value.trim();
  for (const hit of document.querySelectorAll(".pdf-hit")) hit.remove();
  if (!text || !pdf.doc) return;
  try {
    const hits = await api(`/api/pdf/find?${pdfQuery({ text })}`);
    let first = null;
    for (const hit of hits) {
      const page = document.querySelector(`.pdf-page[data-page="${hit.page}"]`);
      if (!page) continue;
      const width = Number(page.dataset.width), height = Number(page.dataset.height);
      for (const rect of hit.rects) {
        const box = element("div", { class: "pdf-hit" });
        Object.assign(box.style, { left: `${(100 * rect.x) / width}%`, top: `${(100 * rect.y) / height}%`, width: `${(100 * rect.w) / width}%`, height: `${(100 * rect.h) / height}%` });
        page.append(box);
        first = first || page;
      }
    }
    const count = hits.reduce((sum, hit) => sum + hit.rects.length, 0);
    $("pdf-status").textContent = count ? `${count} match${count === 1 ? "" : "es"} of “${text}”` : `“${text}” is not in this PDF`;
    if (first) { first.scrollIntoView({ block: "center" }); loadPDFPage(first); }
  } catch (error) {
    $("pdf-status").textContent = error.message;
  }
}

async function annotatePDF(body) {
  try {
    const info = await api("/api/pdf/annotate", { doc: pdf.doc, ...body });
    pdf.version += 1;
    const page = document.querySelector(`.pdf-page[data-page="${body.page}"]`);
    if (page) loadPDFPage(page, true);
    const thumb = $("pdf-strip").children[body.page]?.querySelector("img");
    if (thumb) thumb.src = `/api/pdf/page?${pdfQuery({ page: body.page, width: 120, v: pdf.version })}`;
    $("pdf-status").textContent = `Saved: ${info.annotations} annotation${info.annotations === 1 ? "" : "s"}`;
    showPDFUndo(info);
  } catch (error) {
    $("pdf-status").textContent = error.message;
  }
}

/** The undo and redo buttons as the document's undo manager names them. */
function showPDFUndo(info) {
  $("pdf-undo").disabled = !info.undo;
  $("pdf-undo").textContent = info.undo || "Undo";
  $("pdf-redo").disabled = !info.redo;
  $("pdf-redo").textContent = info.redo || "Redo";
}

/** Undoes or redoes the last highlight or note (saved at once), and draws the pages again. */
async function undoPDF(redoing) {
  try {
    const info = await api(redoing ? "/api/pdf/redo" : "/api/pdf/undo", { doc: pdf.doc });
    pdf.version += 1;
    for (const page of document.querySelectorAll(".pdf-page[data-loaded]")) loadPDFPage(page, true);
    [...$("pdf-strip").querySelectorAll("img")].forEach((thumb, index) => {
      thumb.src = `/api/pdf/page?${pdfQuery({ page: index, width: 120, v: pdf.version })}`;
    });
    $("pdf-status").textContent = `${redoing ? "Redone" : "Undone"}, saved: ${info.annotations} annotation${info.annotations === 1 ? "" : "s"}`;
    showPDFUndo(info);
  } catch (error) {
    $("pdf-status").textContent = error.message;
  }
}

/** Highlights the words of the page's text layer that the selection covers. */
function highlightSelection() {
  const selection = window.getSelection();
  if (!selection || selection.rangeCount === 0 || selection.isCollapsed) {
    $("pdf-status").textContent = "Select some text on a page first.";
    return;
  }
  const range = selection.getRangeAt(0);
  const spans = [...document.querySelectorAll(".pdf-text span")].filter((span) => range.intersectsNode(span));
  if (!spans.length) { $("pdf-status").textContent = "Select text on a page to highlight it."; return; }
  const page = Number(spans[0].closest(".pdf-page").dataset.page);
  const onPage = spans.filter((span) => Number(span.closest(".pdf-page").dataset.page) === page);
  const rects = onPage.map((span) => [Number(span.dataset.x), Number(span.dataset.y), Number(span.dataset.w), Number(span.dataset.h)]);
  const text = onPage.map((span) => span.textContent.trim()).join(" ");
  selection.removeAllRanges();
  annotatePDF({ kind: "highlight", page, rects, text });
}

function startNote() {
  pdf.placingNote = true;
  for (const page of document.querySelectorAll(".pdf-page")) page.classList.add("placing");
  $("pdf-status").textContent = "Click on a page where the note goes.";
}

async function placeNote(event, page) {
  if (!pdf.placingNote) return;
  pdf.placingNote = false;
  for (const node of document.querySelectorAll(".pdf-page")) node.classList.remove("placing");
  const box = page.getBoundingClientRect();
  const x = ((event.clientX - box.left) / box.width) * Number(page.dataset.width);
  const y = ((event.clientY - box.top) / box.height) * Number(page.dataset.height);
  const values = await ask("Add a note", [{ name: "text", label: "Note", value: "" }]);
  if (!values) return;
  annotatePDF({ kind: "note", page: Number(page.dataset.page), x, y, text: values.text });
}

// MARK: Actions (each one is DocumentBrowser's, on the server)

function ask(title, fields) {
  return new Promise((resolve) => {
    const dialog = $("dialog");
    $("dialog-title").textContent = title;
    $("dialog-error").textContent = "";
    $("dialog-fields").replaceChildren(...fields.map((field) => {
      const input = field.options
        ? element("select", { name: field.name }, ...field.options.map(([value, label]) => element("option", { value, text: label, selected: value === field.value })))
        : element("input", { name: field.name, value: field.value || "", required: field.required !== false, autocomplete: "off" });
      return element("label", {}, document.createTextNode(field.label + " "), input);
    }));
    const finish = (value) => { dialog.close(); cleanup(); resolve(value); };
    const onSubmit = (event) => {
      event.preventDefault();
      const values = {};
      for (const field of fields) values[field.name] = dialog.querySelector(`[name="${field.name}"]`).value;
      finish(values);
    };
    const onCancel = () => finish(null);
    const cleanup = () => {
      $("dialog-form").removeEventListener("submit", onSubmit);
      $("dialog-cancel").removeEventListener("click", onCancel);
      dialog.removeEventListener("cancel", onCancel);
    };
    $("dialog-form").addEventListener("submit", onSubmit);
    $("dialog-cancel").addEventListener("click", onCancel);
    dialog.addEventListener("cancel", onCancel);
    dialog.showModal();
    const first = dialog.querySelector("input, select");
    if (first) { first.focus(); if (first.select) first.select(); }
  });
}

async function act(name, item) {
  if (!item) return;
  try {
    switch (name) {
      case "edit": return openEditor(item);
      case "rename": {
        const answer = await ask(`Rename ${item.name}`, [{ name: "name", label: "New name", value: item.name }]);
        if (!answer) return;
        const result = await api("/api/rename", { doc: item.doc, name: answer.name });
        toast(`Renamed to ${result.item.name}`);
        state.selected = result.item;
        break;
      }
      case "move": {
        const answer = await ask(`Move ${item.name}`, [{ name: "folder", label: "To folder (FOLDER-NUMBER/path)", value: item.doc.split("/")[0] }]);
        if (!answer) return;
        const result = await api("/api/move", { doc: item.doc, folder: answer.folder });
        toast(`Moved to ${result.item.folder || "the top folder"}`);
        state.selected = result.item;
        break;
      }
      case "duplicate": {
        const result = await api("/api/duplicate", { doc: item.doc });
        toast(`Made ${result.item.name}`);
        break;
      }
      case "tags": {
        const answer = await ask(`Tags of ${item.name}`, [{ name: "tags", label: "Tags, separated by commas", value: item.tags.join(", "), required: false }]);
        if (!answer) return;
        const tags = answer.tags.split(",").map((tag) => tag.trim()).filter(Boolean);
        await api("/api/tags", { doc: item.doc, tags });
        toast(tags.length ? `Tagged ${tags.join(", ")}` : "Tags removed");
        break;
      }
      case "trash": {
        await api("/api/trash", { doc: item.doc });
        toast(`Moved ${item.name} to the Trash`);
        hidePreview();
        break;
      }
    }
    await refresh();
    if (state.selected) {
      const again = state.items.find((other) => other.doc === state.selected.doc);
      if (again) select(again);
    }
  } catch (error) {
    toast(error.message);
  }
}

async function newDocument() {
  try {
    const { templates } = await api("/api/templates");
    const folders = (state.folders || []).map((folder) => [String(folder.index), folder.name]);
    const answer = await ask("New document", [
      { name: "template", label: "Template", options: [["", "Empty Markdown"], ...templates.map((t) => [t.name, t.summary ? `${t.name} — ${t.summary}` : t.name])] },
      { name: "name", label: "Name", value: "Untitled.md" },
      { name: "folder", label: "Folder", options: folders, value: folders.length ? folders[0][0] : "0" },
    ]);
    if (!answer) return;
    const result = await api("/api/create", { name: answer.name, folder: answer.folder, template: answer.template || null });
    toast(`Made ${result.item.name}`);
    await refresh();
    select(result.item);
  } catch (error) {
    toast(error.message);
  }
}

// MARK: Editor

async function openEditor(item) {
  try {
    const editorState = await api("/api/editor/open", { doc: item.doc });
    showEditor(editorState, true);
    $("editor").focus();
  } catch (error) {
    toast(error.message);
  }
}

function showEditor(editorState, replaceText) {
  state.editor = editorState;
  $("editor-pane").hidden = false;
  $("preview-pane").hidden = true;
  $("editor-title").textContent = `Editing ${editorState.name}`;
  const area = $("editor");
  if (replaceText && area.value !== editorState.text) {
    const start = area.selectionStart;
    area.value = editorState.text;
    area.selectionStart = area.selectionEnd = Math.min(start, area.value.length);
  }
  $("conflict").hidden = !editorState.inConflict;
  $("recovery").hidden = !editorState.recovered;
  $("recovery-date").textContent = editorState.recovered ? `(${new Date(editorState.recovered).toLocaleString()})` : "";
  $("theirs").textContent = editorState.theirs || "";
  $("undo-button").disabled = !editorState.canUndo;
  $("undo-button").textContent = editorState.undoTitle || "Undo";
  $("redo-button").disabled = !editorState.canRedo;
  $("redo-button").textContent = editorState.redoTitle || "Redo";
  const said = {
    saved: "Saved.", reloaded: "The file changed on disk; the editor shows it.", conflict: "The file changed on disk: choose above.",
    merged: editorState.mergeConflicts ? `Merged, with ${editorState.mergeConflicts} overlap(s) marked.` : "Merged. Save to keep it.",
    reverted: "Their version loaded.", kept: "Your version kept; save to replace theirs.", deleted: "The file was deleted; save to write it again.",
    moved: "The file moved; the editor follows it.", recovered: "The kept edits are back; save to keep them in the file.",
  }[editorState.event];
  $("editor-status").textContent = editorState.error || said || (editorState.edited ? "Edited" : "Saved");
  $("editor-pane").dataset.state = editorState.inConflict ? "conflict" : (editorState.edited ? "edited" : "clean");
}

function scheduleEdit() {
  clearTimeout(state.editTimer);
  state.editTimer = setTimeout(sendEdit, 250);
}

async function sendEdit() {
  if (!state.editor) return;
  if (state.sending) { scheduleEdit(); return; }
  const text = $("editor").value;
  if (text === state.editor.text) return;
  state.sending = true;
  try {
    const result = await api("/api/editor/edit", { doc: state.editor.id, text, revision: state.editor.revision });
    showEditor(result, false);
  } catch (error) {
    if (error.status === 409) {
      // The text changed under us (reloaded, merged): show it, and say so.
      const current = await api("/api/editor/state", { doc: state.editor.id });
      showEditor(current, true);
    }
    toast(error.message);
  } finally {
    state.sending = false;
  }
}

async function flushEdits() {
  clearTimeout(state.editTimer);
  while (state.sending) await new Promise((resolve) => setTimeout(resolve, 20));
  await sendEdit();
}

async function editorCommand(path, extra = {}) {
  if (!state.editor) return;
  try {
    await flushEdits();
    const result = await api(path, { doc: state.editor.id, ...extra });
    showEditor(result, true);
  } catch (error) {
    toast(error.message);
  }
}

async function closeEditor() {
  if (!state.editor) return;
  await flushEdits();
  try { await api("/api/editor/close", { doc: state.editor.id }); } catch (error) { toast(error.message); }
  state.editor = null;
  $("editor-pane").hidden = true;
  if (state.selected) select(state.selected);
}

// MARK: Live changes and progress

function listen() {
  const events = new EventSource("/api/events");
  let timer = null;
  events.addEventListener("change", () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 150);
  });
  const running = new Map();
  events.addEventListener("progress", (event) => {
    // Several kinds of long work may run at once (thumbnails, the search index): show the
    // first one still running.
    const progress = JSON.parse(event.data);
    const seen = new Set((document.body.dataset.progressSeen || "").split(" ").filter(Boolean));
    seen.add(progress.task);
    document.body.dataset.progressSeen = [...seen].sort().join(" ");
    if (progress.finished) running.delete(progress.task); else running.set(progress.task, progress);
    const shown = running.values().next().value;
    $("progress").hidden = !shown;
    if (shown) {
      $("progress-label").textContent = `${shown.label}: ${shown.done} of ${shown.total}`;
      $("progress-bar").max = Math.max(shown.total, 1);
      $("progress-bar").value = shown.done;
    }
    if (progress.finished && progress.task === "thumbnails") refresh();
  });
  events.addEventListener("document", (event) => {
    const editorState = JSON.parse(event.data);
    // Only a newer text replaces what is in the textarea (a conflict leaves yours there).
    if (state.editor && editorState.id === state.editor.id) showEditor(editorState, editorState.revision !== state.editor.revision);
  });
  events.addEventListener("open", () => document.body.dataset.live = "yes");
  events.addEventListener("error", () => document.body.dataset.live = "no");
}

// MARK: Keyboard

function moveFocus(delta) {
  const nodes = [...document.querySelectorAll("#doc-list .doc")];
  if (!nodes.length) return;
  const current = nodes.indexOf(document.activeElement);
  const next = Math.max(0, Math.min(nodes.length - 1, (current < 0 ? 0 : current + delta)));
  nodes.forEach((node, i) => { node.tabIndex = i === next ? 0 : -1; });
  nodes[next].focus();
}

function columns() {
  const list = $("doc-list");
  if (state.view !== "grid") return 1;
  return getComputedStyle(list).gridTemplateColumns.split(" ").length || 1;
}

document.addEventListener("keydown", (event) => {
  const inField = event.target.closest("input, textarea, select, dialog");
  if ((event.ctrlKey || event.metaKey) && event.key === "s" && state.editor) { event.preventDefault(); editorCommand("/api/editor/save"); return; }
  if (event.target.id === "editor" && (event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "z") {
    event.preventDefault();
    editorCommand(event.shiftKey ? "/api/editor/redo" : "/api/editor/undo");
    return;
  }
  if (event.key === "Escape" && event.target.id === "editor") { closeEditor(); return; }
  if (inField) return;
  const doc = event.target.closest && event.target.closest(".doc");
  const item = doc ? state.items.find((other) => other.doc === doc.dataset.doc) : state.selected;
  switch (event.key) {
    case "/": event.preventDefault(); $("search").focus(); break;
    case "ArrowRight": if (doc) { event.preventDefault(); moveFocus(1); } break;
    case "ArrowLeft": if (doc) { event.preventDefault(); moveFocus(-1); } break;
    case "ArrowDown": if (doc) { event.preventDefault(); moveFocus(columns()); } break;
    case "ArrowUp": if (doc) { event.preventDefault(); moveFocus(-columns()); } break;
    case "Home": if (doc) { event.preventDefault(); moveFocus(-1e9); } break;
    case "End": if (doc) { event.preventDefault(); moveFocus(1e9); } break;
    case "Enter": case " ": if (item && doc) { event.preventDefault(); select(item); } break;
    case "e": if (item) act("edit", item); break;
    case "F2": if (item) { event.preventDefault(); act("rename", item); } break;
    case "m": if (item) act("move", item); break;
    case "d": if (item) act("duplicate", item); break;
    case "t": if (item) act("tags", item); break;
    case "Delete": if (item) act("trash", item); break;
    case "n": newDocument(); break;
    case "v": $("view-toggle").click(); break;
  }
});

// MARK: Wiring

function showPlace(place) {
  state.place = place;
  state.query = "";
  $("search").value = "";
  $("show-all").toggleAttribute("aria-current", place === "all");
  $("show-recents").toggleAttribute("aria-current", place === "recents");
  if (place === "all") $("show-all").setAttribute("aria-current", "page");
  if (place === "recents") $("show-recents").setAttribute("aria-current", "page");
  $("list-heading").textContent = place === "recents" ? "Recents" : (state.tag ? `Tagged ${state.tag}` : "All documents");
  refresh();
}

$("search-form").addEventListener("submit", (event) => { event.preventDefault(); runSearch($("search").value.trim()); });
$("search").addEventListener("search", () => { if (!$("search").value) runSearch(""); });
$("type-filter").addEventListener("change", (event) => { state.type = event.target.value; refresh(); });
$("tag-filter").addEventListener("change", (event) => { state.tag = event.target.value; showPlace("all"); });
$("sort").addEventListener("change", (event) => { state.sort = event.target.value; refresh(); });
$("view-toggle").addEventListener("click", (event) => {
  state.view = state.view === "grid" ? "list" : "grid";
  event.target.setAttribute("aria-pressed", String(state.view === "list"));
  event.target.textContent = state.view === "grid" ? "List" : "Grid";
  renderItems();
});
$("new-button").addEventListener("click", newDocument);
$("show-all").addEventListener("click", () => showPlace("all"));
$("show-recents").addEventListener("click", () => showPlace("recents"));
for (const button of document.querySelectorAll("[data-action]")) button.addEventListener("click", () => act(button.dataset.action, state.selected));
for (const button of document.querySelectorAll("[data-recover]")) button.addEventListener("click", () => editorCommand("/api/editor/recover", { choice: button.dataset.recover }));
for (const button of document.querySelectorAll("[data-resolve]")) button.addEventListener("click", () => editorCommand("/api/editor/resolve", { choice: button.dataset.resolve }));
$("editor").addEventListener("input", scheduleEdit);
$("undo-button").addEventListener("click", () => editorCommand("/api/editor/undo"));
$("redo-button").addEventListener("click", () => editorCommand("/api/editor/redo"));
$("save-button").addEventListener("click", () => editorCommand("/api/editor/save"));
$("close-editor").addEventListener("click", closeEditor);
$("pdf-find-button").addEventListener("click", findInPDF);
$("pdf-find").addEventListener("keydown", (event) => { if (event.key === "Enter") findInPDF(); });
$("pdf-highlight").addEventListener("click", highlightSelection);
$("pdf-undo").addEventListener("click", () => undoPDF(false));
$("pdf-redo").addEventListener("click", () => undoPDF(true));
$("pdf-note").addEventListener("click", startNote);

listen();
refresh();
