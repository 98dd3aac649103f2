"""The result of a run (``ragtriage audit``, ``ragtriage conversations``): one
:class:`RunHeader` of what was run on what and what it found overall, then the rows.

An audit's rows are its cases (one per golden case); a conversations run's rows are its
turns (the same case rows, judged turn by turn with history) and their roll-up per
conversation. ``compare``, ``gate`` and ``load_result`` read both by the header
(``results/load.py``: ``MODELS``), and every report draws the header the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ragtriage.data.models import DEFAULT_CONTEXT_K
from ragtriage.judge.spec import EMBEDDED
from ragtriage.judge.types import JudgeFingerprint, Usage
from ragtriage.notices import Notice, as_notice
from ragtriage.retrieval.defaults import DEFAULT_KS, DEFAULT_METRICS
from ragtriage.retrieval.models import RetrievalReport
from ragtriage.triage.conversations import ConversationSummary, RetrievalSlice, TurnResult
from ragtriage.triage.diagnostics import DiagnosticsSummary
from ragtriage.triage.models import (
    AnswerMatrix,
    CalibrationStatus,
    CaseResult,
    Cluster,
    Escalation,
    GenerationSummary,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "AUDIT_SCHEMA",
    "CASE_COLUMNS",
    "CONVERSATIONS_SCHEMA",
    "AuditResult",
    "AuditSettings",
    "ConversationsResult",
    "ConversationsSettings",
    "GoldenSource",
    "RunHeader",
    "TraceSource",
]

# /2: warnings are notices (code, severity, text, counts) and the header's fields come
# first; a /1 file is read by the same model (its warnings' texts given their codes)
AUDIT_SCHEMA = "ragtriage.audit/2"
CONVERSATIONS_SCHEMA = "ragtriage.conversations/2"


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
    live: bool | None = False
    """``--live``: the embedded generator wrote every answer now, none read from the
    answers it wrote earlier that ship with the golden set; null with a trace file."""
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


class ConversationsSettings(BaseModel):
    """The settings a ``ragtriage conversations`` run had: ``ConversationsConfig``'s fields
    (``flows/conversations.py``) as JSON values, in its order (paths as given). A setting
    absent from an older file reads as its default; an unknown key is kept."""

    model_config = ConfigDict(use_attribute_docstrings=True, extra="allow")

    golden: str
    """The conversational golden set (``--golden``)."""
    traces: str
    """The conversation traces (``--traces``)."""
    judge: str | None = EMBEDDED
    """The judge spec as given, or a model object's name."""
    calibration: str | None = None
    """The calibration record given; null when the shipped records were searched."""
    context_k: int = DEFAULT_CONTEXT_K
    """Chunks passed to the generator when a trace does not list them."""
    probe_k: int = 10
    """Depth of the rewrite test."""
    metrics: list[str] = Field(default_factory=lambda: list(DEFAULT_METRICS))
    """The retrieval metrics asked for."""
    k: list[int] = Field(default_factory=lambda: list(DEFAULT_KS))
    """The cutoffs of the metrics taking one."""
    concurrency: int = 8
    """Judge calls in flight at most."""
    cache: str | None = None
    """The response cache; null: the default cache."""
    threads: int | None = None
    """CPU threads of the embedded model; null: its default."""
    api_base: str | None = None
    """The litellm judge's endpoint; null: the provider's."""
    json_mode: str | None = None
    """The litellm judge's JSON mode as asked; null: found on the first call."""
    timeout: float | None = None
    """Seconds per judge call; null: the backend's default."""
    holdout: bool = False
    """The held-back conversations were audited."""
    on_mismatch: str = "fail"
    """``fail``, ``warn`` or ``error``: what file mismatches did (files written before
    conversations took the audit's policy say ``warn`` or ``error``; every file names it)."""


class GoldenSource(BaseModel):
    """Which golden set a run scored: what ``compare`` pairs and ``annotate`` re-reads."""

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
    conversations: int | None = Field(default=None, exclude_if=lambda v: v is None)
    """Conversations scored (a conversations run: ``cases`` counts their turns); absent
    for an audit."""


