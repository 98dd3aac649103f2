"""A small realistic AuditResult, built the way the audit builds one (for the tests of
``results/`` in ``tests/results/`` and of ``render/`` in ``tests/render/``).

The embedded RetrievalReport comes from ``evaluate_retrieval`` on a 12-query golden set
(2 unanswerable); every case's label follows from where its relevant chunk was ranked,
whether it reached the context, and what the judge said. ``hostile=True`` puts script,
image, link and control-character payloads in every free-text field the reports show.
"""

from __future__ import annotations

import pytest

from ragtriage import evaluate_retrieval
from ragtriage.calibration.record import fingerprint_diff
from ragtriage.judge.types import (
    Claim,
    JudgeFingerprint,
    JudgeResult,
    Outcome,
    Usage,
    Verdict,
)
from ragtriage.results.run import AuditResult, AuditSettings, GoldenSource, TraceSource
from ragtriage.triage.calibrated import naive_rate
from ragtriage.triage.cause_types import Cause, CauseEvidence
from ragtriage.triage.models import (
    CalibrationStatus,
    CaseResult,
    Cluster,
    Estimate,
    GenerationSummary,
    Label,
)

SCRIPT = "<script>document.title='pwned'</script>"
IMG = "<img src=x onerror=\"document.title='pwned'\">"
LINK = "[x](javascript:document.title='pwned')"
CONTROLS = "\x00\x07\x1b[31m\u202e\x7f"
HOSTILE = f"{SCRIPT} {IMG} {LINK} a|b {CONTROLS}"
CONTEXT = 3  # chunks passed to the generator
FINGERPRINT = JudgeFingerprint(judge="claims", model="replay", params={"temperature": 0})

TAGS = ["wh:who", "wh:what", "numeric"]
# Rank of the relevant chunk among 5 retrieved (None: not retrieved) per answerable query.
BASE_RANKS = {f"q{i:02d}": r for i, r in enumerate([1, 1, 2, 1, 4, 5, None, 1, 3, None], 1)}


def golden_rows(hostile: bool = False) -> list[dict]:
    rows = [
        {
            "id": qid,
            "query": f"question {qid} about topic {i}",
            "expected": [f"{qid}-rel"],
            "tags": [TAGS[i % 3]],
        }
        for i, qid in enumerate(BASE_RANKS)
    ]
    rows += [
        {"id": f"u{i}", "query": f"unanswerable {i}", "expected": [], "tags": ["unans"]}
        for i in (1, 2)
    ]
    if hostile:
        rows[0]["query"] = f"What is {HOSTILE}?"
        rows[6]["query"] = f"Missed {SCRIPT}"
        rows[0]["tags"] = [f"{SCRIPT}", "$\\bad{$"]
        rows[6]["tags"] = [f"{IMG}"]
    return rows


def make_run(ranks: dict[str, int | None]) -> dict[str, dict[str, float]]:
    run = {}
    for qid in [*ranks, "u1", "u2"]:
        docs = [f"{qid}-d{j}" for j in range(5)]
        rank = ranks.get(qid)
        if rank is not None:
            docs[rank - 1] = f"{qid}-rel"
        run[qid] = {doc: round(0.9 - 0.1 * j, 3) for j, doc in enumerate(docs)}
    return run


def _judge(qid: str, faithful: bool | None, hostile: bool) -> JudgeResult:
    if faithful is None:
        return JudgeResult(
            item_id=qid, outcome=Outcome.UNSCORED, reason="model timed out", fingerprint=FINGERPRINT
        )
    text = f"The claim {HOSTILE}" if hostile else f"{qid} has a property"
    verdict = Verdict.SUPPORTED if faithful else Verdict.NOT_IN_CONTEXT
    return JudgeResult(
        item_id=qid,
        outcome=Outcome.SCORED,
        score=1.0 if faithful else 0.0,
        claims=[
            Claim(
                text=text,
                verdict=verdict,
                probability=0.9 if faithful else 0.1,
                chunk_ids=[f"{qid}-d0"],
                reason=HOSTILE if hostile else "",
            )
        ],
        fingerprint=FINGERPRINT,
        signals={"lexical": 0.5},
    )


def _label(rank: int | None, faithful: bool | None) -> tuple[Label, str]:
    if rank is None:
        return Label.RETRIEVAL, "no relevant chunk retrieved"
    if rank > CONTEXT:
        return Label.RANKING, f"relevant chunk at rank {rank}, context holds the top {CONTEXT}"
    if faithful is None:
        return Label.UNSCORED, "the judge could not score the answer"
    if not faithful:
        return Label.GENERATION, "right context, unsupported answer"
    return Label.PASS, "faithful answer from the right context"


