// The grading page: one answer at a time, a verdict per sentence, saved at once.
"use strict";

const VERDICT_WORDS = { supported: "supported", unsupported: "not supported", unsure: "can't tell" };
const page = new Page({
  noun: "answer",
  record: (data) => {
    const rec = data.record || {};
    return {
      sentences: rec.sentences || data.sentences.map(() => null),
      label: rec.label === undefined ? null : rec.label,
      answers: rec.answers === undefined ? null : rec.answers,
      note: rec.note || "",
    };
  },
  state: (data) => {
    byId("blind").textContent = data.options.show_judge
      ? "review pass: the judge's verdict is shown"
      : "blind: the judge's verdict is hidden while you grade";
  },
  coverage: renderCoverage,
  shown: (data) => {
    byId("question").replaceChildren(longText(data.question, null, "span", "query-text"));
    buildSentences();
    page.shownEvidence = undefined;
    renderJudge();
  },
  render,
  keys: () => ({
    j: () => focusSentence(1),
    ArrowDown: () => focusSentence(1),
    k: () => focusSentence(-1),
    ArrowUp: () => focusSentence(-1),
    y: () => setVerdict(page.focus, "supported"),
    n: () => setVerdict(page.focus, "unsupported"),
    c: () => setVerdict(page.focus, "unsure"),
    f: () => cycleOverride(),
    a: () => cycleAnswers(),
  }),
  bind: () => {
    byId("override").addEventListener("click", cycleOverride);
    byId("answers").addEventListener("click", cycleAnswers);
  },
});

function record() {
  return page.record();
}

function overall() {
  const rec = record();
  if (rec.label !== null) return rec.label;
  if (rec.sentences.includes("unsupported")) return false;
  if (rec.sentences.length && rec.sentences.every((v) => v === "supported")) return true;
  return null;
}

// Only what a mark changes is redrawn: sentences are built once per answer (show) and
// updated in place; the passages only when the focused sentence's window moves.
function render() {
  const rec = record();
  byId("position").textContent = `${page.index + 1} / ${page.state.total}`;
  byId("item-id").textContent = page.item.id;
  byId("note").value = rec.note;
  const label = overall();
  const how = rec.label !== null ? " (overridden)" : " (from the sentences)";
  byId("label").textContent = label === null ? "overall: not decided yet"
    : `overall: ${label ? "faithful" : "not faithful"}${how}`;
  byId("label").dataset.state = label === null ? "open" : label ? "faithful" : "unfaithful";
  byId("override").setAttribute("aria-pressed", String(rec.label !== null));
  byId("answers").textContent = rec.answers === null ? "answers? (a)"
    : rec.answers ? "answers the question (a)" : "does not answer (a)";
  refreshSentences();
  renderPassages();
}

function buildSentences() {
  const list = byId("sentences");
  list.replaceChildren();
  page.sentenceCards = page.item.sentences.map((sentence, i) => {
    const buttons = [];
    const box = el("div", { class: "grade" });
    for (const [value, word] of Object.entries(VERDICT_WORDS)) {
      const button = el("button", {
        type: "button",
        class: "mark",
        "data-verdict": value,
        text: word,
        onclick: (event) => {
          event.stopPropagation();
          page.focus = i;
          setVerdict(i, value);
        },
      });
      buttons.push([value, button]);
      box.append(button);
    }
    const card = el("li", { class: "card sentence", onclick: () => { page.focus = i; render(); } },
      longText(sentence, null), box);
    list.append(card);
    return { card, buttons };
  });
}

function refreshSentences() {
  const rec = record();
  page.sentenceCards.forEach(({ card, buttons }, i) => {
    const verdict = rec.sentences[i];
    card.classList.toggle("focused", i === page.focus);
    for (const value of Object.keys(VERDICT_WORDS)) card.classList.toggle(`v-${value}`, verdict === value);
    for (const [value, button] of buttons) {
      const pressed = String(verdict === value);
      if (button.getAttribute("aria-pressed") !== pressed) button.setAttribute("aria-pressed", pressed);
    }
  });
}

function renderPassages() {
  const evidence = page.item.evidence[page.focus] || null;
  const key = JSON.stringify(evidence);
  if (page.shownEvidence === key) return; // the same window: nothing to redraw
  page.shownEvidence = key;
  const list = byId("passages");
  list.replaceChildren();
  page.item.contexts.forEach((text, i) => {
    const mark = evidence && evidence[0] === i ? [evidence[1], evidence[2]] : null;
    list.append(el("li", { class: "card" },
      el("div", { class: "card-head" },
        el("span", { class: "chunk-id", text: `[${i + 1}] ${page.item.context_ids[i]}` })),
      longText(text, mark)));
  });
}

function renderJudge() {
  const box = byId("judge");
  const judge = page.item.judge;
  box.hidden = !judge;
  box.replaceChildren();
  if (!judge) return;
  const decided = judge.faithful === null ? "undecided" : judge.faithful ? "faithful" : "not faithful";
  box.append(el("h3", { text: "the judge said" }),
    el("p", { text: `${decided}, score ${judge.score === null ? "-" : judge.score.toFixed(3)}` }),
    el("p", { class: "muted", text: judge.reason || "" }));
}

function setVerdict(i, value) {
  const rec = record();
  rec.sentences[i] = rec.sentences[i] === value ? null : value;
  page.save();
  render();
}

function cycleOverride() {
  const rec = record();
  rec.label = rec.label === null ? true : rec.label === true ? false : null;
  page.save();
  render();
}

function cycleAnswers() {
  const rec = record();
  rec.answers = rec.answers === null ? true : rec.answers === true ? false : null;
  page.save();
  render();
}

function renderCoverage(cov) {
  byId("cov-done").textContent = `${cov.done} / ${cov.target}`;
  byId("cov-faithful").textContent = cov.done ? `${cov.faithful} of ${cov.done}` : "-";
  byId("cov-median").textContent = duration(cov.median_seconds);
  byId("cov-left").textContent = duration(cov.seconds_left);
}

function focusSentence(delta) {
  const n = page.item.sentences.length;
  if (!n) return;
  page.focus = Math.min(Math.max(page.focus + delta, 0), n - 1);
  render();
  const card = byId("sentences").children[page.focus];
  if (card) card.scrollIntoView({ block: "nearest" });
}

page.start();
