// The golden-set page: one query at a time, its pooled candidates, marks saved at once.
"use strict";

const page = {
  state: null,
  item: null,
  index: 0,
  focus: 0,
  since: performance.now(),
  saver: new Saver(setStatus),
};

function record() {
  return page.item.record;
}

function emptyRecord() {
  return { relevance: {}, unanswerable: false, skipped: false, tags: [], note: "",
           reference_answer: "", added: [] };
}

async function loadState() {
  const { data } = await api("GET", "/api/state");
  page.state = data;
  byId("command").textContent = data.command;
  byId("graded-hint").textContent = data.options.graded ? " · 0-3 grades" : "";
  renderCoverage(data.coverage);
  buildTags();
  return data;
}

// wait: let the saves in flight finish first (not from inside a save: it would wait on itself)
async function show(index, wait = true) {
  if (index < 0 || index >= page.state.total) return;
  if (wait) await page.saver.chain;
  const { status, data } = await api("GET", `/api/item/${index}`);
  if (status !== 200) {
    setStatus("error", data.error || String(status));
    return;
  }
  page.item = data;
  page.item.record = Object.assign(emptyRecord(), data.record);
  page.index = index;
  page.focus = 0;
  page.since = performance.now();
  if (page.state.position !== index) {
    page.state.position = index;
    api("POST", `/api/move/${index}`);
  }
  byId("results").replaceChildren();
  byId("search-info").textContent = "";
  render();
}

function render() {
  const item = page.item;
  const rec = record();
  byId("position").textContent = `${page.index + 1} / ${page.state.total}`;
  byId("query").textContent = item.query;
  byId("query-id").textContent = item.id;
  byId("note").value = rec.note || "";
  byId("reference").value = rec.reference_answer || "";
  byId("free-tags").value = rec.tags.filter((t) => !page.state.awkward_tags.includes(t)).join(", ");
  for (const box of document.querySelectorAll("#tags input")) {
    box.checked = rec.tags.includes(box.value) || (box.value === "unanswerable" && rec.unanswerable);
  }
  byId("unanswerable").setAttribute("aria-pressed", String(rec.unanswerable));
  byId("skip").setAttribute("aria-pressed", String(rec.skipped));
  const marked = Object.values(rec.relevance).filter((g) => g >= 1).length;
  byId("case-state").textContent = rec.skipped ? "skipped"
    : rec.unanswerable ? "unanswerable: nothing in the corpus answers this"
    : marked ? `${marked} relevant chunk${marked > 1 ? "s" : ""}` : "not labelled yet";
  byId("case-state").dataset.state = rec.skipped ? "skipped" : rec.unanswerable ? "unanswerable"
    : marked ? "labelled" : "open";
  renderCards(byId("candidates"), item.candidates, true);
}

function renderCards(list, chunks, focusable) {
  const rec = record();
  const graded = page.state.options.graded;
  list.replaceChildren();
  chunks.forEach((chunk, i) => {
    const grade = rec.relevance[chunk.id];
    const controls = el("div", { class: "grade" });
    const values = graded ? [0, 1, 2, 3] : [1];
    for (const value of values) {
      const label = graded ? String(value) : "relevant";
      controls.append(el("button", {
        type: "button",
        class: "mark",
        "data-grade": value,
        "aria-pressed": String(grade === value),
        text: label,
        onclick: () => setGrade(chunk.id, graded ? value : (grade >= 1 ? null : 1), !focusable),
      }));
    }
    const card = el("li", {
      class: "card" + (focusable && i === page.focus ? " focused" : "") + (grade >= 1 ? " relevant" : ""),
      "data-id": chunk.id,
    },
      el("div", { class: "card-head" },
        el("span", { class: "chunk-id", text: chunk.id }),
        chunk.title ? el("span", { class: "chunk-title", text: chunk.title }) : null),
      el("p", { class: "chunk-text", text: chunk.text }),
      controls);
    list.append(card);
  });
}

function setGrade(chunkId, grade, fromSearch) {
  const rec = record();
  if (grade === null || grade === undefined) delete rec.relevance[chunkId];
  else rec.relevance[chunkId] = grade;
  if (grade >= 1) {
    rec.unanswerable = false;
    rec.skipped = false;
  }
  if (fromSearch && !rec.added.includes(chunkId)) rec.added.push(chunkId);
  if (fromSearch && !page.item.candidates.some((c) => c.id === chunkId)) {
    const found = page.lastResults.find((c) => c.id === chunkId);
    if (found) page.item.candidates.push(found);
  }
  save();
  render();
  if (fromSearch) renderCards(byId("results"), page.lastResults, false);
}

function save() {
  const index = page.index;
  const rec = JSON.parse(JSON.stringify(record()));
  const now = performance.now();
  const seconds = (now - page.since) / 1000;
  page.since = now;
  return page.saver.run(async () => {
    const { status, data } = await api("POST", `/api/item/${index}`,
      { version: page.item.version, record: rec, seconds });
    if (status === 409) {
      await show(index, false);
      return "conflict";
    }
    if (status !== 200) throw new Error(data.error || String(status));
    if (page.index === index) page.item.version = data.version;
    renderCoverage(data.coverage);
  });
}

