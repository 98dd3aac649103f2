"""The large-run path is the small-run path: streaming reader, doc words, kernel, writer.

Nothing here is timed; these check that what makes a million-query run fast (block-wise
reading, fixed-width doc words, value sorts with an exact tie-break, the arrow-built
per-query JSON) gives exactly what the straightforward code gives.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

import blake3
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from ragtriage import evaluate_retrieval
from ragtriage.data import _trec_fast as trec_fast
from ragtriage.data import trec
from ragtriage.data.tables import Qrels, Run, doc_words, encode, words_to_strings
from ragtriage.data.trec import read_progress, read_trec_qrels, read_trec_run
from ragtriage.errors import InputError
from ragtriage.results.files import _frame_json, _frame_json_orjson, write_json
from ragtriage.retrieval.ranking import rank, score_keys

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "retrieval_scale.py"


def _bench():
    spec = importlib.util.spec_from_file_location("retrieval_scale", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def _columns(run: Run) -> dict:
    return {
        "rows": list(zip(run.query_ids[run.query], run.doc_ids[run.doc], run.score, strict=True)),
        "query_ids": list(run.query_ids),
        "doc_ids": list(run.doc_ids),
    }


def _write_run(path: Path, rows: list[tuple[str, str, float]]) -> None:
    path.write_text(
        "".join(f"{q} Q0 {d} {i + 1} {s!r} tag\n" for i, (q, d, s) in enumerate(rows)),
        encoding="utf-8",
    )


@pytest.fixture
def messy_rows() -> list[tuple[str, str, float]]:
    """Interleaved queries, non-ASCII and long ids, widths that grow late, tied scores."""
    rng = random.Random(7)
    docs = [f"d{i}" for i in range(50)] + ["é-doc", "日本語", "x" * 30, "a\u00e9z"]
    rows = []
    for _ in range(3000):
        query = f"q{rng.randrange(40)}"
        rows.append((query, rng.choice(docs[:50]), float(rng.randrange(5))))
    rows += [(f"q{i}", docs[50 + i % 4], 0.5 * i) for i in range(20)]  # wide ids last
    return rows


@pytest.mark.parametrize(("parts", "outgrow"), [(1, False), (4, False), (4, True), (3, True)])
def test_streamed_run_equals_the_line_parser(tmp_path, monkeypatch, messy_rows, parts, outgrow):
    """Whatever the number of parts, and when parts outgrow their regions of the shared
    columns (more rows than estimated, ids longer than the first megabyte's), the
    columns are the line parser's."""
    path = tmp_path / "run.trec"
    _write_run(path, messy_rows)
    monkeypatch.setattr(trec_fast, "STREAM_BLOCK", 4096)  # dozens of blocks
    monkeypatch.setattr(trec_fast, "PART_BYTES", 10_000)  # and several parts
    monkeypatch.setattr(trec_fast, "PARTS", parts)
    if outgrow:
        monkeypatch.setattr(trec_fast, "_estimates", lambda data, sizes: [100] * len(sizes))
        monkeypatch.setattr(trec_fast, "_width", lambda data, delimiter: 1)
    streamed = read_trec_run(path)
    table = trec._slow_columns(path, trec.RUN_COLUMNS, "score").table
    parsed = Run.from_columns(table.column("query"), table.column("doc"), table.column("score"))
    assert _columns(streamed) == _columns(parsed)
    assert streamed.doc_strings(np.arange(len(streamed))) == [d for _, d, _ in messy_rows]
    assert streamed.digest == blake3.blake3(path.read_bytes()).hexdigest()
    # query runs cut at block edges come back whole, as from the expanded codes
    codes = streamed.query
    whole = Run(streamed.query_ids, None, codes, None, streamed.score, words=streamed.words)
    for ours, expanded in zip(streamed.query_runs(), whole.query_runs(), strict=True):
        assert ours.tolist() == expanded.tolist()


def test_progress_reports_every_byte(tmp_path, messy_rows):
    path = tmp_path / "run.trec"
    _write_run(path, messy_rows)
    seen: list[tuple[int, int]] = []
    with read_progress(lambda p, done, total: seen.append((done, total))):
        read_trec_run(path)
    assert seen and seen[-1] == (path.stat().st_size, path.stat().st_size)


def test_non_finite_score_still_names_its_line(tmp_path):
    path = tmp_path / "run.trec"
    path.write_text("q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2 nan t\n")
    with pytest.raises(InputError, match=r"run\.trec:2: field 'score'"):
        read_trec_run(path)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=20).filter(lambda t: "\x00" not in t), max_size=30))
def test_doc_words_order_like_python_strings(ids):
    words = doc_words(ids)
    assert words_to_strings(words) == ids
    as_tuples = [tuple(row) for row in words.tolist()]
    for a, b, wa, wb in zip(ids, ids[1:], as_tuples, as_tuples[1:], strict=False):
        assert (a < b) == (wa < wb) and (a == b) == (wa == wb)


def test_doc_words_read_sliced_and_large_arrow_strings():
    ids = ["a", "", "longer-than-eight", "é-doc", "日本語日本語日本語", "z" * 17]
    expected = doc_words(ids)
    assert (doc_words(pa.array(["skip", "me", *ids]).slice(2)) == expected).all()
    assert (doc_words(pa.array(ids, pa.large_string())) == expected).all()


