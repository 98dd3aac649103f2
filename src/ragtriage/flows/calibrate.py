"""``ragtriage calibrate`` without the command line: grades in, records and plots out."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Annotated

from ragtriage.atomic import file_sha256
from ragtriage.calibration.band import DEFAULT_DELTA, DEFAULT_MIN_AGREEMENT
from ragtriage.calibration.fit import fit_record
from ragtriage.calibration.grades import GradedItem, grade_files, load_grades
from ragtriage.calibration.judges import RECORDED_DIR, read_judged, run_judge
from ragtriage.calibration.record import CalibrationRecord, is_stale
from ragtriage.data.formats.columns import ColumnMap, Columns
from ragtriage.errors import InputError
from ragtriage.flows.config import (
    COLUMNS,
    MAX_RESAMPLES,
    SEED,
    TEMPERATURE,
    Setting,
    paths_from_text,
)
from ragtriage.judge.judge import Judge, JudgeOptions
from ragtriage.judge.spec import EMBEDDED, JudgeSpec
from ragtriage.judge.types import JudgeFingerprint, JudgeResult
from ragtriage.notices import Notice, notice
from ragtriage.results.calibrate import JudgeCalibration, plan_grades
from ragtriage.stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from ragtriage.triage.calibrated import find_decider
from ragtriage.triage.causes import answers_reference

__all__ = [
    "CalibrateConfig",
    "CardWriter",
    "PlotWriter",
    "digest_files",
    "recorded_dir",
    "run",
    "calibrate",
    "slug",
    "stale_warnings",
]

PlotWriter = Callable[[CalibrationRecord, Path], list[Path]]
# a judge's calibration and the graded items -> the card files written in the folder
CardWriter = Callable[[JudgeCalibration, list[GradedItem], Path], list[Path]]


def slug(name: str) -> str:
    """A directory name for a judge; never ``.`` or ``..``, which would leave ``--out``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_.") or "judge"


def recorded_dir(grades: Path) -> Path:
    """Where recorded judge results for these grades live: ``<grades dir>/_judged``."""
    return (grades if grades.is_dir() else grades.parent) / RECORDED_DIR


def digest_files(path: Path) -> dict[str, str]:
    return {str(p): file_sha256(p) for p in grade_files(path)}


Source = tuple[str, JudgeSpec | Path]  # a judge's name, and the spec to run or results read


def _sources(judges: list[str | JudgeSpec], judged: list[Path]) -> list[Source]:
    specs = [j if isinstance(j, JudgeSpec) else JudgeSpec.parse(j) for j in judges]
    sources: list[Source] = [(s.source or str(s), s) for s in specs]
    sources += [(p.stem, p) for p in judged]
    return sources or [(EMBEDDED, JudgeSpec.parse(EMBEDDED))]  # the default judge


