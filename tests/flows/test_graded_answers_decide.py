"""An answer a person graded is decided by its grade in every audit that holds it (issue
53 item 2): calibrating on ten of one's own grades once turned an answer just graded
unfaithful (a planted "5-year warranty") into "unsure, grade it", because the band of a
ten-grade record decides nothing."""

from __future__ import annotations

import json

from ragtriage.calibration.grades import sha256_text
from ragtriage.cli.main import main
from ragtriage.triage.calibrated import GRADED_BY
from tests.conftest import ROOT

HANDBOOK = ROOT / "golden_sets" / "handbook"
PLANTED = "The N4-300 comes with a 5-year warranty on parts and labour."


def _traces_with_a_planted_claim(tmp_path) -> tuple:
    """The extractive system's answers as a trace file, hb-01's replaced by a claim no
    chunk makes."""
    out = tmp_path / "first"
    args = ["audit", "--golden", str(HANDBOOK), "--generator", "extractive"]
    cache = ["--cache", str(tmp_path / "c.sqlite")]
    assert main([*args, "--judge", "lexical", "--out", str(out), *cache]) in (0, 1)
    cases = json.loads((out / "results.json").read_text())["cases"]
    traces = tmp_path / "traces.jsonl"
    rows = []
    for c in cases:
        answer = PLANTED if c["case_id"] == "hb-01" else c["answer"]
        retrieved = [
            {"id": i, "score": s}
            for i, s in zip(c["retrieved_ids"], c["retrieved_scores"], strict=True)
        ]
        rows.append(
            {
                "query_id": c["case_id"],
                "retrieved": retrieved,
                "context_ids": c["context_ids"],
                "answer": answer,
            }
        )
    traces.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return traces, {r["query_id"]: r["answer"] for r in rows}


def test_ten_own_grades_decide_their_answers_never_unsure(tmp_path):
    traces, answers = _traces_with_a_planted_claim(tmp_path)
    corpus = {
        json.loads(line)["id"]: json.loads(line)["text"]
        for line in (HANDBOOK / "corpus.jsonl").read_text().splitlines()
    }
    graded = [q for q, a in answers.items() if "does not contain" not in a][:10]
    assert "hb-01" in graded and len(graded) == 10
    contexts = {json.loads(line)["query_id"]: json.loads(line)["context_ids"] for line in
                traces.read_text().splitlines()}  # fmt: skip
    grades = tmp_path / "grades.jsonl"
    grades.write_text(
        "".join(
            json.dumps(
                {
                    "id": q,
                    "label": q != "hb-01",  # the planted warranty graded unfaithful
                    "question": "q",
                    "contexts": [corpus[c] for c in contexts[q]],
                    "answer": answers[q],
                    "answer_sha256": sha256_text(answers[q]),
                }
            )
            + "\n"
            for q in graded
        )
    )
    cache = ["--cache", str(tmp_path / "c.sqlite")]
    cal = tmp_path / "cal"
    assert main(["calibrate", str(grades), "--judge", "lexical", "--out", str(cal)]) == 0
    record = next(cal.rglob("calibration.json"))
    out = tmp_path / "again"
    args = ["audit", "--golden", str(HANDBOOK), "--traces", str(traces), "--judge", "lexical"]
    main([*args, "--calibration", str(record), "--out", str(out), *cache])
    cases = {c["case_id"]: c for c in json.loads((out / "results.json").read_text())["cases"]}
    planted = cases["hb-01"]
    assert planted["label"] == "generation" and planted["faithful"] is False
    assert planted["decided_by"] == GRADED_BY and "a person's grade" in planted["reason"]
    for q in graded:
        assert cases[q]["label"] != "unsure", (q, cases[q]["reason"])
        assert cases[q]["decided_by"] == GRADED_BY


def test_another_answer_to_a_graded_question_is_not_decided_by_that_grade():
    from ragtriage.calibration.record import LabelledItem
    from ragtriage.triage.calibrated import Decider, graded_answers
    from ragtriage.triage.models import CalibrationStatus

    class Record:
        items = [
            LabelledItem(
                id="q1", dataset="d", human=False, outcome="scored", answer_sha256=sha256_text("a")
            )
        ]

    decider = Decider(Record(), CalibrationStatus())  # type: ignore[arg-type]
    assert set(graded_answers(decider, {"q1": "a"})) == {"q1"}
    assert graded_answers(decider, {"q1": "another answer"}) == {}


def test_a_graded_turn_is_decided_by_its_grade_in_the_conversations_audit(tmp_path):
    from ragtriage.flows import conversations as conversations_flow
    from ragtriage.flows.annotate import GradesConfig, prepare
    from ragtriage.flows.conversations import ConversationsConfig
    from ragtriage.results.files import json_bytes

    traces = HANDBOOK / "conversation_traces.jsonl"

    def run(calibration=None):
        return conversations_flow.run(ConversationsConfig(
            golden=HANDBOOK, traces=traces, judge="lexical", cache=None, calibration=calibration,
        ))  # fmt: skip

    path = tmp_path / "results.json"
    path.write_bytes(json_bytes(run()))
    grades = tmp_path / "grades.jsonl"
    task = prepare(GradesConfig(audit=path, out=grades, sample=50, browser=False)).task
    unfaithful = {"hc-backup#2", "hc-backup#3"}
    for i in range(task.total):
        item = task.item(i)
        task.save(i, {"record": {"label": item["id"] not in unfaithful},
                      "version": item["version"]})  # fmt: skip
    task.store.close()
    cal = tmp_path / "cal"
    assert main(["calibrate", str(grades), "--judge", "lexical", "--out", str(cal),
                 "--no-plots", "--resamples", "100"]) == 0  # fmt: skip
    again = run(next(cal.rglob("calibration.json")))
    by_id = {t.case.case_id: t for t in again.turns}
    for turn in unfaithful:
        case = by_id[turn].case
        assert case.decided_by == GRADED_BY and case.faithful is False, case.reason
    assert not [
        t for t in again.turns if t.case.decided_by == GRADED_BY and t.label.value == "unsure"
    ]