def test_encode_sorts_and_keeps_runs():
    codes, uniques = encode(["b", "b", "a", "é", "b", "a"])
    assert list(uniques) == ["a", "b", "é"]
    assert list(uniques[codes]) == ["b", "b", "a", "é", "b", "a"]


def test_score_keys_order_like_float32_scores_and_never_against_float64():
    rng = np.random.default_rng(3)
    special = np.array([0.0, -0.0, 1.0, 1.0 + 1e-12, 1e-46, -1e-46, 1e39, np.inf, -np.inf])
    values = np.concatenate([special, rng.normal(size=500) * 10.0 ** rng.integers(-5, 5, 500)])
    keys = score_keys(values)
    with np.errstate(over="ignore"):
        rounded = values.astype(np.float32)
    a, b = np.meshgrid(np.arange(len(values)), np.arange(len(values)))
    assert ((keys[a] < keys[b]) == (rounded[a] < rounded[b])).all()  # exactly float32's order
    assert not ((keys[a] < keys[b]) & (values[a] > values[b])).any()  # never against float64


def test_qrels_keep_first_appearance_order_and_refuse_duplicates(tmp_path):
    path = tmp_path / "qrels"
    path.write_text("q2 0 d1 1\nq1 0 d1 0\nq2 0 d3 2\n")
    qrels = read_trec_qrels(path)
    assert list(qrels.query_ids) == ["q2", "q1"] and list(qrels.query) == [0, 1, 0]
    assert qrels.doc.to_pylist() == ["d1", "d1", "d3"] and list(qrels.label) == [1, 0, 2]
    path.write_text("q2 0 d1 1\nq1 0 d1 0\nq2 0 d1 2\n")
    with pytest.raises(InputError, match=r"qrels:3: field 'doc'"):
        read_trec_qrels(path)


def test_batch_size_and_row_order_do_not_change_rankings(tmp_path, messy_rows):
    """Small batches, shuffled (ungrouped) rows, ties and duplicates: the same rankings."""
    qrels = Qrels.from_pairs(
        [f"q{i}" for i in range(45)],
        [(f"q{i}", f"d{(i * 7) % 50}", 1 + i % 2) for i in range(40)],
    )
    shuffled = messy_rows[:]
    random.Random(1).shuffle(shuffled)
    results = []
    for rows, cells in ((messy_rows, 1 << 22), (shuffled, 37)):
        run = Run.from_columns(*zip(*rows, strict=True))
        batches, stats = rank(run, qrels, batch_cells=cells)
        ranked = {}
        for batch in batches:
            for i, query in enumerate(batch.queries):
                docs = batch.docs[i][batch.docs[i] >= 0]
                ranked[qrels.query_ids[query]] = (
                    list(run.doc_ids[docs]),
                    batch.labels[i][: len(docs)].tolist(),
                )
        results.append((ranked, stats))
    assert results[0] == results[1]
    assert results[0][1].duplicates > 0


def test_benchmark_run_agrees_with_pytrec_eval(tmp_path):
    """The benchmark's own generator, small: ragtriage equals trec_eval per query."""
    bench = _bench()
    run_path, qrels_path = bench.generate(300, tmp_path)
    report = evaluate_retrieval(
        read_trec_qrels(qrels_path), run_path, list(bench.METRICS), resamples=50
    )
    run, qrels = bench.parse_trec_dicts(run_path, qrels_path)
    values = pytrec_eval.RelevanceEvaluator(qrels, set(bench.TREC_NAMES.values())).evaluate(run)
    assert len(report.per_query) > 250
    for query, row in report.per_query.iterrows():
        for ours, theirs in bench.TREC_NAMES.items():
            assert abs(row[ours] - values[query][theirs]) <= 1e-12, (query, ours)


def test_per_query_json_is_exact(tmp_path):
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.random(500), [0.0, -0.0, 1.0, 1 / 3, 5e-324, 2.5e-5, 1e22]])
    frame = pd.DataFrame(
        {"ndcg@10": values, 'odd "name"': values[::-1]},
        index=pd.Index([f"q{i}é" for i in range(len(values))], name="query_id"),
    )
    fast = json.loads(_frame_json(frame))
    assert fast == json.loads(_frame_json_orjson(frame)) and list(fast) == list(frame.index)
    for query, value in zip(frame.index, values, strict=True):
        assert type(fast[query]["ndcg@10"]) is float and fast[query]["ndcg@10"] == value
    quoted = frame.set_axis([f'q"{i}' for i in range(len(frame))])
    assert json.loads(_frame_json(quoted)) == json.loads(_frame_json_orjson(quoted))


def test_written_report_equals_pydantic_json(tmp_path):
    bench = _bench()
    run_path, qrels_path = bench.generate(200, tmp_path)
    report = evaluate_retrieval(read_trec_qrels(qrels_path), run_path, ["ndcg@10", "map"])
    write_json(tmp_path / "out.json", report)
    written = json.loads((tmp_path / "out.json").read_text())
    assert written == json.loads(report.model_dump_json())
    assert list(written) == list(json.loads(report.model_dump_json()))
