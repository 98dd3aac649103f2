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

// The page controller both pages share: the item shown and moving between items (a page
// opens at the saved position: a session resumes where it was left), saving a mark at
// once (one save at a time, through Saver; a save the server refused as changed in
// another tab reloads the item), and the keys every page has (Escape, the arrows and
// Enter, m for the note). A page gives only what differs, as hooks:
//   noun: what an item is called in a failed save's status ("query", "answer")
//   record(data): the item's record, with every field the page edits
//   state(state): fill the page's own parts of /api/state (after the coverage)
//   coverage(cov): draw the coverage panel
//   shown(item): build the item's parts (render follows)
//   render(): redraw what a mark changes
//   keys(): the page's own keys, { key: action }
//   bind(): attach the page's own controls
class Page {
  constructor(hooks) {
    this.hooks = hooks;
    this.state = null;
    this.item = null;
    this.index = 0;
    this.focus = 0;
    this.since = performance.now();
    this.saver = new Saver(setStatus);
  }

  record() {
    return this.item.record;
  }

  async loadState() {
    const { data } = await api("GET", "/api/state");
    this.state = data;
    byId("command").textContent = data.command;
    this.hooks.coverage(data.coverage);
    this.hooks.state(data);
    return data;
  }

  // wait: let the saves in flight finish first (not from inside a save: it would wait on itself)
  async show(index, wait = true) {
    if (index < 0 || index >= this.state.total) return;
    if (wait) await this.saver.chain;
    const { status, data } = await api("GET", `/api/item/${index}`);
    if (status !== 200) {
      setStatus("error", data.error || String(status));
      return;
    }
    this.item = data;
    this.item.record = this.hooks.record(data);
    this.index = index;
    this.focus = 0;
    this.since = performance.now();
    if (this.state.position !== index) {
      this.state.position = index;
      api("POST", `/api/move/${index}`);
    }
    this.hooks.shown(data);
    this.hooks.render();
  }

  // The item's record as it is now, with the seconds spent on it since the last save.
  save() {
    const index = this.index;
    const rec = JSON.parse(JSON.stringify(this.record()));
    const now = performance.now();
    const seconds = (now - this.since) / 1000;
    this.since = now;
    return this.saver.run(async () => {
      const answer = await post(`/api/item/${index}`, { version: this.item.version, record: rec, seconds });
      if (answer.conflict) {
        await this.show(index, false);
        return "conflict";
      }
      if (this.index === index) this.item.version = answer.data.version;
      this.hooks.coverage(answer.data.coverage);
      return "saved";
    }, `${this.hooks.noun} ${index + 1}`);
  }

  onKey(event) {
    if (event.key === "Escape") {
      event.target.blur && event.target.blur();
      return;
    }
    if (typing(event) || event.ctrlKey || event.metaKey || event.altKey) return;
    // a button reached with Tab (a search result's mark) is pressed by Space and Enter, as
    // everywhere: the page's own Space and Enter had marked the pool card and moved on
    if (event.target.tagName === "BUTTON" && (event.key === " " || event.key === "Enter")) return;
    const keys = {
      ArrowRight: () => this.show(this.index + 1),
      Enter: () => this.show(this.index + 1),
      ArrowLeft: () => this.show(this.index - 1),
      m: () => byId("note").focus(),
      ...this.hooks.keys(),
    };
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  }

  async start() {
    saveWhileTyping(byId("note"), (value) => { this.record().note = value; }, () => this.save());
    byId("prev").addEventListener("click", () => this.show(this.index - 1));
    byId("next").addEventListener("click", () => this.show(this.index + 1));
    this.hooks.bind();
    document.addEventListener("keydown", (event) => this.onKey(event));
    const state = await this.loadState();
    await this.show(Math.min(state.position || 0, state.total - 1));
    document.body.dataset.ready = "true";
  }
}
