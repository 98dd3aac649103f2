"""Constructed generation failures of every cause, each with the primary cause it must get.

From the shipped ClapNQ golden set (human-written reference answers, Wikipedia passages),
each case keeps its golden passage first in a context of three (the other two: BM25's best
non-golden passages for the query) and gets an answer made to fail in one way:

* ``contradicted``: the reference answer with one fact swapped (a year, a number, a name,
  a place, an antonym, a negation: ``triage_swaps.swap``, the same swaps as that benchmark);
* ``misled``: a sentence of a distractor passage in the context, sharing under a quarter of
  its content words with the golden passage;
* ``unsupported``: the reference answer with a sentence of an unrelated passage (not in the
  context) appended;
* ``ignored``: an abstention ("The context does not contain the answer.") or a sentence of
  the golden passage that shares no content word with the reference answer beyond the
  question's (answers something else);
* ``incomplete``: the first half of a reference answer of at least two sentences;
* ``citation_unsupported``: the reference answer, every sentence citing ``[2]`` (a
  distractor); ``citation_missing``: every sentence citing ``[5]`` (the context has three).

Plus ``pass`` controls: the reference answer itself, which must stay ``pass``. The words
compared here are lower-cased alphabetic tokens of 4+ letters (not ragtriage's content
words or stems), so the construction does not share the code it tests. Which cases get
which construction is seeded; every case is used once.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from triage_swaps import GOLDEN, swap

from ragtriage.data.golden import load_golden
from ragtriage.retrieval.retrievers import BM25Retriever

__all__ = ["CAUSES", "KINDS", "build"]

CAUSES = (
    "contradicted",
    "misled",
    "unsupported",
    "ignored",
    "incomplete",
    "citation_unsupported",
    "citation_missing",
)
SWAPS = ("year", "number", "name", "place", "antonym", "negation")
KINDS = {
    "contradicted": SWAPS,
    "misled": ("distractor",),
    "unsupported": ("added",),
    "ignored": ("abstain", "off-question"),
    "incomplete": ("half",),
    "citation_unsupported": ("wrong-passage",),
    "citation_missing": ("no-such-passage",),
    "pass": ("reference",),
}
ABSTAIN = "The context does not contain the answer."
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])|\s*[\r\n]+\s*")


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{4,}", text.lower()))


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if len(s.strip()) > 20]


def _cite(answer: str, marker: str) -> str:
    parts = [s.strip() for s in _SENTENCE.split(answer) if s.strip()]
    return " ".join(s.rstrip(". ") + f" {marker}." for s in parts)


def _construct(kind, case, gold_text, distractors, unrelated, donors, rng):
    """The answer of ``kind`` for one case, or ``None`` when the case does not fit it."""
    reference = case.reference_answer or ""
    asked = _words(case.query)
    if kind in SWAPS:
        return swap(kind, reference, gold_text, rng, donors)
    if kind == "added":
        extra = [s for s in _sentences(unrelated) if 40 < len(s) < 200]
        return f"{reference.rstrip()} {rng.choice(extra)}" if extra else None
    if kind == "distractor":
        gold = _words(gold_text)
        for text in distractors:
            for s in _sentences(text):
                words = _words(s)
                if len(words) >= 6 and len(words & gold) < 0.25 * len(words):
                    return s
        return None
    if kind == "abstain":
        return ABSTAIN
    if kind == "off-question":
        ref = _words(reference) - asked
        for s in _sentences(gold_text):
            words = _words(s)
            if len(words) >= 6 and not (words - asked) & ref:
                return s
        return None
    if kind == "half":
        parts = _sentences(reference)
        return " ".join(parts[: len(parts) // 2]) if len(parts) >= 2 else None
    if kind == "wrong-passage":
        return _cite(reference, "[2]")
    if kind == "no-such-passage":
        return _cite(reference, "[5]")
    if kind == "reference":
        return reference
    raise ValueError(kind)


def build(n: int, seed: int, out: Path) -> dict[str, dict]:
    """``n`` cases per cause (and ``n`` passes), kinds in rotation; writes ``out/golden``
    and ``out/traces.jsonl``; returns each case's construction."""
    golden = load_golden(GOLDEN)
    corpus = golden.corpus or {}
    cases = [c for c in golden.cases if c.reference_answer and c.expected()]
    rng = random.Random(seed)
    rng.shuffle(cases)
    retriever = BM25Retriever(corpus)
    donors = [c.reference_answer or "" for c in cases]
    ids = list(corpus)
    plan: dict[str, dict] = {}
    queue = list(cases)
    for cause in ("pass", *CAUSES):  # the controls first: each cause below has its own
        kinds = KINDS[cause]
        made, tries = 0, 0
        while made < n and queue and tries < len(cases):
            tries += 1
            case = queue.pop(0)
            gold = list(case.expected())
            gold_text = " ".join(corpus[g].passage for g in gold)
            hits = [h.id for h in retriever.search_many([case.query], 10)[0] if h.id not in gold]
            distractors = [corpus[h].passage for h in hits[:2]]
            start = (len(plan) * 7919) % len(ids)
            unrelated = " ".join(
                corpus[c].text for c in ids[start : start + 3] if c not in hits[:2] + gold
            )
            kind = kinds[made % len(kinds)]
            answer = _construct(kind, case, gold_text, distractors, unrelated, donors[:40], rng)
            if answer is None or answer == case.reference_answer and cause != "pass":
                queue.append(case)
                continue
            plan[case.id] = {
                "cause": cause,
                "kind": kind,
                "answer": answer,
                "retrieved": [*gold[:1], *hits[:2]],
                "gold": gold[0],
                "distractors": hits[:2],
            }
            made += 1
    (out / "golden").mkdir(parents=True, exist_ok=True)
    with open(out / "golden" / "golden.jsonl", "w") as f:
        for line in (GOLDEN / "golden.jsonl").read_text().splitlines():
            if json.loads(line)["id"] in plan:
                f.write(line + "\n")
    (out / "golden" / "corpus.jsonl").write_text((GOLDEN / "corpus.jsonl").read_text())
    with open(out / "traces.jsonl", "w") as f:
        for cid, p in plan.items():
            retrieved = [{"id": d, "score": 10.0 - r} for r, d in enumerate(p["retrieved"])]
            trace = {"query_id": cid, "retrieved": retrieved, "context_ids": p["retrieved"]}
            f.write(json.dumps({**trace, "answer": p["answer"]}) + "\n")
    return plan