def make_audit(
    ranks: dict[str, int | None] | None = None,
    *,
    unfaithful: tuple[str, ...] = ("q02",),
    unscored: tuple[str, ...] = ("q08",),
    stale: tuple[str, ...] = (),
    hostile: bool = False,
) -> AuditResult:
    ranks = dict(BASE_RANKS if ranks is None else ranks)
    rows = golden_rows(hostile)
    run = make_run(ranks)
    report = evaluate_retrieval(rows, run, ["recall", "mrr", "ndcg@10"], k=[1, 3, 5], resamples=300)
    cases = []
    for row in rows[: len(ranks)]:
        qid = row["id"]
        faithful = None if qid in unscored else qid not in unfaithful
        label, reason = _label(ranks[qid], faithful)
        retrieved = list(run[qid])
        answer = f"Answer: {HOSTILE}" if hostile else f"answer to {qid}"
        causes = (
            [
                CauseEvidence(
                    cause=Cause.MISLED,
                    sentence=answer,
                    chunk_id=f"{qid}-d0 {SCRIPT}" if hostile else f"{qid}-d0",
                    golden=False,
                    span=f"the distractor says {HOSTILE}" if hostile else "the distractor says",
                    note=f"it follows a chunk that is not golden {IMG}" if hostile else "",
                )
            ]
            if label == Label.GENERATION
            else []
        )
        cases.append(
            CaseResult(
                case_id=qid,
                query=row["query"],
                tags=row["tags"],
                answerable=True,
                expected=row["expected"],
                retrieved_ids=retrieved,
                retrieved_scores=list(run[qid].values()),
                context_ids=retrieved[:CONTEXT],
                first_relevant_rank=ranks[qid],
                relevant_in_context=ranks[qid] is not None and ranks[qid] <= CONTEXT,
                answer=answer,
                judge=_judge(qid, faithful, hostile),
                faithful=faithful,
                label=label,
                cause=causes[0].cause if causes else None,
                causes=causes,
                reason=f"{reason} {HOSTILE}" if hostile else reason,
            )
        )
    counts = {label.value: sum(c.label == label for c in cases) for label in Label}
    # a results file is checked against itself when read (results/consistency.py): the
    # rate is the cases' own, and a stale calibration names a judge that differs
    naive = naive_rate([c.faithful for c in cases if c.faithful is not None])
    calibrated = _calibrated(stale)
    clusters = _clusters(cases, hostile)
    return AuditResult(
        created_at="2026-11-30T00:00:00Z",
        config=AuditSettings(golden="golden", context_k=CONTEXT),
        versions={"ragtriage": "test"},
        golden=GoldenSource(
            source=str(report.golden.get("source", "golden")),
            sha256=str(report.golden.get("sha256", "0" * 64)),
            cases=len(cases),
            slice="all",
            format="ragtriage-jsonl",
        ),
        traces=TraceSource(source="t.jsonl"),
        judge_fingerprint=FINGERPRINT,
        judge_usage=Usage(calls=len(cases)),
        calibration=CalibrationStatus(
            source="calibration.json",
            fingerprint=calibrated,
            stale=fingerprint_diff(calibrated, FINGERPRINT),
            threshold=0.5,
            kappa=Estimate(estimate=0.71, low=0.6, high=0.8),
            note=HOSTILE if hostile else "",
        ),
        retrieval=report,
        generation=GenerationSummary(
            n_judged=len(cases),
            outcomes={"scored": len(cases) - len(unscored), "unscored": len(unscored)},
            naive_faithful_rate=naive,
            corrected_faithful_rate=Estimate(estimate=0.75, low=0.5, high=0.9),
        ),
        counts=counts,
        clusters=clusters,
        cases=cases,
        warnings=[f"trace warning {HOSTILE}"] if hostile else [],
    )


def _calibrated(stale: tuple[str, ...]) -> JudgeFingerprint:
    """The calibrated judge's fingerprint, differing from FINGERPRINT in ``stale``
    (``model``, ``judge``, ``prompt_sha256`` or ``params``)."""
    update: dict = {}
    if "model" in stale:
        update["model"] = "older-model"
    if "judge" in stale:
        update["judge"] = "sentences"
    if "prompt_sha256" in stale:
        update["prompt_sha256"] = {"claims.txt": "0" * 64}
    if "params" in stale:
        update["params"] = {"temperature": 1}
    return FINGERPRINT.model_copy(update=update)


def _clusters(cases: list[CaseResult], hostile: bool) -> list[Cluster]:
    groups: dict[tuple[Label, str], list[str]] = {}
    for case in cases:
        if case.label in (Label.RETRIEVAL, Label.RANKING, Label.GENERATION):
            for tag in case.tags:
                groups.setdefault((case.label, tag), []).append(case.case_id)
    return [
        Cluster(
            label=label,
            tag=tag,
            count=len(ids),
            case_ids=ids,
            action=f"add chunks for {tag}" + (f" {HOSTILE}" if hostile else ""),
        )
        for (label, tag), ids in sorted(groups.items())
    ]


@pytest.fixture
def audit() -> AuditResult:
    return make_audit()


@pytest.fixture
def hostile_audit() -> AuditResult:
    return make_audit(hostile=True)


@pytest.fixture
def empty_audit() -> AuditResult:
    """No cases, no clusters, no threshold, no estimates: the reports must still render."""
    audit = make_audit()
    retrieval = audit.retrieval.model_copy(
        update={"threshold": None, "aggregates": [], "slices": []}
    )
    return audit.model_copy(
        update={
            "cases": [],
            "clusters": [],
            "counts": {},
            "retrieval": retrieval,
            "generation": GenerationSummary(n_judged=0, outcomes={}),
            "calibration": CalibrationStatus(),
        }
    )


def with_leaks(audit: AuditResult, leaks: list[tuple[str, str, int]]) -> AuditResult:
    """``audit`` whose retrieval report checked access control and found ``leaks``."""
    from ragtriage.retrieval.models import Leak, LeakSection

    section = LeakSection(
        k=5,
        n_cases_checked=4,
        n_leaking=len({q for q, _, _ in leaks}),
        cases=[Leak(query_id=q, forbidden_id=d, rank=r) for q, d, r in leaks],
    )
    retrieval = audit.retrieval.model_copy(update={"leaks": section})
    return audit.model_copy(update={"retrieval": retrieval})
