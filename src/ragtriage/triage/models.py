"""The audit's data: traces in, one labelled row per golden case out.

``AuditResult`` is what ``results.json`` holds (versioned by ``schema_version``) and what
every report renders; ``compare`` and ``gate`` read it back.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ragtriage.calibration.decision import AnyRule
from ragtriage.data.models import DEFAULT_CONTEXT_K, RetrievedChunk, Trace  # Trace: data/formats
from ragtriage.judge.spec import EMBEDDED
from ragtriage.judge.types import JudgeFingerprint, JudgeResult, Usage
from ragtriage.retrieval.defaults import DEFAULT_KS, DEFAULT_METRICS
from ragtriage.retrieval.models import RetrievalReport
from ragtriage.stats import Estimate
from ragtriage.triage.cause_types import Cause, CauseEvidence
from ragtriage.triage.diagnostics import DiagnosticsSummary

__all__ = [
    "CASE_COLUMNS",
    "AuditResult",
    "AuditSettings",
    "CalibrationStatus",
    "CaseResult",
    "Cluster",
    "Escalation",
    "FAILURES",
    "GenerationSummary",
    "Label",
    "RetrievedChunk",
    "SCHEMA_VERSION",
    "Trace",
]

SCHEMA_VERSION = "ragtriage.audit/1"


if TYPE_CHECKING:
    import pandas as pd


class Label(StrEnum):
    """Exactly one per case. ``unscored``, ``unsure`` and ``unstable`` are never folded into
    pass or fail."""

    PASS = "pass"
    RETRIEVAL = "retrieval"  # answerable, no relevant chunk anywhere in the retrieved list
    RANKING = "ranking"  # retrieved, but not among the chunks passed to the generator
    GENERATION = "generation"  # right context, unfaithful/wrong answer; or hallucinated
    UNSCORED = "unscored"  # the judge could not score the answer
    UNSURE = "unsure"  # scored, but inside the calibrated band: the judge does not know
    # --samples: the judge's samples of the answer reached no majority (judge/samples.py);
    # like unscored, a case for a stronger judge or a person
    UNSTABLE = "unstable"


FAILURES = (Label.RETRIEVAL, Label.RANKING, Label.GENERATION)


class CaseResult(BaseModel):
    """One golden case: what was retrieved and answered, the judge's result, its label."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    case_id: str
    """The golden case's id (its query id in the qrels and the traces)."""
    query: str
    """The question, as the golden set gives it."""
    tags: list[str] = Field(default_factory=list)
    """The case's tags from the golden set (clusters group by them); empty if untagged."""
    answerable: bool
    """True when the golden set grades at least one chunk relevant (grade >= 1) for it."""
    expected: list[str] = Field(default_factory=list)
    """Ids of the chunks graded relevant (grade >= 1); empty for an unanswerable case."""
    retrieved_ids: list[str] = Field(default_factory=list)
    """Chunk ids the system retrieved, in rank order, a repeated id kept at its first place;
    empty when the case has no trace."""
    retrieved_scores: list[float | None] = Field(default_factory=list)
    """The retriever's score of each chunk in ``retrieved_ids``, same order; null where the
    trace gave none."""
    context_ids: list[str] = Field(default_factory=list)
    """Ids of the chunks passed to the generator; empty when the case has no trace."""
    first_relevant_rank: int | None = None
    """1-based rank in ``retrieved_ids`` of the first relevant chunk; null when none was
    retrieved (always for an unanswerable case) or the case has no trace."""
    relevant_in_context: bool = False
    """True when at least one ``expected`` chunk is among ``context_ids``."""
    answer: str = ""
    """The generated answer, as the trace gives it; empty when the case has no trace."""
    judge: JudgeResult | None = None
    """The judge's result on the answer; null when it was not judged (no trace, a failed
    generation, a context chunk without text)."""
    faithful: bool | None = None
    """The calibrated decision on a scored answer (true: faithful); null when the judge's
    outcome is not ``scored`` or the rule lacks a feature it reads."""
    label: Label
    """The triage label: exactly one per case."""
    reason: str
    """Why the case got its label, in one sentence."""
    cause: Cause | None = None
    """Why a ``generation`` failure failed: the primary of ``causes`` (triage/cause_types.py
    gives the order); null for every other label."""
    causes: list[CauseEvidence] = Field(default_factory=list)
    """Every cause found on a ``generation`` failure, primary first, each with its evidence:
    the answer sentence, the context chunk (golden or not), the span; empty for every other
    label."""
    decided_by: str | None = None
    """The judge whose decision the label rests on (the first judge, or the one of
    ``--escalate-to`` that judged it again because the one before was unsure); null when
    no judge decided it."""
    diagnostics: dict[str, float] | None = None
    """RAGChecker's diagnostics of this answer (``precision``, ``recall``, ``f1``,
    ``claim_recall``, ``context_precision``, ``context_utilization``,
    ``noise_sensitivity_in_relevant``, ``noise_sensitivity_in_irrelevant``,
    ``hallucination``, ``self_knowledge``, ``faithfulness``), each 0-1 (triage/diagnostics.py);
    null without a judged answer or a reference answer."""
    warnings: list[str] = Field(default_factory=list)
    """Warnings on this case that did not change its label (a forbidden chunk retrieved, an
    unanswerable query retrieved confidently, why an answer was not judged)."""


