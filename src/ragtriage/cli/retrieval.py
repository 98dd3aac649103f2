"""``ragtriage retrieval``: stage 1 on its own."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated, Any

import typer

from ragtriage.cli.common import (
    MAX_RANK,
    MAX_REPEAT,
    ColumnsOption,
    choices,
    console,
    given_list,
    int_list,
    output_file,
)
from ragtriage.data.check import with_corpus
from ragtriage.data.formats.columns import ColumnMap, parse_columns
from ragtriage.data.golden import load_golden
from ragtriage.data.holdout import evaluated_slice
from ragtriage.data.models import GoldenSet
from ragtriage.data.runs import load_run
from ragtriage.data.tables import Qrels, Run
from ragtriage.data.trec import read_trec_qrels
from ragtriage.errors import InputError
from ragtriage.render.console import reading_progress
from ragtriage.render.retrieval import render_leaks, render_overlap, render_repeat, render_split
from ragtriage.render.terminal import retrieval_summary
from ragtriage.results.files import write_json
from ragtriage.retrieval.evaluate import DEFAULT_KS, DEFAULT_METRICS, RetrievalEvaluator
from ragtriage.retrieval.metrics import expand
from ragtriage.retrieval.repeat import repeated
from ragtriage.retrieval.retrievers import run_retriever
from ragtriage.retrieval.split import log_reveal

__all__ = ["read_together", "register", "retrieval"]


def retrieval(
    golden: Annotated[Path | None, typer.Option(help="Golden set file or directory.")] = None,
    qrels: Annotated[Path | None, typer.Option(help="TREC qrels instead of a golden set.")] = None,
    run: Annotated[
        Path | None,
        typer.Option(
            help="Run file: TREC (6 columns), ours as JSONL/CSV/Parquet, a ragas dataset or "
            "an OpenInference span export (detected by content; queries matched by text)."
        ),
    ] = None,
    retriever: Annotated[
        str | None, typer.Option(help="'bm25' (embedded) or module:function, instead of --run.")
    ] = None,
    metrics: Annotated[
        list[str] | None, typer.Option("--metrics", "-m", help="e.g. ndcg@10,recall,mrr")
    ] = None,
    k: Annotated[
        list[str] | None, typer.Option(help="Cutoffs for metrics given without one.")
    ] = None,
    depth: Annotated[
        int, typer.Option(min=1, max=MAX_RANK, help="Results per query from --retriever.")
    ] = 100,
    relevance_level: Annotated[
        int, typer.Option(min=0, max=2**63 - 1, help="Relevant = label >= this.")
    ] = 1,
    float32: Annotated[
        bool,
        typer.Option(
            "--float32/--float64",
            help="Compare scores at float32 (pytrec_eval, ir_measures, trec_eval <= 9.0.7), "
            "not as doubles (trec_eval 9.0.8 and 10.0).",
        ),
    ] = False,
    duplicates: Annotated[
        str,
        typer.Option(callback=choices("max", "error"), help="'max' (keep best, count) or 'error'."),
    ] = "max",
    skip_missing: Annotated[
        bool, typer.Option(help="Drop golden queries absent from the run (trec_eval without -c).")
    ] = False,
    nothing_relevant: Annotated[
        str | None,
        typer.Option(
            callback=choices("zero", "unanswerable"),
            help="Queries judged with nothing relevant: 'zero' scores them 0 in the means "
            "(trec_eval; default with --qrels), 'unanswerable' reports them on their own "
            "(default with --golden).",
        ),
    ] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write JSON here.")] = None,
    quiet: Annotated[bool, typer.Option(help="No terminal summary.")] = False,
    holdout: Annotated[
        bool, typer.Option(help="Score the held-out slice (logged beside the golden set).")
    ] = False,
    corpus: Annotated[
        Path | None, typer.Option(help="corpus.jsonl (chunk tenants, hash, BM25) if not beside.")
    ] = None,
    leak_k: Annotated[
        int | None,
        typer.Option(
            min=1, max=MAX_RANK, help="Depth of the access-control check (default: largest k)."
        ),
    ] = None,
    reference_run: Annotated[
        Path | None, typer.Option(help="Exact-search run: report overlap@k of --run against it.")
    ] = None,
    repeat: Annotated[
        int,
        typer.Option(
            min=1, max=MAX_REPEAT, help="Run --retriever N times; report the spread across runs."
        ),
    ] = 1,
    columns: ColumnsOption = None,
) -> None:
    """Score a retriever against a golden set: metrics per query, means with 95% CIs,
    per-tag slices, missed queries, unanswerable queries and a score-threshold analysis."""
    if (golden is None) == (qrels is None):
        raise InputError("give exactly one of --golden or --qrels", field="golden")
    if (run is None) == (retriever is None):
        raise InputError("give exactly one of --run or --retriever", field="run")
    if duplicates not in ("max", "error"):
        raise InputError("must be 'max' or 'error'", field="duplicates")
    output_file(output, "--output")
    measures = given_list(metrics, "--metrics") or list(DEFAULT_METRICS)
    ks = int_list(k, "--k") or list(DEFAULT_KS)
    expand(measures, ks)  # a bad metric name fails here, before a 4 GB run is read
    mapping = parse_columns(columns)  # a bad mapping fails here, before any file is read
    run_table = None
    target: GoldenSet | Qrels
    if golden:
        target = load_golden(golden, columns=mapping)
    else:
        assert qrels is not None  # exactly one of --golden and --qrels, checked above
        if run is not None:
            with reading_progress(quiet):
                target, run_table = read_together(qrels, run, mapping)
        else:
            target = read_trec_qrels(qrels)
    if corpus is not None:
        target = with_corpus(target, corpus)
    if repeat > 1 and not retriever:
        raise InputError("--repeat needs --retriever (a run file is one draw)", field="repeat")
    split = "holdout" if holdout else None

    options: dict[str, Any] = {
        "k": ks,
        "relevance_level": relevance_level,
        "precision": "float32" if float32 else "float64",
        "duplicates": duplicates,
        "missing": "skip" if skip_missing else "zero",
        "nothing_relevant": nothing_relevant,
        "split": split,
        "leak_k": leak_k,
        "reference": reference_run,
    }
    if retriever and qrels is not None:
        raise InputError("--retriever needs --golden (with a corpus)", field="retriever")
    # built once: every --repeat draw is scored against the same qrels structures
    score = RetrievalEvaluator(target, measures, **options).evaluate

    if retriever:
        assert isinstance(target, GoldenSet)  # --retriever needs --golden, checked above
        cases = evaluated_slice(target, holdout)
        if repeat > 1:
            report = repeated(repeat, lambda: run_retriever(cases, retriever, depth), score)
        else:
            report = score(run_retriever(cases, retriever, depth)[0])
    elif run_table is not None:
        report = score(run_table)
    else:
        assert run is not None  # exactly one of --run and --retriever, checked above
        assert isinstance(target, GoldenSet)  # with --qrels the run was read above
        with reading_progress(quiet):
            # the full golden set: another tool's run names queries by text (data/runs.py)
            run_table = load_run(run, mapping, target)
            report = score(run_table)
    if holdout:  # the one reveal of this command, however many --repeat draws
        assert golden is not None  # the evaluator refuses --holdout on bare qrels
        report = log_reveal(report, golden)
    if output:
        write_json(output, report)
    if not quiet:
        out = console()
        retrieval_summary(report, out)
        for render in (render_split, render_leaks, render_overlap, render_repeat):
            render(report, out)
        if output:
            out.print(f"wrote {output}")


def read_together(qrels: Path, run: Path, columns: ColumnMap | None = None) -> tuple[Qrels, Run]:
    """The qrels on a thread while the run streams in.

    Reading a 4 GB run keeps about 1.7 of 2 cores busy (parse, encode, hash); three
    million qrels lines fit in the rest, so they cost almost no time.
    """
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(read_trec_qrels, qrels)
        try:
            run_table = load_run(run, columns)
        finally:
            qrels_table = pending.result()  # its error, if any, comes first
        return qrels_table, run_table


def register(app: typer.Typer) -> None:
    app.command(name="retrieval")(retrieval)