class RecordedAnswers(BaseModel):
    """Answers the embedded model wrote earlier for this golden set, shipped beside it with
    their provenance, that the audit read instead of having the model write them now."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    file: str
    """The recording (``embedded_answers.jsonl`` beside the golden set)."""
    answers: int
    """How many of the audit's answers came from it."""
    model: str
    """The model that wrote them."""
    weights_sha256: str
    """SHA-256 of the model's weights file."""
    prompt: str
    """The generation prompt's file."""
    prompt_sha256: str
    """SHA-256 of that prompt file."""
    written: str
    """When they were written (UTC date)."""
    command: str
    """The command that writes them again, live, with the embedded model."""


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
    recorded: RecordedAnswers | None = Field(default=None, exclude_if=lambda v: v is None)
    """Answers read from the embedded model's shipped recording, not written now."""


class RunHeader(BaseModel):
    """What every run records before its rows: settings, sources, the judge and its
    calibration, both stages' summaries, counts by label, and the notices."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    schema_version: str
    """``ragtriage.audit/2`` or ``ragtriage.conversations/2``: what ``compare``, ``gate``
    and ``load_result`` read it as."""
    created_at: str
    """When the run finished: UTC, ISO 8601, to the second."""
    config: AuditSettings | ConversationsSettings
    """The run's settings, as JSON values (an audit's retriever, generator and depth null
    with a trace file)."""
    versions: dict[str, str] = Field(default_factory=dict)
    """Package -> version: python, ragtriage, numpy, pandas, pyarrow (``unknown`` if absent)."""
    golden: GoldenSource
    """The golden set scored."""
    traces: TraceSource
    """Where the answers came from."""
    judge_fingerprint: JudgeFingerprint
    """The judge that scored the answers."""
    judge_usage: Usage
    """Model calls, tokens and cost of the run's judging."""
    judge_cache: dict[str, int] = Field(default_factory=dict)
    """Response-cache counts: ``hits``, ``misses``, ``writes``."""
    escalations: list[Escalation] = Field(default_factory=list)
    """The ``--escalate-to`` cascade in order: what each judge was sent and decided (its
    usage is not in ``judge_usage``)."""
    calibration: CalibrationStatus
    """The calibration behind the faithful decisions."""
    retrieval: RetrievalReport
    """Stage 1: retrieval metrics on the retrieved lists (a conversation's turns flattened,
    ids ``conversation#turn``: trec_eval's figures)."""
    generation: GenerationSummary
    """Stage 2: judge outcomes and faithful rates."""
    counts: dict[str, int]
    """Label -> number of rows (cases, or turns), every label present (0 if none)."""
    answer_matrix: AnswerMatrix | None = None
    """Answerable x (answered, abstained) over the rows (a conversation's by turn label),
    beside the judge's undecided answers (triage/answer_matrix.py); null in results
    written before it."""
    warnings: list[Notice] = Field(default_factory=list)
    """Everything read, skipped or set aside that the figures depend on: notices (``code``
    decides, ``text`` is read; docs/reference/notices.md lists the codes)."""
    mismatches: dict[str, list[str]] = Field(default_factory=dict)
    """Mismatch kind (``golden_without_trace``, ``traced_not_in_golden``,
    ``trace_ids_not_in_corpus``, ``expected_not_in_corpus``, ``context_ids_without_text``)
    -> the ids concerned; only kinds with ids are listed."""
    meaningless: dict[str, str] = Field(default_factory=dict)
    """Mismatch kind -> one sentence, for the mismatches past the thresholds of
    ``triage/mismatch.py`` that leave the figures meaningless (``trace_ids_not_in_corpus``:
    most retrieved ids unknown to the corpus; ``golden_without_trace``: fewer than half of
    the golden cases traced; ``expected_not_in_corpus``: an expected id the corpus lacks);
    every report leads with them, and the gate fails on them unless the run allowed
    mismatches (``--on-mismatch warn``)."""
    assumptions: dict[str, str] = Field(default_factory=dict)
    """What the run assumed to read the traces, kind -> one sentence with counts:
    ``context_top_k`` (traces without ``context_ids`` took the top k as context),
    ``scores_rising`` (lists ranked as given though their scores rise down the list),
    ``ids_by_text`` (passages without a corpus id given the id of the chunk with their
    text); stated once in every report's headline area."""
    timings: dict[str, float] = Field(default_factory=dict)
    """Wall time per stage in seconds, to 0.01: ``system_s``, ``retrieval_s``, ``judge_s``,
    ``total_s``."""

    @field_validator("warnings", mode="before")
    @classmethod
    def _notices(cls, value: Any) -> Any:
        """A /1 file's warnings were texts: each is read with the code its prefix names."""
        if not isinstance(value, list):
            return value
        return [as_notice(v) if isinstance(v, str) else v for v in value]

    @property
    def rows(self) -> list[CaseResult]:
        """The case rows the header's counts and rates are over (a run's cases or turns)."""
        raise NotImplementedError

    @property
    def mismatch_allowed(self) -> bool:
        """The run listed its mismatches and went on (``--on-mismatch warn``): not gated."""
        return self.config.on_mismatch == "warn"