class Cluster(BaseModel):
    """Failures sharing a stage and a tag, with the next action the pattern suggests."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    label: Label
    """The failing stage: ``retrieval``, ``ranking`` or ``generation``; or ``unsure``:
    answers the judge could not decide (grade them, or escalate to a stronger judge)."""
    tag: str
    """The tag the cases share; ``(untagged)`` for failures without a tag."""
    cause: Cause | None = None
    """For a ``generation`` cluster: the primary cause its cases share (null when they have
    none); null for the other stages."""
    count: int
    """Number of cases in the cluster (a case with several tags counts in several)."""
    case_ids: list[str]
    """Ids of the cases in the cluster, in golden-set order."""
    action: str
    """The next action this kind of failure suggests, in one sentence."""


class Escalation(BaseModel):
    """One judge of ``--escalate-to``: the ``unsure`` answers it judged again."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    judge: str
    """The judge spec, as given."""
    fingerprint: JudgeFingerprint | None = None
    """The judge that ran; null when no answer was left to send it."""
    calibration: str | None = None
    """The calibration record that decided its answers."""
    sent: int = 0
    """Answers sent to it: those the judge before it left ``unsure`` (count)."""
    decided: int = 0
    """Of them, those it decided (count)."""
    unscored: int = 0
    """Of them, those it could not judge (it failed, e.g. an endpoint that refused every
    call) or left ``unstable`` (count); the rest stay ``unsure``."""
    usage: Usage = Field(default_factory=Usage)
    """Its model calls, tokens and cost."""


