"""Does each judge name the right primary cause of a generation failure? Constructed cases.

    python benchmarks/causes_bench.py --out /tmp/causes [--n 12] [--seed 20261202]

Builds the cases of ``cause_cases.py`` (``--n`` per cause, and ``--n`` reference answers
that must pass) and audits them with:

* ``lexical``: the model-free judge;
* ``default``: the audit's default judge (the embedded model's sentences judge; its shipped
  calibrated rule reads only model-free signals, so the model is not called);
* ``claims``: the claims judge through recorded responses. No model runs here: the responses
  are what a correct claims judge returns for the constructed answers (each answer
  sentence ``supported`` citing the golden chunk, the swapped one ``contradicted``, the
  added one ``not_in_context``, a distractor's sentence ``supported`` citing the
  distractor, an abstention ``abstention``; against the reference answer likewise),
  written by this script into a recording (``--out``/claims_recording.jsonl) and replayed
  by :class:`ragtriage.llm.replay.ReplayModel`. This figure measures the cause assignment
  from a claims judge's verdicts, not any model's judging.

A case is right when its label is ``generation`` and its primary cause is the constructed
one (a control: label ``pass``). Prints one table per judge and the misses.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from cause_cases import CAUSES, build

from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig
from ragtriage.judge.items import fence_answer
from ragtriage.judge.lexical import split_sentences
from ragtriage.llm.base import ModelResponse
from ragtriage.llm.cache import ResponseCache
from ragtriage.llm.replay import ReplayModel, write_recording

ROOT = Path(__file__).resolve().parents[1]
MODEL = "constructed/claims-judge"


class _Scripted:
    """The claims judge's answers for the constructed cases (module doc)."""

    def __init__(self, plan: dict[str, dict], originals: dict[str, str]) -> None:
        self.name = MODEL
        self.params: dict = {}
        self.local = True
        self.by_answer = {p["answer"]: (cid, p) for cid, p in plan.items()}
        self.originals = originals

    async def complete(self, request) -> ModelResponse:
        prompt = "\n".join(m.content for m in request.messages)
        found = [a for a in self.by_answer if fence_answer(a) in prompt]
        cid, p = self.by_answer[max(found, key=len)]
        body = self._body(p, self.originals[cid], against_reference='id="reference"' in prompt)
        return ModelResponse(text=json.dumps(body), prompt_tokens=0, completion_tokens=0)

    def _body(self, p: dict, reference: str, against_reference: bool) -> dict:
        if p["kind"] == "abstain":
            return {"kind": "abstention", "claims": []}
        original = set(split_sentences(reference))
        claims = []
        for sentence in split_sentences(p["answer"]):
            verdict, chunk = "supported", p["gold"]
            if p["cause"] == "contradicted" and sentence not in original:
                verdict = "contradicted"
            elif p["cause"] == "unsupported" and sentence not in original:
                verdict, chunk = "not_in_context", None
            elif p["cause"] == "misled":
                verdict, chunk = (
                    ("not_in_context", None)
                    if against_reference
                    else ("supported", p["distractors"][0])
                )
            elif p["kind"] == "off-question" and against_reference:
                verdict, chunk = "not_in_context", None
            ids = [] if chunk is None or against_reference else [chunk]
            claims.append({"claim": sentence, "verdict": verdict, "chunk_ids": ids})
        return {"kind": "claims", "claims": claims}


def _claims_model(plan, originals, out: Path) -> ReplayModel:
    """Record the scripted responses through a real audit's requests, then replay them."""
    cache_path = out / "record.sqlite"
    cache_path.unlink(missing_ok=True)
    scripted = _Scripted(plan, originals)
    audit_flow.run(_config(out, scripted, cache_path))
    recording = out / "claims_recording.jsonl"
    cache = ResponseCache(cache_path)
    try:
        write_recording(cache, MODEL, {}, recording, "constructed by benchmarks/causes_bench.py")
    finally:
        cache.close()
    return ReplayModel.load(recording)


def _config(out: Path, judge, cache: Path) -> AuditConfig:
    options = {} if judge is None else {"judge": judge}
    if not isinstance(judge, str | None):
        options["strategy"] = "claims"
    return AuditConfig(
        golden=out / "golden", traces=out / "traces.jsonl", cache=cache, context_k=3, **options
    )


def _score(plan: dict[str, dict], result) -> tuple[Counter, Counter, list]:
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    misses = []
    for case in result.cases:
        p = plan[case.case_id]
        want = p["cause"]
        got = (
            "pass"
            if case.label.value == "pass"
            else (str(case.cause) if case.label.value == "generation" else case.label.value)
        )
        total[want] += 1
        if got == want:
            right[want] += 1
        else:
            misses.append((want, p["kind"], got, p["answer"][:140]))
    return right, total, misses


def _commit() -> str:
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "src", "benchmarks/*.py"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return done.stdout.strip() + ("+changes" if dirty else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=12, help="cases per cause, and passes")
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--judges", default="lexical,default,claims")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    plan = build(args.n, args.seed, args.out)
    originals = {c: json.loads(line)["reference_answer"] for c, line in _golden_lines(args.out)}
    kinds = Counter((p["cause"], p["kind"]) for p in plan.values())
    print(f"# python benchmarks/causes_bench.py --n {args.n} --seed {args.seed}   "
          f"(commit {_commit()}, {time.strftime('%Y-%m-%d', time.gmtime())})")  # fmt: skip
    print(f"# {len(plan)} cases: " + ", ".join(f"{c}/{k} {n}" for (c, k), n in kinds.items()))
    print("# right: label generation with the constructed primary cause (controls: label pass)")
    for judge in args.judges.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            cache = Path(tmp) / "cache.sqlite"
            start = time.perf_counter()
            if judge == "claims":
                model = _claims_model(plan, originals, args.out)
                result = audit_flow.run(_config(args.out, model, cache))
            else:
                result = audit_flow.run(
                    _config(args.out, None if judge == "default" else judge, cache)
                )
            seconds = time.perf_counter() - start
        right, total, misses = _score(plan, result)
        fp = result.calibration.fingerprint or result.judge_fingerprint  # the rule's judge
        causes = sum(right[c] for c in CAUSES), sum(total[c] for c in CAUSES)
        print(f"\n## {judge}: judge {fp.judge}@{fp.model}, {seconds:.0f} s; "
              f"{result.calibration.note[:120]}")  # fmt: skip
        print(f"primary cause right {causes[0]}/{causes[1]} ({causes[0] / causes[1]:.1%}); "
              f"controls kept pass {right['pass']}/{total['pass']}")  # fmt: skip
        for cause in (*CAUSES, "pass"):
            share = right[cause] / total[cause] if total[cause] else float("nan")
            print(f"  {cause:22} {right[cause]:3}/{total[cause]:<3} {share:6.1%}")
        for miss in misses:
            print("  miss:", miss)
    sys.stdout.flush()


def _golden_lines(out: Path):
    for line in (out / "golden" / "golden.jsonl").read_text().splitlines():
        yield json.loads(line)["id"], line


if __name__ == "__main__":
    main()
