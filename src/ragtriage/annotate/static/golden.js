// The golden-set page: one query at a time, its pooled candidates, marks saved at once.
"use strict";

const page = new Page({
  noun: "query",
  record: (data) => Object.assign(emptyRecord(), data.record),
  state: (data) => {
    byId("graded-hint").textContent = data.options.graded ? " · 0-3 grades" : "";
    buildTags();
  },
  coverage: renderCoverage,
  shown: (item) => {
    byId("results").replaceChildren();
    byId("search-info").textContent = "";
    page.lastResults = [];
    buildCards(byId("candidates"), item.candidates, true);
    showQuery(item.query);
    showHistory(item);
  },
  render,
  keys: ownKeys,
  bind: bindFields,
});

function record() {
  return page.record();
}

function emptyRecord() {
  return { relevance: {}, unanswerable: false, skipped: false, standalone: false, tags: [],
           note: "", reference_answer: "", added: [] };
}

// A conversation's earlier turns, read-only above the turn being labelled: as text
// nodes only (a user's message or a system's answer is never markup).
function showHistory(item) {
  const list = byId("history");
  const turns = item.history || [];
  list.hidden = !item.conversation_id;
  byId("standalone-box").hidden = !item.conversation_id;
  list.replaceChildren(...turns.map((t) => el("li", { "data-turn": t.turn },
    el("div", { class: "who", text: `turn ${t.turn} · user` }),
    longText(t.user, null, "p", "history-user"),
    el("div", { class: "who", text: "answer" }),
    longText(t.answer || "(no answer logged)", null, "p", "history-answer"))));
}

function showQuery(text) {
  byId("query").replaceChildren(longText(text, null, "span", "query-text"));
}

// Only what a mark changes is redrawn: the cards are built once per query (show) and
// their marks and focus updated in place, so a key press costs the same with any passage.
function render() {
  const item = page.item;
  const rec = record();
  byId("position").textContent = `${page.index + 1} / ${page.state.total}`;
  byId("query-id").textContent = item.id;
  byId("note").value = rec.note || "";
  byId("reference").value = rec.reference_answer || "";
  byId("free-tags").value = rec.tags.filter((t) => !page.state.awkward_tags.includes(t)).join(", ");
  for (const box of document.querySelectorAll("#tags input")) {
    box.checked = rec.tags.includes(box.value) || (box.value === "unanswerable" && rec.unanswerable);
  }
  byId("unanswerable").setAttribute("aria-pressed", String(rec.unanswerable));
  byId("standalone").checked = Boolean(rec.standalone);
  byId("skip").setAttribute("aria-pressed", String(rec.skipped));
  const marked = Object.values(rec.relevance).filter((g) => g >= 1).length;
  byId("case-state").textContent = rec.skipped ? "skipped"
    : rec.unanswerable ? "unanswerable: nothing in the corpus answers this"
    : marked ? `${marked} relevant chunk${marked > 1 ? "s" : ""}` : "not labelled yet";
  byId("case-state").dataset.state = rec.skipped ? "skipped" : rec.unanswerable ? "unanswerable"
    : marked ? "labelled" : "open";
  refreshCards(byId("candidates"));
  refreshCards(byId("results"));
}

function buildCards(list, chunks, focusable) {
  const graded = page.state.options.graded;
  list.replaceChildren();
  list.cards = new Map();
  list.focusable = focusable;
  for (const chunk of chunks) appendCard(list, chunk, graded);
}

function appendCard(list, chunk, graded) {
  const buttons = [];
  const controls = el("div", { class: "grade" });
  for (const value of graded ? [0, 1, 2, 3] : [1]) {
    const button = el("button", {
      type: "button",
      class: "mark",
      "data-grade": value,
      text: graded ? String(value) : "relevant",
      onclick: () => {
        const grade = record().relevance[chunk.id];
        setGrade(chunk.id, graded ? value : (grade >= 1 ? null : 1), !list.focusable, chunk);
      },
    });
    buttons.push([value, button]);
    controls.append(button);
  }
  const card = el("li", { class: "card", "data-id": chunk.id },
    el("div", { class: "card-head" },
      el("span", { class: "chunk-id", text: chunk.id }),
      chunk.title ? longText(chunk.title, null, "span", "chunk-title") : null),
    longText(chunk.text, null),
    controls);
  list.cards.set(chunk.id, { card, buttons });
  list.append(card);
  refreshCard(list, chunk.id);
}