@dataclass
class CalibrateConfig:
    grades: Annotated[Path, Setting("Grade file or directory.", argument=True)] = Path(
        "human_grades"
    )
    judges: Annotated[
        list[JudgeSpec],
        Setting(
            "Judge spec: 'embedded' (default), 'lexical', a litellm model id or "
            "STRATEGY@MODEL (repeatable: judges are ranked).",
            names=("--judge", "-j"),
            metavar="SPEC",
        ),
    ] = field(default_factory=list)
    judged: Annotated[
        list[Path],
        Setting(
            "Recorded judge results (JSONL of JudgeResult, or an audit's results.json whose "
            "answers you graded), repeatable.",
            metavar="FILE",
        ),
    ] = field(default_factory=list)
    verdicts: Annotated[
        list[Path],
        Setting(
            "Another evaluator's verdicts, each metric a judge: a ragas evaluate() result "
            "(to_pandas saved), a DeepEval test run JSON, a Phoenix evaluations export, an "
            "MLflow genai.evaluate result table; joined to the grades by id or by question "
            "and answer text (repeatable).",
            metavar="FILE",
        ),
    ] = field(default_factory=list)
    card: Annotated[
        bool,
        Setting("Write a validity card per judge: <out>/<judge>/card.md and card.html."),
    ] = False
    out: Annotated[
        Path, Setting("Output folder: <judge>/calibration.json and plots.", names=("--out", "-o"))
    ] = Path("calibration")
    folds: Annotated[int, Setting("Cross-validation folds.", min=2, max=20)] = 5
    seed: Annotated[int, SEED] = DEFAULT_SEED
    resamples: Annotated[int, Setting("Bootstrap resamples.", min=100, max=MAX_RESAMPLES)] = (
        DEFAULT_RESAMPLES
    )
    audit: Annotated[
        Path | None,
        Setting(
            "An audit's results.json (or JSONL of its judge results): print the "
            "PPI-corrected faithful rate of its answers."
        ),
    ] = None
    ppi_fraction: Annotated[
        float,
        Setting(
            "Share of graded items kept labelled in the PPI check.",
            names=("--ppi-labelled",),
            min=0.1,
            max=0.9,
            finite=True,
        ),
    ] = 0.5
    min_agreement: Annotated[
        float,
        Setting(
            "Decided answers must agree with the human grades at least this often; the "
            "rest are left unsure (the band, fitted inside the nested cross-validation).",
            min=0.5,
            max=0.99,
            finite=True,
        ),
    ] = DEFAULT_MIN_AGREEMENT
    delta: Annotated[
        float,
        Setting(
            "The band's guarantee holds with probability at least 1 - delta.",
            min=0.01,
            max=0.5,
            finite=True,
        ),
    ] = DEFAULT_DELTA
    band_fallback: Annotated[
        str,
        Setting(
            "When the band decides less than a quarter of the answers: 'rule' keeps the "
            "rule's verdicts, marked undecided by the band (default); 'unsure' leaves them "
            "unsure.",
            choices=("rule", "unsure"),
        ),
    ] = "rule"
    plan: Annotated[
        float | None,
        Setting(
            "Say how many more grades would bring the corrected rate's 95 % interval to "
            "this half-width (e.g. 0.05), from the grades so far (and --audit's answers).",
            min=0.001,
            max=0.5,
            finite=True,
            metavar="HALF_WIDTH",
        ),
    ] = None
    columns: Annotated[ColumnMap | None, COLUMNS] = None
    samples: Annotated[
        int,
        Setting(
            "Judge each graded answer K times (all K drawn): self-agreement beside the "
            "agreement with people, and each answer's flip rate.",
            min=1,
            max=100,
        ),
    ] = 1
    temperature: Annotated[float | None, TEMPERATURE] = None

    def __post_init__(self) -> None:
        paths_from_text(self)  # grades="my_grades/" from Python


def run(
    config: CalibrateConfig, plots: PlotWriter | None = None, cards: CardWriter | None = None
) -> list[JudgeCalibration]:
    """:func:`calibrate` of a config; ``plots`` draws each record's PNGs, ``cards`` writes
    each judge's validity card (with ``--card``: ``render.card.write_card``)."""
    if not config.grades.exists():
        raise InputError("no such grade file or directory", path=config.grades)
    # every other setting is a keyword of calibrate() under the same name
    settings = {f.name: getattr(config, f.name) for f in fields(config)}
    del settings["grades"], settings["card"]
    return calibrate(config.grades, cards=cards if config.card else None, plots=plots, **settings)


def calibrate(
    grades: Path,
    *,
    judges: Sequence[str | JudgeSpec] = (),
    judged: Sequence[Path] = (),
    verdicts: Sequence[Path] = (),
    cards: CardWriter | None = None,
    out: Path | None = None,
    folds: int = 5,
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    plots: PlotWriter | None = None,
    audit: Path | None = None,
    ppi_fraction: float = 0.5,
    items: list[GradedItem] | None = None,
    columns: Columns = None,
    min_agreement: float = DEFAULT_MIN_AGREEMENT,
    delta: float = DEFAULT_DELTA,
    band_fallback: str = "rule",
    plan: float | None = None,
    samples: int = 1,
    temperature: float | None = None,
) -> list[JudgeCalibration]:
    """Calibrate every judge (run or recorded) on the grades under ``grades``; write
    ``<out>/<judge>/calibration.json`` when ``out`` is given, and its PNGs with ``plots``
    (e.g. :func:`ragtriage.render.calibration_plots.write_plots`); ``columns`` maps other
    column names of the grade files onto ours; ``verdicts``: other evaluators' verdict
    files, each metric a judge (``calibration.foreign``); ``card``: a validity card per
    judge beside its record (``render.card``, with ``out``)."""
    from ragtriage.calibration.foreign import ForeignJudge, read_verdicts

    # long on purpose: one loop over the judges (split into steps it was longer)
    items = items if items is not None else load_grades(grades, columns)
    digest = digest_files(grades)
    audit_results, audit_verdicts = _audit_results(audit)
    runs = []
    judge_items = None
    sources: list[tuple[str, JudgeSpec | Path | ForeignJudge]] = []
    sources += _sources(list(judges), list(judged)) if judges or judged or not verdicts else []
    sources += [(j.name, j) for path in verdicts for j in read_verdicts(path, items)]
    for name, given in sources:
        path = given if isinstance(given, Path) else None
        foreign = given if isinstance(given, ForeignJudge) else None
        if foreign is not None:
            results, seconds, source = foreign.results, None, foreign.source
        elif isinstance(given, JudgeSpec):
            if judge_items is None:
                judge_items = [i.judge_item() for i in items]
            judge = Judge.from_spec(given, JudgeOptions(samples=samples, temperature=temperature))
            results, seconds, source = run_judge(
                judge, judge_items, recorded_dir(grades), decide_for=_conversations_rule
            )
        else:
            assert isinstance(given, Path)
            results, seconds, source = read_judged(given), None, f"recorded {given}"
        record = fit_record(
            items,
            results,
            judge_name=_name(name, results),
            grades_digest=digest,
            seed=seed,
            folds=folds,
            resamples=resamples,
            seconds=seconds,
            ppi_fraction=ppi_fraction,
            min_agreement=min_agreement,
            delta=delta,
            answer_checker=answers_reference,  # the audit's own check, not a copy of it
            band_fallback="unsure" if band_fallback == "unsure" else "rule",
        )
        run = JudgeCalibration(
            name=record.judge_name, record=record, record_path=Path(), source=source
        )
        if path is not None:
            record.warnings += stale_warnings(record)
        if foreign is not None:
            run.notes = foreign.notes
        if audit_verdicts is not None:
            assert audit is not None
            audit_results = _same_metric(record, audit_verdicts, audit)
        if out is not None:
            target = out / slug(record.judge_name)
            run.record_path = record.save(target / "calibration.json")
            if plots is not None:
                run.plots = plots(record, target)
            if cards is not None:
                run.card = cards(run, items, target)
        if audit_results is not None:
            run.audit_ppi = record.ppi(audit_results)
        elif foreign is not None and foreign.rest and audit is None:
            run.audit_ppi = record.ppi(foreign.rest)  # the verdicts no grade names
        if plan is not None:
            run.plan = plan_grades(record, plan, audit_results)
        runs.append(run)
    return runs


