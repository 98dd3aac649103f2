"""Triage's rows: traces in, one labelled row per golden case out (:class:`CaseResult`),
with the summaries a run's header holds (``results/run.py``: ``RunHeader``)."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from ragtriage.calibration.decision import AnyRule
from ragtriage.data.models import RetrievedChunk, Trace  # Trace: data/formats
from ragtriage.judge.types import JudgeFingerprint, JudgeResult, Usage
from ragtriage.notices import Notice, Severity, notice
from ragtriage.stats import Estimate
from ragtriage.triage.cause_types import Cause, CauseEvidence

__all__ = [
    "AnswerMatrix",
    "CalibrationStatus",
    "CaseResult",
    "Cluster",
    "Escalation",
    "FAILURES",
    "GenerationSummary",
    "Label",
    "RetrievedChunk",
    "Trace",
]


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
    notes: list[CauseEvidence] = Field(default_factory=list)
    """On a ``pass``: reference facts the answer does not state that the question does not
    ask for (``incomplete`` rows with ``backed_by`` null: an aside of a long reference
    answer, triage/causes.py), each named in ``span``; empty otherwise."""
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
    unanswerable query retrieved confidently, why an answer was not judged, a verdict the
    calibration's inert band does not back: ``triage.cases.UNBACKED``)."""


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


class AnswerMatrix(BaseModel):
    """Answerable x (answered, abstained), over the cases with a judged answer
    (triage/answer_matrix.py): correct and false abstentions, answers to unanswerable
    queries split into supported and hallucinated, beside the judge's undecided ones."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    answered: int = 0
    """Answerable, answered (right or wrong: the labels say which) (count)."""
    false_abstentions: int = 0
    """Answerable, abstained: the answer was findable, the system declined (count)."""
    correct_abstentions: int = 0
    """Unanswerable, abstained (count)."""
    supported_answers: int = 0
    """Unanswerable, answered only with claims its context supports (count)."""
    hallucinated: int = 0
    """Unanswerable, answered with claims its context does not support (count)."""
    undecided: int = 0
    """Answers the judge could not decide (``unsure``, ``unscored``, ``unstable``): in no
    cell (count)."""
    untraced: int = 0
    """Cases without a judged answer (no trace, a failed generation): in no cell (count)."""

    @property
    def unanswerable(self) -> int:
        return self.correct_abstentions + self.supported_answers + self.hallucinated

    @property
    def answerable(self) -> int:
        return self.answered + self.false_abstentions


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
    # (triage.calibrated.CalibrationRecords.model_free); the note says which rule and why
    model_consulted: bool = True
    """False when the judge has a model and was run without it, because its rule reads
    only model-free signals; true otherwise (a judge without a model, such as ``lexical``,
    skipped nothing)."""
    misfit: list[str] = Field(default_factory=list)
    """How the audit's answers differ from the answers the record was graded on, beyond
    what the grades cover (answer length, sentences, citations, paraphrase, context
    length), and what to do; empty when they fit or the record keeps no grade shape."""

    def notices(self) -> list[Notice]:
        """What the status changes in a headline, as notices decided from its fields (a
        report styles the calibration line by these codes, not by words in ``note``)."""
        out = []
        if self.source is None:
            out.append(notice("uncalibrated", self.note, severity=Severity.LEAD))
        if self.stale:
            out.append(notice("stale_calibration", self.note, severity=Severity.LEAD))
        if self.few_grades:
            out.append(notice("few_grades", self.note, n=self.n_grades or 0))
        return out
