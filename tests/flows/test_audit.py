"""``ragtriage audit`` end to end, offline and without a model (extractive + lexical)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from ragtriage.cli.main import main
from ragtriage.data.golden import load_golden
from ragtriage.data.traces import load_traces
from ragtriage.errors import InputError
from ragtriage.flows import audit as audit_flow
from ragtriage.flows.audit import AuditConfig
from ragtriage.results.run import AuditResult
from ragtriage.triage.models import Label
from tests.conftest import ROOT

HANDBOOK = ROOT / "golden_sets/handbook"


def test_audit_with_embedded_bm25_extractive_and_lexical_judge(tmp_path):
    result = audit_flow.run(
        AuditConfig(
            golden=HANDBOOK, generator="extractive", judge="lexical", cache=tmp_path / "c.sqlite"
        )
    )
    assert_one_label_per_golden_case(result, HANDBOOK)
    assert result.judge_fingerprint.judge == "lexical"
    assert result.calibration.note.startswith("calibrated on 300")  # calibrations/lexical.json
    for row in result.cases:
        assert row.reason
        if not row.answerable:
            assert row.label in (Label.PASS, Label.GENERATION, Label.UNSCORED)
    assert result.retrieval.n_answerable == 12


def assert_one_label_per_golden_case(result, golden_path) -> None:
    """Exactly one row, with one valid label, for each golden case id, in golden order;
    and the counts are those rows' labels. (Counting labels derived from the same rows
    could not fail: the golden ids are the independent side.)"""
    golden_ids = [case.id for case in load_golden(golden_path).cases]
    assert [row.case_id for row in result.cases] == golden_ids
    assert all(isinstance(row.label, Label) for row in result.cases)
    labels = Counter(row.label.value for row in result.cases)
    assert result.counts == {label.value: labels.get(label.value, 0) for label in Label}


def write_traces(path, rows):
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_trace_file_gives_every_label(tmp_path):
    golden = tmp_path / "golden.jsonl"
    golden.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {"id": "ret", "query": "q1", "expected": ["a"], "tags": ["product-code"]},
                {"id": "rank", "query": "q2", "expected": ["b"]},
                {"id": "gen", "query": "q3", "expected": ["c"]},
                {"id": "ok", "query": "q4", "expected": ["d"]},
                {"id": "un-pass", "query": "q5", "expected": []},
                {"id": "un-gen", "query": "q6", "expected": []},
                {"id": "untraced", "query": "q7", "expected": ["e"]},
            ]
        )
        + "\n"
    )
    chunk = {
        "a": "Alpha text.",
        "b": "The N4-300 has four drive bays.",
        "c": "The warranty lasts three years.",
        "d": "Port 5443 is used for remote access.",
        "x": "Unrelated words about cooking pasta.",
    }

    def r(*ids):
        return [{"id": i, "score": 10.0 - n, "text": chunk[i]} for n, i in enumerate(ids)]

    traces = write_traces(
        tmp_path / "t.jsonl",
        [
            {
                "query_id": "ret",
                "retrieved": r("x"),
                "context_k": 1,
                "answer": "Unrelated words about cooking pasta.",
            },
            {
                "query_id": "rank",
                "retrieved": r("x", "b"),
                "context_ids": ["x"],
                "answer": "Unrelated words about cooking pasta.",
            },
            {
                "query_id": "gen",
                "retrieved": r("c"),
                "context_ids": ["c"],
                "answer": "The guarantee covers seventeen decades on Mars exclusively.",
            },
            {
                "query_id": "ok",
                "retrieved": r("d"),
                "answer": "Port 5443 is used for remote access.",
            },
            {
                "query_id": "un-pass",
                "retrieved": r("x"),
                "answer": "The context does not contain the answer.",
            },
            {
                "query_id": "un-gen",
                "retrieved": r("x"),
                "answer": "Zebras migrate across Patagonian glaciers every winter.",
            },
            {"query_id": "stray", "retrieved": [], "answer": ""},
        ],
    )
    result = audit_flow.run(
        AuditConfig(
            golden=golden, traces=traces, judge="lexical", context_k=1, cache=tmp_path / "c.sqlite"
        )
    )
    assert_one_label_per_golden_case(result, golden)
    labels = {row.case_id: row.label for row in result.cases}
    assert labels == {
        "ret": Label.RETRIEVAL,
        "rank": Label.RANKING,
        "gen": Label.GENERATION,
        "ok": Label.PASS,
        "un-pass": Label.PASS,
        "un-gen": Label.GENERATION,
        "untraced": Label.UNSCORED,
    }
    mismatches = [w for w in result.warnings if w.code == "mismatch"]
    assert any("traced not in golden" in w.text and "stray" in w.text for w in mismatches)
    assert any("golden without trace" in w.text and "untraced" in w.text for w in mismatches)
    assert {"traced_not_in_golden": 1} in [w.counts for w in mismatches]
    assert result.mismatches["traced_not_in_golden"] == ["stray"]
    assert result.mismatches["golden_without_trace"] == ["untraced"]
    with pytest.raises(InputError, match="1 traced not in golden: stray") as info:
        audit_flow.run(
            AuditConfig(
                golden=golden,
                traces=traces,
                judge="lexical",
                context_k=1,
                cache=tmp_path / "c.sqlite",
                on_mismatch="error",
            )
        )
    assert info.value.path == str(traces)
    rank_row = next(row for row in result.cases if row.case_id == "rank")
    assert rank_row.first_relevant_rank == 2 and rank_row.context_ids == ["x"]
    assert result.traces.sha256
    assert result.clusters[0].label in (Label.RETRIEVAL, Label.RANKING, Label.GENERATION)


def test_results_json_round_trips_and_cli_exit_codes(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(
        [
            "audit",
            "--golden",
            str(HANDBOOK),
            "--generator",
            "extractive",
            "--judge",
            "lexical",
            "--cache",
            str(tmp_path / "c.sqlite"),
            "-o",
            str(out),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "Stage metrics" in text
    # the handbook's hb-15 retrieves a forbidden chunk: the gate fails, and the audit leads
    # with that, not with "No failures" (issue 27, item 6)
    assert text.startswith("ragtriage audit: gate fails; ")
    assert "Gate fails whatever the bars: 1 leak (hb-15)." in text
    assert main(["gate", str(out / "results.json")]) == 1
    data = json.loads((out / "results.json").read_text())
    assert data["schema_version"] == "ragtriage.audit/2"
    restored = AuditResult.model_validate(data)
    assert len(restored.cases) == 16
    assert main(["audit", "--golden", str(tmp_path / "nope")]) == 2


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"retrieved": [], "answer": "a"}', "query_id"),
        ('{"query_id": "q", "answer": "a"}', "retrieved"),
        ('{"query_id": "q", "retrieved": []}', "answer"),
        (
            '{"query_id": "q", "retrieved": [{"id": "a", "score": "x"}], "answer": ""}',
            "retrieved[0].score",
        ),
        ('{"query_id": "q", "retrieved": [], "answer": "", "context_k": -1}', "context_k"),
        (
            '{"query_id": "q", "retrieved": [], "answer": "", "context_k": 1, "context_ids": []}',
            "context_ids",
        ),
    ],
)
def test_trace_errors_name_file_line_field(tmp_path, line, field):
    path = tmp_path / "t.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(InputError) as info:
        load_traces(path, 3)
    assert (info.value.line, info.value.field) == (1, field)


def test_ids_absent_from_the_corpus_are_listed(tmp_path):
    traces = write_traces(
        tmp_path / "t.jsonl",
        [
            {
                "query_id": "hb-01",
                "retrieved": [{"id": "ghost-chunk", "text": "boo"}],
                "answer": "The context does not contain the answer.",
            },
        ],
    )
    result = audit_flow.run(
        AuditConfig(golden=HANDBOOK, traces=traces, judge="lexical", cache=tmp_path / "c.sqlite")
    )
    assert result.mismatches["trace_ids_not_in_corpus"] == ["hb-01:ghost-chunk"]
    assert len(result.mismatches["golden_without_trace"]) == 15
    assert "expected_not_in_corpus" not in result.mismatches


def test_a_context_chunk_without_text_makes_the_case_unscored_and_a_mismatch(tmp_path):
    """It was dropped and the answer judged on the chunks left: usually ``generation``."""
    golden = tmp_path / "golden.jsonl"
    golden.write_text(json.dumps({"id": "q", "query": "Which port?", "expected": ["d"]}) + "\n")
    traces = write_traces(
        tmp_path / "t.jsonl",
        [
            {
                "query_id": "q",
                "retrieved": [{"id": "d", "text": "Port 5443 is used."}, {"id": "ghost"}],
                "context_ids": ["d", "ghost"],
                "answer": "Port 5443 is used, and port 80 too.",
            }
        ],
    )
    result = audit_flow.run(
        AuditConfig(golden=golden, traces=traces, judge="lexical", cache=tmp_path / "c.sqlite")
    )
    row = result.cases[0]
    assert row.label == Label.UNSCORED and row.judge is None
    assert "no text is known for context chunk ghost" in row.reason
    assert result.mismatches["context_ids_without_text"] == ["q:ghost"]
    assert any(
        w.code == "mismatch" and "context ids without text: q:ghost" in w.text
        for w in result.warnings
    )
    assert result.generation.n_judged == 0


class FailingCaller:
    """A model caller whose every call fails for good (as after the last retry)."""

    def __init__(self, *args, **kwargs) -> None:
        pass

    async def raw(self, request, usage):
        from ragtriage.llm.calls import Unscorable

        raise Unscorable("model server timed out after 6 attempts")


def test_a_failed_generation_is_unscored_with_its_reason_never_judged(tmp_path, monkeypatch):
    """It became the answer "[generation failed: ...]" and was judged."""
    from ragtriage.flows import audit as audit_module
    from ragtriage.flows import engine

    monkeypatch.setattr(engine, "LocalModel", lambda *a, **k: None)
    monkeypatch.setattr(audit_module, "Caller", FailingCaller)
    result = audit_flow.run(
        AuditConfig(  # --live: the handbook's shipped answers would need no model call
            golden=HANDBOOK,
            generator="local",
            judge="lexical",
            live=True,
            cache=tmp_path / "c.sqlite",
        )  # fmt: skip
    )
    assert_one_label_per_golden_case(result, HANDBOOK)
    assert result.generation.n_judged == 0
    for row in result.cases:
        assert row.judge is None and row.answer == ""
        failed = "generation failed: model server timed out after 6 attempts"
        if row.label == Label.UNSCORED:
            assert row.reason == failed
        else:  # decided before the answer mattered: retrieval or ranking
            assert row.label in (Label.RETRIEVAL, Label.RANKING) and failed in row.warnings
    assert result.counts["unscored"] > 0 and result.counts["pass"] == 0


def test_the_default_audit_makes_the_embedded_model_object_once(tmp_path, monkeypatch):
    """The judge travelled as a (strategy, model) pair, resolved for the plan, the
    sampling vote, the run and the generator: each made an embedded model object."""
    from ragtriage.flows import audit as audit_module
    from ragtriage.flows import engine
    from ragtriage.llm.local import LocalModel

    made = []
    real = LocalModel.__init__

    def counted(self, **kwargs):
        made.append(kwargs)
        real(self, **kwargs)

    monkeypatch.setattr(LocalModel, "__init__", counted)
    monkeypatch.setattr(engine, "require_llama", lambda: None)
    monkeypatch.setattr(audit_module, "Caller", FailingCaller)  # no model is run
    result = audit_flow.run(AuditConfig(golden=HANDBOOK, cache=tmp_path / "c.sqlite", limit=2))
    assert len(made) == 1
    assert result.judge_fingerprint.model.startswith("local/") or (
        result.judge_fingerprint.judge == "lexical"  # a model-free calibrated rule
    )


def test_a_bad_generator_is_refused_before_any_progress_line(tmp_path, capsys):
    args = ["audit", "--golden", str(HANDBOOK), "--judge", "lexical", "--generator",
            "bogus@embedded", "--cache", str(tmp_path / "c.sqlite"),
            "-o", str(tmp_path / "o")]  # fmt: skip
    assert main(args) == 2
    captured = capsys.readouterr()
    assert "generator" in captured.err and "module:function" in captured.err
    assert "generate:" not in captured.out + captured.err
