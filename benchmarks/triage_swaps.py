"""Does triage catch one-fact swaps without failing correct answers? End to end, by CLI.

    python benchmarks/triage_swaps.py --judge lexical --out /tmp/swaps
    python benchmarks/triage_swaps.py --out /tmp/swaps            # the default judge

From the shipped ClapNQ golden set (``golden_sets/clapnq``: human-written reference
answers, Wikipedia passages with titles) it builds traces whose labels are known by
construction and runs ``ragtriage audit`` on them:

* **passes**: the reference answer, its passage retrieved first, two other passages after;
* **retrieval** and **ranking** failures (``--n-retrieval``, half each): the passage not
  retrieved at all, or retrieved fourth, below the three passed to the generator;
* **swaps**: another case's reference answer changed in one fact, same retrieval. The
  kinds, in rotation: a year, another number, a name (a capitalised word of the answer
  replaced by one from an unrelated answer), a place (from a fixed list), an antonym
  (a fixed list written for this benchmark, not the judge's), a negation (``is`` ->
  ``is not``) and an added claim (a sentence of an unrelated passage appended).

A swap is caught when its case is labelled ``generation``; a pass is kept when labelled
``pass``. Which cases become which is seeded; every case is used once. The traces, the
golden subset and the audit's ``results.json`` stay under ``--out`` for reading.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from ragtriage.data.golden import load_golden
from ragtriage.retrieval.retrievers import BM25Retriever

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "golden_sets" / "clapnq"
KINDS = ("year", "number", "name", "place", "antonym", "negation", "added")
PLACES = """London Paris Berlin Rome Madrid Moscow Tokyo Beijing Sydney Toronto Chicago Boston
Texas California Florida Ohio Georgia Virginia England Scotland Ireland France Germany
Italy Spain Russia China Japan India Canada Australia Mexico Brazil Egypt Africa Europe
Asia America Atlanta Seattle Denver Dallas Houston Miami Philadelphia Manchester
Liverpool Glasgow Dublin Vienna Prague Athens Cairo Delhi Mumbai Toronto Vancouver""".split()
ANTONYMS = [
    ("largest", "smallest"), ("first", "last"), ("before", "after"), ("north", "south"),
    ("east", "west"), ("male", "female"), ("older", "younger"), ("highest", "lowest"),
    ("early", "late"), ("won", "lost"), ("upper", "lower"), ("longest", "shortest"),
    ("best", "worst"), ("inside", "outside"), ("increase", "decrease"), ("more", "less"),
    ("major", "minor"), ("top", "bottom"), ("left", "right"), ("above", "below"),
    ("higher", "lower"), ("beginning", "end"), ("open", "closed"), ("maximum", "minimum"),
]  # fmt: skip
YEAR = re.compile(r"\b(1[5-9]\d\d|20[0-2]\d)\b")
NUMBER = re.compile(r"(?<![\d.,])\b(\d{1,3}(?:\.\d+)?)\b(?![\d,])")
CAPITAL = re.compile(r"(?<=[a-z,] )([A-Z][a-z]{3,})\b")
NEGATABLE = re.compile(r"\b(is|was|are|were|can|will|has|had)\b(?! not)")


def swap(kind: str, answer: str, pool: str, rng: random.Random, donors: list[str]) -> str | None:
    """``answer`` changed in one fact of ``kind`` absent from ``pool``, or ``None``."""
    if kind == "year":
        m = YEAR.search(answer)
        if m:
            new = str(int(m.group(1)) + rng.choice([-7, -3, 2, 5, 11]))
            return None if new in pool else answer[: m.start()] + new + answer[m.end() :]
    elif kind == "number":
        for m in NUMBER.finditer(answer):
            new = str(int(float(m.group(1)) * 2 + 1)) if "." not in m.group(1) else None
            if new and new not in pool:
                return answer[: m.start()] + new + answer[m.end() :]
    elif kind == "name":
        m = CAPITAL.search(answer)
        if m:
            found = [w for d in donors for w in CAPITAL.findall(d) if w.lower() not in pool.lower()]
            if found:
                return answer[: m.start()] + rng.choice(found) + answer[m.end() :]
    elif kind == "place":
        for place in PLACES:
            m = re.search(rf"\b{place}\b", answer)
            if m:
                new = rng.choice([p for p in PLACES if p.lower() not in pool.lower()])
                return answer[: m.start()] + new + answer[m.end() :]
    elif kind == "antonym":
        for a, b in ANTONYMS:
            for old, new in ((a, b), (b, a)):
                m = re.search(rf"\b{old}\b", answer, re.I)
                if m and not re.search(rf"\b{new}\b", answer, re.I):
                    return answer[: m.start()] + new + answer[m.end() :]
    elif kind == "negation":
        m = NEGATABLE.search(answer)
        if m:
            return answer[: m.end()] + " not" + answer[m.end() :]
    elif kind == "added":
        sentences = [s for d in donors for s in re.split(r"(?<=\.)\s+", d) if 40 < len(s) < 200]
        if sentences:
            return answer.rstrip() + " " + rng.choice(sentences)
    return None


def build(n: int, seed: int, out: Path, n_retrieval: int = 0) -> dict[str, dict]:
    """Write ``out/golden`` (the cases used, the whole corpus) and ``out/traces.jsonl``;
    return each case's construction (group, kind, original and new answer)."""
    golden = load_golden(GOLDEN)
    corpus = golden.corpus or {}
    cases = [c for c in golden.cases if c.reference_answer and c.expected()]
    rng = random.Random(seed)
    rng.shuffle(cases)
    retriever = BM25Retriever(corpus)
    plan: dict[str, dict] = {}
    kinds = iter(KINDS * n)
    kind = next(kinds)
    donors = [c.reference_answer or "" for c in cases]
    spare = []
    for i, case in enumerate(cases):  # swaps first; a case no swap fits may be a pass
        if sum(p["group"] == "swap" for p in plan.values()) == n:
            spare += cases[i:]
            break
        gold = list(case.expected())
        pool = " ".join(corpus[g].passage for g in gold)
        others = [d for j, d in enumerate(donors) if j != i][i % 50 : i % 50 + 20]
        unrelated = [corpus[cid].text for cid in list(corpus)[i * 7 % len(corpus) :][:5]]
        answer = case.reference_answer or ""
        new = swap(kind, answer, pool, rng, unrelated if kind == "added" else others)
        if new is None:
            spare.append(case)
            continue
        plan[case.id] = {"group": "swap", "kind": kind, "answer": new}
        kind = next(kinds)
    for case in spare[:n]:
        plan[case.id] = {"group": "pass", "kind": "reference", "answer": case.reference_answer}
    for k, case in enumerate(spare[n : n + n_retrieval]):  # the answer does not matter
        kind = ("retrieval", "ranking")[k % 2]
        plan[case.id] = {"group": kind, "kind": kind, "answer": case.reference_answer}
    for case in cases:
        if case.id in plan:
            gold = list(case.expected())
            hits = [h.id for h in retriever.search_many([case.query], 10)[0] if h.id not in gold]
            retrieved = {  # the gold passage first, below the context, or not at all
                "retrieval": hits[:5],
                "ranking": [*hits[:3], *gold, *hits[3:4]],
            }.get(plan[case.id]["group"], [*gold, *hits[:2]])
            plan[case.id]["retrieved"] = retrieved
    (out / "golden").mkdir(parents=True, exist_ok=True)
    with open(out / "golden" / "golden.jsonl", "w") as f:
        for line in (GOLDEN / "golden.jsonl").read_text().splitlines():
            if json.loads(line)["id"] in plan:
                f.write(line + "\n")
    (out / "golden" / "corpus.jsonl").write_text((GOLDEN / "corpus.jsonl").read_text())
    with open(out / "traces.jsonl", "w") as f:
        for cid, p in plan.items():
            retrieved = [{"id": d, "score": 10.0 - r} for r, d in enumerate(p["retrieved"])]
            context = p["retrieved"][:3]
            trace = {"query_id": cid, "retrieved": retrieved, "context_ids": context}
            f.write(json.dumps({**trace, "answer": p["answer"]}) + "\n")
    return plan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--judge", default=None, help="as ragtriage audit --judge")
    parser.add_argument("--n", type=int, default=40, help="swaps and passes, each")
    parser.add_argument(
        "--n-retrieval", type=int, default=40, help="retrieval and ranking failures, together"
    )
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--cache", type=Path, default=None)
    args = parser.parse_args()
    plan = build(args.n, args.seed, args.out, args.n_retrieval)
    cmd = [
        str(Path(sys.executable).parent / "ragtriage"),
        "audit",
        "--golden",
        str(args.out / "golden"),
    ]
    cmd += ["--traces", str(args.out / "traces.jsonl"), "--out", str(args.out / "audit")]
    cmd += ["--context-k", "3"]
    cmd += ["--judge", args.judge] if args.judge else []
    cmd += ["--cache", str(args.cache)] if args.cache else []
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    results = json.loads((args.out / "audit" / "results.json").read_text())
    labels = {c["case_id"]: c for c in results["cases"]}
    tally: Counter[tuple[str, str, str]] = Counter()
    missed = []
    for cid, p in plan.items():
        label = labels[cid]["label"]
        tally[(p["group"], p["kind"], label)] += 1
        ok = label == {"swap": "generation", "pass": "pass"}.get(p["group"], p["group"])
        if not ok:
            missed.append((p["group"], p["kind"], label, p["answer"][:160]))
    print(" ".join(cmd[1:]))
    fp = results["judge_fingerprint"]
    print(f"exit {done.returncode}, {seconds:.0f} s, judge {fp['judge']}@{fp['model']}")
    swaps = [p for p in plan.values() if p["group"] == "swap"]
    caught = sum(
        labels[c]["label"] == "generation" for c, p in plan.items() if p["group"] == "swap"
    )
    kept = sum(labels[c]["label"] == "pass" for c, p in plan.items() if p["group"] == "pass")
    n_pass = sum(p["group"] == "pass" for p in plan.values())
    print(f"swaps caught {caught}/{len(swaps)}; passes kept {kept}/{n_pass}")
    right = {
        g: sum(labels[c]["label"] == g for c in plan if plan[c]["group"] == g)
        for g in ("retrieval", "ranking")
    }
    sizes = Counter(p["group"] for p in plan.values())
    print(", ".join(f"{g} labelled {g} {right[g]}/{sizes[g]}" for g in right))
    for kind in (*KINDS, "reference", "retrieval", "ranking"):
        row = {lab: n for (g, k, lab), n in tally.items() if k == kind}
        print(f"  {kind:10s} {row}")
    for m in missed:
        print("  wrong:", m)


if __name__ == "__main__":
    main()