class GenerationSummary(BaseModel):
    """Stage 2 over the whole audit: judge outcomes and the faithful rate."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    n_judged: int
    """Number of answers sent to the judge (count)."""
    outcomes: dict[str, int]
    """Judge outcome (``scored``, ``no_claims``, ``abstained``, ``unscored``) -> number of
    answers."""
    naive_faithful_rate: Estimate | None = None
    """Fraction 0-1 of decided answers judged faithful, taken at face value, with a 95%
    Wilson interval; null when no answer was decided."""
    corrected_faithful_rate: Estimate | None = None
    """The faithful rate 0-1 bias-corrected by prediction-powered inference on the
    calibration's human grades, with a 95% interval; null when not computed (see
    ``corrected_note``)."""
    corrected_note: str = ""
    """Why there is no corrected rate; empty when there is one or no calibration record."""


class CalibrationStatus(BaseModel):
    """Which calibration made the audit's faithful decisions, and whether it still fits."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    source: str | None = None
    """Path of the calibration record used; null when uncalibrated."""
    fingerprint: JudgeFingerprint | None = None
    """The judge the record was calibrated on; null when uncalibrated."""
    stale: list[str] = Field(default_factory=list)
    """Fingerprint fields in which the audit's judge differs from the calibrated one; empty:
    the calibration applies."""
    threshold: float | None = None
    """The rule's own ``threshold``: a threshold rule's cut-off, a logistic rule's probability
    cut-off, 0.5 on the score when uncalibrated; null for the other rules."""
    rule: AnyRule | None = None
    """The decision rule applied (calibration/decision.py); null when uncalibrated."""
    kappa: Estimate | None = None
    """Cohen's kappa (-1 to 1) of the rule against the human grades, nested-CV where the
    rule was chosen so, with its 95% bootstrap interval, on the scope the rule was chosen on
    (``pooled`` with several datasets, else the one dataset); null when uncalibrated."""
    n_grades: int | None = None
    """Graded answers in that scope (count); null when uncalibrated."""
    answer_check: Estimate | None = None
    """Cohen's kappa (-1 to 1), with its 95% bootstrap interval, of the answer check
    (``ignored``/``incomplete``) against the graders' "answers the question" marks in the
    calibration record; null when the record has no such grades."""
    answer_check_n: int | None = None
    """Marked grades that kappa rests on (count); null as ``answer_check``."""
    few_grades: bool = False
    """True when the record rests on too few grades (calibration/record.py:few_grades):
    its kappa, rule and corrected rate are shown with the caveat beside them."""
    note: str = ""
    """What was applied and any caveat (uncalibrated, stale, few grades), in words."""
    # False when the rule reads no model signal and the judge's model was not called
    # (triage.calibrated.model_free_decider); the note says which rule and why
    model_consulted: bool = True
    """False when the rule reads only model-free signals and the judge's model was not
    called."""
    misfit: list[str] = Field(default_factory=list)
    """How the audit's answers differ from the answers the record was graded on, beyond
    what the grades cover (answer length, sentences, citations, paraphrase, context
    length), and what to do; empty when they fit or the record keeps no grade shape."""


class AuditSettings(BaseModel):
    """The settings an audit ran with: ``AuditConfig``'s fields (``flows/audit.py``) as JSON
    values, in its order. A path is recorded by its last part (the golden set's whole path
    is ``golden.source``), a judge spec as written, a model object by its name. A setting
    absent from an older ``results.json`` reads as its default; a key this version does
    not know is kept as it was read."""

    model_config = ConfigDict(use_attribute_docstrings=True, extra="allow")

    golden: str
    """The golden set (``--golden``), by its file or folder name."""
    traces: str | None = None
    """The trace file (``--traces``) by its file name; null when the system was run."""
    retriever: str | None = "bm25"
    """``bm25`` or ``module:function``; null with a trace file (not used)."""
    generator: str | None = EMBEDDED
    """``embedded``, ``extractive`` or ``module:function``; null with a trace file."""
    judge: str | None = EMBEDDED
    """The judge spec as given (``embedded``, ``lexical``, ``STRATEGY@MODEL``...), or a
    model object's name."""
    strategy: str | None = None
    """The strategy given beside a model object; null with a spec."""
    calibration: str | None = None
    """The calibration record given (``--calibration``) by its file name; null when the
    shipped records were searched (``calibration.source`` names the one used)."""
    context_k: int = DEFAULT_CONTEXT_K
    """Chunks passed to the generator: the top k of the retrieved list."""
    depth: int | None = 100
    """Chunks the embedded retriever returns per query; null with a trace file."""
    metrics: list[str] = Field(default_factory=lambda: list(DEFAULT_METRICS))
    """The retrieval metrics asked for (``--metrics``)."""
    k: list[int] = Field(default_factory=lambda: list(DEFAULT_KS))
    """The cutoffs of the metrics taking one (``--k``)."""
    concurrency: int = 8
    """Judge calls in flight at most."""
    cache: str | None = None
    """The response cache by its file name; null: the default cache."""
    threads: int | None = None
    """CPU threads of the embedded model; null: its default."""
    limit: int | None = None
    """Only the first N cases were audited; null: every case."""
    check_reference: bool = True
    """Claims judges also judged answers against the reference answer."""
    api_base: str | None = None
    """The litellm judge's endpoint; null: the provider's."""
    json_mode: str | None = None
    """The litellm judge's JSON mode as asked; null: found on the first call."""
    timeout: float | None = None
    """Seconds per judge call; null: the backend's default."""
    holdout: bool = False
    """The held-back slice was audited (``--holdout``)."""
    on_mismatch: str = "fail"
    """``fail``, ``warn`` or ``error``: what file mismatches did (``triage/mismatch.py``)."""
    samples: int = 1
    """Samples drawn per answer at most (``--samples``)."""
    temperature: float | None = None
    """The judge's sampling temperature; null: its own."""
    columns: str | dict[str, str] | None = None
    """Other column names mapped onto ours, ``ours=theirs,...`` (a mapping given in Python
    as it was given); null: none."""
    escalate_to: list[str] = Field(default_factory=list)
    """The ``--escalate-to`` judges in order, as written."""
    escalate_calibration: list[str] = Field(default_factory=list)
    """Their calibration records (``--escalate-calibration``) by file name, in order."""