function renderCoverage(cov) {
  byId("cov-done").textContent = `${cov.done} / ${cov.target} (${cov.comfortable} comfortable)`;
  byId("cov-unans").textContent = cov.unanswerable_share === null ? "-"
    : `${Math.round(100 * cov.unanswerable_share)} %`;
  byId("cov-median").textContent = duration(cov.median_seconds);
  byId("cov-left").textContent = duration(cov.seconds_left);
  byId("cov-skipped").textContent = String(cov.skipped);
  const tags = byId("cov-tags");
  tags.replaceChildren();
  for (const [tag, count] of Object.entries(cov.tags)) {
    tags.append(el("dt", { text: tag }), el("dd", { text: String(count) }));
  }
}

function buildTags() {
  const box = byId("tags");
  box.replaceChildren();
  for (const tag of page.state.awkward_tags) {
    const input = el("input", { type: "checkbox", value: tag, id: `tag-${tag}` });
    input.addEventListener("change", () => {
      const rec = record();
      if (tag === "unanswerable") {
        setUnanswerable(input.checked);
        return;
      }
      rec.tags = input.checked ? [...new Set([...rec.tags, tag])] : rec.tags.filter((t) => t !== tag);
      save();
      render();
    });
    box.append(el("label", { class: "tag", for: `tag-${tag}` }, input, el("span", { text: tag })));
  }
}

function setUnanswerable(on) {
  const rec = record();
  rec.unanswerable = on;
  if (on) {
    rec.relevance = {};
    rec.skipped = false;
  }
  save();
  render();
}

function toggleSkip() {
  const rec = record();
  rec.skipped = !rec.skipped;
  save();
  render();
}

async function search(text) {
  const { data } = await api("GET", `/api/search?q=${encodeURIComponent(text)}`);
  page.lastResults = data.results;
  byId("search-info").textContent = text ? `${data.total}${data.capped ? "+" : ""} chunks match; ${data.results.length} shown` : "";
  renderCards(byId("results"), data.results, false);
}

function focusCard(delta) {
  const n = page.item.candidates.length;
  if (!n) return;
  page.focus = Math.min(Math.max(page.focus + delta, 0), n - 1);
  render();
  const card = byId("candidates").children[page.focus];
  if (card) card.scrollIntoView({ block: "nearest" });
}

function focusedId() {
  const chunk = page.item.candidates[page.focus];
  return chunk ? chunk.id : null;
}

function onKey(event) {
  if (event.key === "Escape") {
    event.target.blur && event.target.blur();
    return;
  }
  if (typing(event) || event.ctrlKey || event.metaKey || event.altKey) return;
  const id = focusedId();
  const graded = page.state.options.graded;
  const keys = {
    ArrowRight: () => show(page.index + 1),
    Enter: () => show(page.index + 1),
    ArrowLeft: () => show(page.index - 1),
    j: () => focusCard(1),
    ArrowDown: () => focusCard(1),
    k: () => focusCard(-1),
    ArrowUp: () => focusCard(-1),
    " ": () => id && setGrade(id, record().relevance[id] >= 1 ? null : 1, false),
    u: () => setUnanswerable(!record().unanswerable),
    s: () => toggleSkip(),
    "/": () => byId("search").focus(),
    n: () => byId("note").focus(),
  };
  if (/^[0-3]$/.test(event.key) && id) {
    const value = Number(event.key);
    setGrade(id, graded ? value : (value >= 1 ? 1 : null), false);
    event.preventDefault();
    return;
  }
  const action = keys[event.key];
  if (action) {
    event.preventDefault();
    action();
  }
}

function bindFields() {
  saveWhileTyping(byId("note"), (value) => { record().note = value; }, save);
  saveWhileTyping(byId("reference"), (value) => { record().reference_answer = value; }, save);
  byId("free-tags").addEventListener("change", (e) => {
    const rec = record();
    const free = e.target.value.split(",").map((t) => t.trim()).filter(Boolean);
    rec.tags = [...new Set([...rec.tags.filter((t) => page.state.awkward_tags.includes(t)), ...free])];
    save();
  });
  byId("search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    search(byId("search").value);
  });
  byId("prev").addEventListener("click", () => show(page.index - 1));
  byId("next").addEventListener("click", () => show(page.index + 1));
  byId("unanswerable").addEventListener("click", () => setUnanswerable(!record().unanswerable));
  byId("skip").addEventListener("click", toggleSkip);
  document.addEventListener("keydown", onKey);
}

async function start() {
  bindFields();
  const state = await loadState();
  await show(Math.min(state.position || 0, state.total - 1));
  document.body.dataset.ready = "true";
}

start();
