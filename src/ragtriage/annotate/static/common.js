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
// quick marks never conflict with each other, only with another tab.
class Saver {
  constructor(onStatus) {
    this.chain = Promise.resolve();
    this.onStatus = onStatus;
    this.pending = 0;
  }

  // A job returns "conflict" when another tab had changed the item (it was reloaded):
  // the status then says so instead of "saved".
  run(job) {
    this.pending += 1;
    this.onStatus("saving");
    const next = this.chain.then(job).catch((error) => {
      this.onStatus("error", String(error));
      return "error";
    });
    this.chain = next.then((outcome) => {
      this.pending -= 1;
      if (outcome === "conflict") this.conflicted = true;
      if (this.pending > 0 || outcome === "error") return;
      if (this.conflicted) this.onStatus("conflict", "changed in another tab: reloaded");
      else this.onStatus("saved");
      this.conflicted = false;
    });
    return next;
  }
}

function setStatus(state, detail) {
  const node = byId("status");
  node.dataset.state = state;
  const words = { saving: "saving…", saved: "all marks saved", error: "not saved: ", conflict: "" };
  node.textContent = (words[state] !== undefined ? words[state] : state) + (detail || "");
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