function refreshCard(list, chunkId) {
  const entry = list.cards && list.cards.get(chunkId);
  if (!entry) return;
  const grade = record().relevance[chunkId];
  entry.card.classList.toggle("relevant", grade >= 1);
  const position = list.focusable ? page.item.candidates.findIndex((c) => c.id === chunkId) : -1;
  entry.card.classList.toggle("focused", list.focusable && position === page.focus);
  for (const [value, button] of entry.buttons) {
    const pressed = String(grade === value);
    if (button.getAttribute("aria-pressed") !== pressed) button.setAttribute("aria-pressed", pressed);
  }
}

function refreshCards(list) {
  if (!list.cards) return;
  for (const chunkId of list.cards.keys()) refreshCard(list, chunkId);
}

function setGrade(chunkId, grade, fromSearch, chunk) {
  const rec = record();
  if (grade === null || grade === undefined) delete rec.relevance[chunkId];
  else rec.relevance[chunkId] = grade;
  if (grade >= 1) {
    rec.unanswerable = false;
    rec.skipped = false;
  }
  if (fromSearch && !rec.added.includes(chunkId)) rec.added.push(chunkId);
  if (fromSearch && chunk && !page.item.candidates.some((c) => c.id === chunkId)) {
    page.item.candidates.push(chunk); // joins the pool: one card more, the others kept
    appendCard(byId("candidates"), chunk, page.state.options.graded);
  }
  page.save();
  render();
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
      page.save();
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
  page.save();
  render();
}

function toggleSkip() {
  const rec = record();
  rec.skipped = !rec.skipped;
  page.save();
  render();
}

async function search(text) {
  const { data } = await api("GET", `/api/search?q=${encodeURIComponent(text)}`);
  page.lastResults = data.results;
  byId("search-info").textContent = text ? `${data.total}${data.capped ? "+" : ""} chunks match; ${data.results.length} shown` : "";
  buildCards(byId("results"), data.results, false);
}

function focusCard(delta) {
  const n = page.item.candidates.length;
  if (!n) return;
  const before = focusedId();
  page.focus = Math.min(Math.max(page.focus + delta, 0), n - 1);
  const list = byId("candidates");
  refreshCard(list, before);
  refreshCard(list, focusedId());
  const card = list.children[page.focus];
  if (card) card.scrollIntoView({ block: "nearest" });
}

function focusedId() {
  const chunk = page.item.candidates[page.focus];
  return chunk ? chunk.id : null;
}

// The page's own keys (the shared ones are the controller's): marks on the focused card.
function ownKeys() {
  const id = focusedId();
  const graded = page.state.options.graded;
  const own = {
    j: () => focusCard(1),
    ArrowDown: () => focusCard(1),
    k: () => focusCard(-1),
    ArrowUp: () => focusCard(-1),
    " ": () => id && setGrade(id, record().relevance[id] >= 1 ? null : 1, false),
    u: () => setUnanswerable(!record().unanswerable),
    s: () => toggleSkip(),
    "/": () => byId("search").focus(),
  };
  if (id) {
    for (const value of [0, 1, 2, 3]) {
      own[String(value)] = () => setGrade(id, graded ? value : (value >= 1 ? 1 : null), false);
    }
  }
  return own;
}

function bindFields() {
  saveWhileTyping(byId("reference"), (value) => { record().reference_answer = value; }, () => page.save());
  byId("free-tags").addEventListener("change", (e) => {
    const rec = record();
    const free = e.target.value.split(",").map((t) => t.trim()).filter(Boolean);
    rec.tags = [...new Set([...rec.tags.filter((t) => page.state.awkward_tags.includes(t)), ...free])];
    page.save();
  });
  byId("search-form").addEventListener("submit", (e) => {
    e.preventDefault();
    search(byId("search").value);
  });
  byId("unanswerable").addEventListener("click", () => setUnanswerable(!record().unanswerable));
  byId("skip").addEventListener("click", toggleSkip);
  byId("standalone").addEventListener("change", (e) => {
    record().standalone = e.target.checked;
    page.save();
  });
}

page.start();
