"""``ragtriage retrieval``: stage 1 on its own, as a config and one ``run``.

TREC qrels are read beside the run on a thread; every ``--repeat`` draw is scored by one
:class:`RetrievalEvaluator`, and a hold-out reveal is logged.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from ragtriage.data.check import with_corpus
from ragtriage.data.formats.columns import ColumnMap
from ragtriage.data.golden import load_golden
from ragtriage.data.holdout import evaluated_slice
from ragtriage.data.models import GoldenSet
from ragtriage.data.runs import load_run
from ragtriage.data.tables import Qrels, Run
from ragtriage.data.trec import read_trec_qrels
from ragtriage.errors import InputError
from ragtriage.flows.config import (
    COLUMNS,
    DEFAULT_DEPTH,
    DEPTH,
    MAX_LEVEL,
    MAX_RANK,
    MAX_REPEAT,
    METRICS,
    K,
    Setting,
    paths_from_text,
)
from ragtriage.retrieval.evaluate import DEFAULT_KS, DEFAULT_METRICS, RetrievalEvaluator
from ragtriage.retrieval.metrics import Measure, expand
from ragtriage.retrieval.models import RetrievalReport
from ragtriage.retrieval.repeat import repeated
from ragtriage.retrieval.retrievers import run_retriever
from ragtriage.retrieval.split import log_reveal

__all__ = ["Reading", "RetrievalConfig", "check", "read_together", "run"]

# a context manager around the reading of a file (the command line's progress bar)
Reading = Callable[[], AbstractContextManager[Any]]


@dataclass
class RetrievalConfig:
    golden: Annotated[Path | None, Setting("Golden set file or directory.")] = None
    qrels: Annotated[Path | None, Setting("TREC qrels instead of a golden set.")] = None
    run: Annotated[
        Path | None,
        Setting(
            "Run file: TREC (6 columns), ours as JSONL/CSV/Parquet, a ragas dataset or "
            "an OpenInference span export (detected by content; queries matched by text)."
        ),
    ] = None
    retriever: Annotated[
        str | None, Setting("'bm25' (embedded) or module:function, instead of --run.")
    ] = None
    metrics: Annotated[list[str], METRICS] = field(default_factory=lambda: list(DEFAULT_METRICS))
    k: Annotated[list[int], K] = field(default_factory=lambda: list(DEFAULT_KS))
    depth: Annotated[int, DEPTH] = DEFAULT_DEPTH
    relevance_level: Annotated[int, Setting("Relevant = label >= this.", min=0, max=MAX_LEVEL)] = 1
    float32: Annotated[
        bool,
        Setting(
            "Compare scores at float32 (pytrec_eval, ir_measures, trec_eval <= 9.0.7), "
            "not as doubles (trec_eval 9.0.8 and 10.0).",
            names=("--float32/--float64",),
        ),
    ] = False
    duplicates: Annotated[
        str, Setting("'max' (keep best, count) or 'error'.", choices=("max", "error"))
    ] = "max"
    skip_missing: Annotated[
        bool, Setting("Drop golden queries absent from the run (trec_eval without -c).")
    ] = False
    nothing_relevant: Annotated[
        str | None,
        Setting(
            "Queries judged with nothing relevant: 'zero' scores them 0 in the means "
            "(trec_eval; default with --qrels), 'unanswerable' reports them on their own "
            "(default with --golden).",
            choices=("zero", "unanswerable"),
        ),
    ] = None
    holdout: Annotated[
        bool, Setting("Score the held-out slice (logged beside the golden set).")
    ] = False
    corpus: Annotated[
        Path | None, Setting("corpus.jsonl (chunk tenants, hash, BM25) if not beside.")
    ] = None
    leak_k: Annotated[
        int | None,
        Setting("Depth of the access-control check (default: largest k).", min=1, max=MAX_RANK),
    ] = None
    reference_run: Annotated[
        Path | None, Setting("Exact-search run: report overlap@k of --run against it.")
    ] = None
    repeat: Annotated[
        int,
        Setting("Run --retriever N times; report the spread across runs.", min=1, max=MAX_REPEAT),
    ] = 1
    columns: Annotated[ColumnMap | None, COLUMNS] = None
    # --metrics over --k, parsed once here (a bad name is refused before any file is
    # read) into the measures the evaluator scores
    measures: list[Measure] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        paths_from_text(self)  # a path given as text from Python
        self.measures = expand(list(self.metrics), list(self.k))


def check(config: RetrievalConfig) -> None:
    """What can be refused before any file is read: one target, one source of the run."""
    if (config.golden is None) == (config.qrels is None):
        raise InputError("give exactly one of --golden or --qrels", field="golden")
    if (config.run is None) == (config.retriever is None):
        raise InputError("give exactly one of --run or --retriever", field="run")
    if config.duplicates not in ("max", "error"):
        raise InputError("must be 'max' or 'error'", field="duplicates")


def run(config: RetrievalConfig, reading: Reading = contextlib.nullcontext) -> RetrievalReport:
    """Score the run (or retriever) of ``config``; ``reading`` wraps the reading of a run."""
    check(config)
    target, run_table = _target(config, reading)
    if config.repeat > 1 and not config.retriever:
        raise InputError("--repeat needs --retriever (a run file is one draw)", field="repeat")
    if config.retriever and config.qrels is not None:
        raise InputError("--retriever needs --golden (with a corpus)", field="retriever")
    # built once: every --repeat draw is scored against the same qrels structures
    score = RetrievalEvaluator(
        target,
        config.measures,
        k=config.k,
        relevance_level=config.relevance_level,
        precision="float32" if config.float32 else "float64",
        duplicates=config.duplicates,
        missing="skip" if config.skip_missing else "zero",
        nothing_relevant=config.nothing_relevant,
        split="holdout" if config.holdout else None,
        leak_k=config.leak_k,
        reference=config.reference_run,
    ).evaluate
    if retriever := config.retriever:
        assert isinstance(target, GoldenSet)  # --retriever needs --golden, checked above
        cases, depth = evaluated_slice(target, config.holdout), config.depth
        if config.repeat > 1:
            report = repeated(config.repeat, lambda: run_retriever(cases, retriever, depth), score)
        else:
            report = score(run_retriever(cases, retriever, depth)[0])
    elif run_table is not None:
        report = score(run_table)
    else:
        assert config.run is not None  # exactly one of --run and --retriever, checked above
        assert isinstance(target, GoldenSet)  # with --qrels the run was read by _target
        with reading():
            # the full golden set: another tool's run names queries by text (data/runs.py)
            report = score(load_run(config.run, config.columns, target))
    if config.holdout:  # the one reveal of this command, however many --repeat draws
        assert config.golden is not None  # the evaluator refuses --holdout on bare qrels
        report = log_reveal(report, config.golden)
    return report


def _target(config: RetrievalConfig, reading: Reading) -> tuple[GoldenSet | Qrels, Run | None]:
    """The golden set or the qrels (with the corpus given), and the run when it was read
    beside the qrels."""
    run_table = None
    target: GoldenSet | Qrels
    if config.golden:
        target = load_golden(config.golden, columns=config.columns)
    elif config.run is not None:
        assert config.qrels is not None  # exactly one of --golden and --qrels, checked
        with reading():
            target, run_table = read_together(config.qrels, config.run, config.columns)
    else:
        assert config.qrels is not None
        target = read_trec_qrels(config.qrels)
    if config.corpus is not None:
        target = with_corpus(target, config.corpus)
    return target, run_table


def read_together(qrels: Path, run: Path, columns: ColumnMap | None = None) -> tuple[Qrels, Run]:
    """The qrels on a thread while the run streams in: reading a large run leaves part of a
    core idle, where the qrels cost almost no time."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(read_trec_qrels, qrels)
        try:
            run_table = load_run(run, columns)
        finally:
            qrels_table = pending.result()  # its error, if any, comes first
        return qrels_table, run_table