class GoldenSource(BaseModel):
    """Which golden set an audit scored: what ``compare`` pairs and ``annotate`` re-reads."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    source: str
    """The golden set's path as given."""
    sha256: str
    """SHA-256 of the whole set (both slices), as the retrieval report and reveal log
    record it: a changed set is noticed."""
    cases: int
    """Cases audited (the slice's)."""
    slice: Literal["dev", "holdout", "all"]
    """``holdout`` with ``--holdout``; ``dev`` when the set has a held-out slice; else ``all``."""
    format: str | None = None
    """The golden set's file format (``ragtriage-jsonl``, ``beir``, ...); absent in results
    written before formats were detected."""


class TraceSource(BaseModel):
    """Where an audit's answers came from: a trace file, or the retriever and generator run."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    source: str
    """The trace file's path, or ``retriever=..., generator=...`` for a run of the system."""
    # a system run has no file: its record holds only ``source``, as it always did
    sha256: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """SHA-256 of the trace file; absent for a run of the system."""
    format: str | None = Field(default=None, exclude_if=lambda v: v is None)
    """The trace file's format (``ragtriage-jsonl``, ``ragas``, ...); absent for a run."""


class AuditResult(BaseModel):
    """What ``ragtriage audit`` writes to ``results.json``."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    schema_version: str = SCHEMA_VERSION
    """``ragtriage.audit/1``: what ``compare``, ``gate`` and ``load_result`` read it as."""
    created_at: str
    """When the audit finished: UTC, ISO 8601, to the second."""
    config: AuditSettings
    """The audit's settings, as JSON values (retriever, generator and depth null with a
    trace file)."""
    versions: dict[str, str]
    """Package -> version: python, ragtriage, numpy, pandas, pyarrow (``unknown`` if absent)."""
    golden: GoldenSource
    """The golden set scored."""
    traces: TraceSource
    """Where the answers came from."""
    judge_fingerprint: JudgeFingerprint
    """The judge that scored the answers."""
    judge_usage: Usage
    """Model calls, tokens and cost of the whole audit's judging."""
    judge_cache: dict[str, int] = Field(default_factory=dict)
    """Response-cache counts: ``hits``, ``misses``, ``writes``."""
    escalations: list[Escalation] = Field(default_factory=list)
    """The ``--escalate-to`` cascade in order: what each judge was sent and decided (its
    usage is not in ``judge_usage``)."""
    calibration: CalibrationStatus
    """The calibration behind the faithful decisions."""
    retrieval: RetrievalReport
    """Stage 1: retrieval metrics on the retrieved lists."""
    generation: GenerationSummary
    """Stage 2: judge outcomes and faithful rates."""
    diagnostics: DiagnosticsSummary | None = None
    """RAGChecker's run-level diagnostics, per run and per tag with 95% intervals, and where
    their entailment labels came from; null when no case has a judged answer and a reference
    answer."""
    counts: dict[str, int]
    """Label -> number of cases, every label present (0 if none)."""
    clusters: list[Cluster]
    """Failures grouped by stage and tag, largest first."""
    cases: list[CaseResult]
    """One row per audited golden case, in golden-set order."""
    warnings: list[str] = Field(default_factory=list)
    """Everything read, skipped or set aside that the figures depend on, in words."""
    mismatches: dict[str, list[str]] = Field(default_factory=dict)
    """Mismatch kind (``golden_without_trace``, ``traced_not_in_golden``,
    ``trace_ids_not_in_corpus``, ``expected_not_in_corpus``, ``context_ids_without_text``)
    -> the ids concerned; only kinds with ids are listed."""
    meaningless: dict[str, str] = Field(default_factory=dict)
    """Mismatch kind -> one sentence, for the mismatches past the thresholds of
    ``triage/mismatch.py`` that leave the figures meaningless (``trace_ids_not_in_corpus``:
    most retrieved ids unknown to the corpus; ``golden_without_trace``: fewer than half of
    the golden cases traced; ``expected_not_in_corpus``: an expected id the corpus lacks);
    every report leads with them, and the gate fails on them unless the audit ran with
    ``--on-mismatch warn``."""
    assumptions: dict[str, str] = Field(default_factory=dict)
    """What the audit assumed to read the traces, kind -> one sentence with counts:
    ``context_top_k`` (traces without ``context_ids`` took the top k as context),
    ``scores_rising`` (lists ranked as given though their scores rise down the list),
    ``ids_by_text`` (passages without a corpus id given the id of the chunk with their
    text); stated once in every report's headline area."""
    timings: dict[str, float] = Field(default_factory=dict)
    """Wall time per stage in seconds, to 0.01: ``system_s``, ``retrieval_s``, ``judge_s``,
    ``total_s``."""

    def to_pandas(self) -> pd.DataFrame:
        """One row per case: label, reason, ranks, judge outcome and score, tags.

        The same frame comes back from a written ``results.json`` (load it with
        :func:`ragtriage.results.load.load_audit`), so notebooks can start from either.
        """
        import pandas as pd

        return pd.DataFrame([_case_row(c) for c in self.cases], columns=list(CASE_COLUMNS))


CASE_COLUMNS = (
    "case_id",
    "query",
    "label",
    "reason",
    "answerable",
    "first_relevant_rank",
    "relevant_in_context",
    "judge_outcome",
    "judge_score",
    "faithful",
    "cause",
    "tags",
    "expected",
    "context_ids",
    "answer",
)


def _case_row(case: CaseResult) -> dict[str, Any]:
    judge = case.judge
    return {
        "case_id": case.case_id,
        "query": case.query,
        "label": str(case.label),
        "reason": case.reason,
        "answerable": case.answerable,
        "first_relevant_rank": case.first_relevant_rank,
        "relevant_in_context": case.relevant_in_context,
        "judge_outcome": None if judge is None else str(judge.outcome),
        "judge_score": None if judge is None else judge.score,
        "faithful": case.faithful,
        "cause": None if case.cause is None else str(case.cause),
        "tags": list(case.tags),
        "expected": list(case.expected),
        "context_ids": list(case.context_ids),
        "answer": case.answer,
    }