class AuditResult(RunHeader):
    """What ``ragtriage audit`` writes to ``results.json``: the header, then one row per case."""

    schema_version: str = AUDIT_SCHEMA
    """``ragtriage.audit/2``: what ``compare``, ``gate`` and ``load_result`` read it as."""
    config: AuditSettings
    """The audit's settings, as JSON values (retriever, generator and depth null with a
    trace file)."""
    diagnostics: DiagnosticsSummary | None = None
    """RAGChecker's run-level diagnostics, per run and per tag with 95% intervals, and where
    their entailment labels came from; null when no case has a judged answer and a reference
    answer."""
    clusters: list[Cluster]
    """Failures grouped by stage and tag, largest first."""
    cases: list[CaseResult]
    """One row per audited golden case, in golden-set order."""

    @property
    def rows(self) -> list[CaseResult]:
        return self.cases

    def to_pandas(self) -> pd.DataFrame:
        """One row per case: label, reason, ranks, judge outcome and score, tags.

        The same frame comes back from a written ``results.json`` (load it with
        :func:`ragtriage.results.load.load_audit`), so notebooks can start from either.
        """
        import pandas as pd

        return pd.DataFrame([_case_row(c) for c in self.cases], columns=list(CASE_COLUMNS))


class ConversationsResult(RunHeader):
    """What ``ragtriage conversations`` writes (``results.json``): the header (its rows are
    the turns, counted by turn label), the turns, and their roll-up per conversation."""

    schema_version: str = CONVERSATIONS_SCHEMA
    """``ragtriage.conversations/2``: what ``compare``, ``gate`` and ``load_result`` read it
    as."""
    config: ConversationsSettings
    """The settings, as JSON values."""
    slices: list[RetrievalSlice]
    """Stage 1's metrics by turn index, standalone or not, answerable or not."""
    conversations: list[ConversationSummary]
    """One per golden conversation, in file order."""
    turns: list[TurnResult]
    """Every golden turn, conversation by conversation, in turn order."""

    @model_validator(mode="before")
    @classmethod
    def _v1(cls, data: Any) -> Any:
        """A /1 file counted its golden turns as ``golden.turns``."""
        golden = data.get("golden") if isinstance(data, dict) else None
        if isinstance(golden, dict) and "turns" in golden and "cases" not in golden:
            moved = {k: v for k, v in golden.items() if k != "turns"}
            return {**data, "golden": {**moved, "cases": golden["turns"]}}
        return data

    @property
    def rows(self) -> list[CaseResult]:
        return [turn.case for turn in self.turns]


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
    """A case's columns: its own fields (lists copied), the judge's outcome and score, the
    label and cause as text."""
    row = {name: getattr(case, name, None) for name in CASE_COLUMNS}
    judge = case.judge
    return row | {
        "label": str(case.label),
        "judge_outcome": None if judge is None else str(judge.outcome),
        "judge_score": None if judge is None else judge.score,
        "cause": None if case.cause is None else str(case.cause),
        **{name: list(getattr(case, name)) for name in ("tags", "expected", "context_ids")},
    }