def _audit_results(audit: Path | None) -> tuple[list[JudgeResult] | None, list | None]:
    """``--audit``: our judge results (an audit's results.json, JSONL), else another
    evaluator's verdicts (every metric's, picked per judge by :func:`_same_metric`)."""
    if audit is None:
        return None, None
    try:
        return read_judged(audit), None
    except InputError as ours:
        from ragtriage.calibration.foreign import read_verdicts

        try:
            return None, read_verdicts(audit)
        except InputError:
            raise ours from None


def _same_metric(record: CalibrationRecord, judges: list, audit: Path) -> list[JudgeResult] | None:
    """The verdicts in ``--audit`` of the record's tool and metric; a differing version,
    model or threshold is named in a STALE warning (the rule still decides them)."""
    from ragtriage.calibration.foreign import stale

    same = [j for j in judges if j.fingerprint.judge == record.fingerprint.judge]
    if not same:  # another metric's verdicts, or our own judge beside them
        text = (
            f"{audit} holds no {record.fingerprint.judge} verdicts: no corrected rate of it "
            "for this judge"
        )
        record.warnings.append(notice("reader", text))
        return None
    if differ := stale(record, same[0]):
        text = (
            f"STALE: the verdicts in {audit} are from a judge that differs from the "
            f"calibrated one in {', '.join(differ)}; the calibration does not apply to "
            "them (recalibrate on grades judged by the new one)"
        )
        record.warnings.append(notice("stale_calibration", text, severity="lead"))
    return same[0].rest


def _conversations_rule(fingerprint: JudgeFingerprint) -> Callable[[JudgeResult], bool | None]:
    """The rule that gates a graded turn's second pass with its history: the one
    ``ragtriage conversations`` applies without ``--calibration`` (the shipped record of
    this judge, else score >= 0.5). The rule being fitted cannot gate its own inputs."""
    return find_decider(None, fingerprint).decide


def stale_warnings(record: CalibrationRecord) -> list[Notice]:
    """For recorded results: does today's judge of the same strategy and model still have
    their fingerprint? (Names and hashes only: no model is loaded or called.)"""
    fp = record.fingerprint
    try:
        from ragtriage.judge import api

        model = None if fp.model == "none" else fp.model
        current = api.fingerprint(model=model, strategy=fp.judge)
    except Exception:  # an unknown judge cannot be compared, not an error
        return []
    stale = is_stale(record, current)
    if not stale:
        return []
    text = (
        f"STALE: these recorded results are from a judge that differs from today's "
        f"{fp.judge}@{fp.model} in {', '.join(stale)}; the calibration applies to the "
        "recorded judge only (audits with today's judge will be flagged stale)"
    )
    return [notice("stale_calibration", text, severity="lead")]


def _name(spec: str, results: list[JudgeResult]) -> str:
    fp = results[0].fingerprint if results else None
    if spec == "embedded" and fp is not None:
        return f"{fp.judge}@{fp.model}"
    return spec
