// Shared by both pages. Every untrusted text (queries, passages, answers, notes) goes
// into the page through textContent (el's "text", or a text node), never as HTML; the
// Content-Security-Policy forbids inline script besides.
"use strict";

const TOKEN = document.querySelector('meta[name="ragtriage-token"]').content;

async function api(method, path, body) {
  const options = { method, headers: { "X-Ragtriage-Token": TOKEN }, credentials: "same-origin" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = {};
  try {
    data = await response.json();
  } catch (error) {
    data = { error: "the server's answer was not JSON" };
  }
  return { status: response.status, data };
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = String(value);
    else if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

function byId(id) {
  return document.getElementById(id);
}

function typing(event) {
  const target = event.target;
  return target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA");
}

function duration(seconds) {
  if (seconds === null || seconds === undefined) return "-";
  if (seconds < 90) return `${Math.round(seconds)} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

// One save at a time, in order: each carries the version the previous one returned, so
// quick marks never conflict with each other, only with another tab. A save is either
// acknowledged or not made at all (the server keeps nothing of a refused save): a refused
// or failed one is listed until a later save of that item succeeds, and the status says
// plainly "not saved" and why, never "changed in another tab", which is said only when
// the server answered 409 and the item was reloaded.
class Saver {
  constructor(onStatus) {
    this.chain = Promise.resolve();
    this.onStatus = onStatus;
    this.pending = 0;
    this.failed = new Map(); // item label -> why its last save was not made
  }

  // job() returns "conflict" (another tab had changed the item: reloaded), or throws.
  run(job, label) {
    this.pending += 1;
    this.onStatus("saving");
    const next = this.chain.then(job).then((outcome) => {
      this.failed.delete(label);
      return outcome;
    }, (error) => {
      const why = error instanceof TypeError ? "the server does not answer (is it still running?)"
        : String(error.message || error);
      this.failed.set(label, why);
      return "error";
    });
    this.chain = next.then((outcome) => {
      this.pending -= 1;
      if (outcome === "conflict") this.conflicted = true;
      if (this.pending > 0) return;
      if (this.failed.size) {
        const [first, why] = this.failed.entries().next().value;
        const more = this.failed.size > 1 ? ` (and ${this.failed.size - 1} more)` : "";
        this.onStatus("error", `${first}${more}: ${why}`);
      } else if (this.conflicted) {
        this.onStatus("conflict", "changed in another tab: reloaded");
      } else {
        this.onStatus("saved");
      }
      this.conflicted = false;
    });
    return next;
  }
}

// A save's answer: ok, "conflict" (409), or an Error saying why it was not saved.
async function post(path, body) {
  const { status, data } = await api("POST", path, body);
  if (status === 409) return { conflict: true, data };
  if (status !== 200) {
    const why = String(data.error || `the server answered ${status}`).replace(/^not saved: /, "");
    throw new Error(why);
  }
  return { conflict: false, data };
}

function setStatus(state, detail) {
  const node = byId("status");
  node.dataset.state = state;
  const words = { saving: "saving…", saved: "all marks saved", error: "not saved: ", conflict: "" };
  node.textContent = (words[state] !== undefined ? words[state] : state) + (detail || "");
}

// Long text (a passage of a megabyte without a space: a base64 blob in a corpus) is shown
// cut, with a button to see all of it: laying out such a text on every card would freeze
// the tab. ``mark`` ([start, end]) is highlighted, and the cut keeps it in view.
const CUT = 1500;

function longText(text, mark, tag = "p", cls = "chunk-text") {
  const node = el(tag, { class: cls });
  const fill = (start, end) => {
    node.replaceChildren();
    if (start > 0) node.append("… ");
    if (mark && mark[0] < end && mark[1] > start) {
      const a = Math.max(mark[0], start);
      const b = Math.min(mark[1], end);
      node.append(text.slice(start, a), el("mark", { text: text.slice(a, b) }), text.slice(b, end));
    } else {
      node.append(text.slice(start, end));
    }
    if (end < text.length) node.append(" …");
  };
  if (text.length <= CUT) {
    fill(0, text.length);
    return node;
  }
  const start = mark ? Math.max(0, Math.min(mark[0] - CUT / 3, text.length - CUT)) : 0;
  const cut = [Math.floor(start), Math.floor(start) + CUT];
  const box = el("div", { class: "long" }, node);
  const toggle = el("button", { type: "button", class: "show-all" });
  const show = (all) => {
    if (all) fill(0, text.length);
    else fill(cut[0], cut[1]);
    node.classList.toggle("whole", all);
    toggle.textContent = all ? "show less" : `show all ${text.length.toLocaleString("en")} characters`;
    toggle.dataset.all = String(all);
  };
  toggle.addEventListener("click", (event) => {
    event.stopPropagation();
    show(toggle.dataset.all !== "true");
  });
  show(false);
  box.append(toggle);
  return box;
}

// Save a text field while the person types (after a pause), not only when it loses the
// focus: a tab closed mid-note keeps what was typed.
function saveWhileTyping(node, apply, save) {
  let timer = null;
  node.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => { apply(node.value); save(); }, 600);
  });
  node.addEventListener("change", () => {
    clearTimeout(timer);
    apply(node.value);
    save();
  });
}
