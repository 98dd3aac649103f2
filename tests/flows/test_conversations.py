"""``ragtriage conversations`` on constructed conversations with known per-turn labels:
a rewrite that drops the entity, a follow-up answered from the history, a later turn
answered from an earlier ungrounded answer, a ranking failure whose rewrite was fine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytrec_eval

from ragtriage.data.conversations import load_conversation_golden
from ragtriage.errors import InputError
from ragtriage.flows import conversations as conversations_flow
from ragtriage.flows.conversations import ConversationsConfig
from ragtriage.results.files import json_bytes

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "conversations"
GOLDEN = HERE / "conversations.jsonl"
# the labels each turn was built to get (README beside the fixtures says why)
LABELS = {
    "c-rewrite": ["pass", "rewrite"],
    "c-history": ["pass", "pass", "pass"],
    "c-ungrounded": ["pass", "generation", "generation"],
    "c-ranking": ["pass", "ranking", "retrieval"],
    "c-abstain": ["pass", "pass"],
    "c-recall": ["pass", "pass"],
    "c-repeat": ["generation", "generation"],
}
FIRST_FAILING = {
    "c-rewrite": 2,
    "c-history": None,
    "c-ungrounded": 2,
    "c-ranking": 2,
    "c-abstain": None,
    "c-recall": None,
    "c-repeat": 1,
}


def _bandless() -> Path:
    """The shipped lexical record without its unsure band (issue 54 gave it one): these
    tests are about the readers and the turn labels, not about the band, which leaves the
    short handbook answers, unlike the graded ones, mostly unsure."""
    import tempfile

    from ragtriage.calibration.record import load_calibration

    record = load_calibration(Path(__file__).resolve().parents[2] / "calibrations/lexical.json")
    record.band = None
    return record.save(Path(tempfile.mkdtemp()) / "lexical-bandless.json")


BANDLESS = _bandless()


def _run(traces: Path, golden: Path = GOLDEN, **options):
    options.setdefault("calibration", BANDLESS)
    return conversations_flow.run(
        ConversationsConfig(golden=golden, traces=traces, judge="lexical", **options)
    )


@pytest.fixture(scope="module")
def ours():
    return _run(HERE / "turns.jsonl")


def test_every_turn_gets_the_label_it_was_built_with(ours):
    got = {c.conversation_id: [label.value for label in c.labels] for c in ours.conversations}
    assert got == LABELS
    first = {c.conversation_id: c.first_failing_turn for c in ours.conversations}
    assert first == FIRST_FAILING
    assert ours.schema_version == "ragtriage.conversations/2"
    assert ours.traces.format == "ragtriage-conversations"


def _turn(result, conv, number):
    return next(t for t in result.turns if t.conversation_id == conv and t.turn == number)


def test_the_rewrite_that_dropped_the_entity_is_named_with_its_probe(ours):
    turn = _turn(ours, "c-rewrite", 2)
    assert turn.case.label.value == "retrieval"  # what the single-turn rules say
    assert turn.probe is not None and turn.probe.history_rank is not None
    assert turn.probe.rewrite_rank is None
    assert "N2-100" in turn.probe.with_history and "N4-300" in turn.probe.with_history
    # the ranking failure's rewrite found the chunk: the rewrite is not blamed
    fine = _turn(ours, "c-ranking", 2)
    assert fine.probe is not None and fine.probe.rewrite_rank is not None
    assert fine.label.value == "ranking"
    # a turn that logged no rewrite gets no probe, whatever its label
    assert _turn(ours, "c-ranking", 3).probe is None


def test_a_follow_up_answered_from_the_users_own_words_is_history_supported(ours):
    turn = _turn(ours, "c-history", 3)
    assert turn.label.value == "pass" and turn.case.answerable is False
    assert [(h.source, h.turn) for h in turn.history] == [("history-supported", 1)]
    assert turn.judged_with_history is True  # its passages alone do not support it


def test_a_turn_resting_on_an_earlier_ungrounded_answer_fails(ours):
    earlier = _turn(ours, "c-ungrounded", 2)
    assert earlier.label.value == "generation" and earlier.grounded is False
    turn = _turn(ours, "c-ungrounded", 3)
    assert turn.label.value == "generation"
    assert [(h.source, h.turn) for h in turn.history] == [("ungrounded-history", 2)]


def test_the_same_turn_with_its_earlier_answer_grounded_passes(tmp_path):
    """Control for the test above: give turn 2 an answer its context supports, and turn 3
    (which repeats a fact of it) rests on a grounded answer and passes."""
    rows = [json.loads(line) for line in (HERE / "turns.jsonl").read_text().splitlines()]
    for row in rows:
        if row["conversation_id"] == "c-ungrounded" and row["turn"] == 2:
            row["answer"] = "Replace the fan module, part FM-22."
        if row["conversation_id"] == "c-ungrounded" and row["turn"] == 3:
            row["answer"] = "You need to replace the fan module FM-22."
    path = tmp_path / "turns.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = _run(path)
    assert _turn(result, "c-ungrounded", 2).grounded is True
    turn = _turn(result, "c-ungrounded", 3)
    assert turn.label.value == "pass"
    assert [(h.source, h.turn) for h in turn.history] == [("history-supported", 2)]


def test_without_the_history_the_follow_up_would_read_unfaithful(tmp_path):
    """The history is what makes c-history turn 3 pass: the same answer judged as a
    one-turn conversation (no earlier turns) fails."""
    golden = tmp_path / "conversations.jsonl"
    golden.write_text(json.dumps({"conversation_id": "solo", "turn": 1, "user":
                      "Remind me, which model do I have?", "expected": [], "standalone": False})
                      + "\n")  # fmt: skip
    (tmp_path / "corpus.jsonl").write_text((HERE / "corpus.jsonl").read_text())
    row = next(json.loads(line) for line in (HERE / "turns.jsonl").read_text().splitlines()
               if '"c-history", "turn": 3' in line)  # fmt: skip
    traces = tmp_path / "turns.jsonl"
    traces.write_text(json.dumps({**row, "conversation_id": "solo", "turn": 1}) + "\n")
    result = _run(traces, golden)
    assert result.turns[0].label.value == "generation"


def _trec(result, golden_path):
    golden = load_conversation_golden(golden_path)
    qrels = {t.case.id: dict(t.case.relevance) for t in golden.turns if t.case.expected()}
    run = {
        t.case.case_id: {doc: float(-rank) for rank, doc in enumerate(t.case.retrieved_ids)}
        for t in result.turns
        if t.case.case_id in qrels and t.case.retrieved_ids
    }
    measures = {"recall.3,5", "recip_rank", "ndcg_cut.10", "P.1", "map"}
    return qrels, pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


PAIRS = {"recall@3": "recall_3", "recall@5": "recall_5", "mrr": "recip_rank",
         "ndcg@10": "ndcg_cut_10", "precision@1": "P_1", "map": "map"}  # fmt: skip


def test_retrieval_per_turn_equals_trec_eval_on_the_flattened_turns(ours):
    qrels, trec = _trec(ours, GOLDEN)
    per_query = ours.retrieval.per_query
    for turn_id in qrels:
        for ours_name, trec_name in PAIRS.items():
            expected = trec.get(turn_id, {}).get(trec_name, 0.0)  # untraced: scored 0 (-c)
            assert per_query.loc[turn_id, ours_name] == pytest.approx(expected, abs=1e-9)
    means = {a.metric: a.mean for a in ours.retrieval.aggregates}
    for ours_name, trec_name in PAIRS.items():
        mean = sum(trec.get(q, {}).get(trec_name, 0.0) for q in qrels) / len(qrels)
        assert means[ours_name] == pytest.approx(mean, abs=1e-9)


def test_the_slices_average_the_same_per_turn_values(ours):
    golden = load_conversation_golden(GOLDEN)
    per_query = ours.retrieval.per_query
    by_slice = {s.slice: s for s in ours.slices}
    assert list(by_slice) == ["turn:1", "turn:2", "turn:3+", "standalone", "follow-up",
                              "answerable", "unanswerable"]  # fmt: skip
    wanted = {
        "turn:2": [t.case.id for t in golden.turns if t.turn == 2 and t.case.expected()],
        "turn:3+": [t.case.id for t in golden.turns if t.turn >= 3 and t.case.expected()],
        "follow-up": [t.case.id for t in golden.turns if not t.standalone and t.case.expected()],
    }
    for name, ids in wanted.items():
        assert by_slice[name].means["mrr"] == pytest.approx(per_query.loc[ids, "mrr"].mean())
    means = {a.metric: a.mean for a in ours.retrieval.aggregates}
    assert by_slice["answerable"].means["mrr"] == pytest.approx(means["mrr"])
    assert by_slice["unanswerable"].n_turns == 3 and by_slice["unanswerable"].means["mrr"] is None
    assert (by_slice["turn:3+"].n_turns, by_slice["turn:3+"].n_answerable) == (3, 1)


def test_the_result_round_trips_as_json(ours):
    data = json.loads(json_bytes(ours))
    assert data["schema_version"] == "ragtriage.conversations/2"
    assert data["turns"][1]["probe"]["rewrite_rank"] is None


def test_a_missing_turn_is_refused_naming_file_line_and_field(tmp_path):
    golden = tmp_path / "conversations.jsonl"
    lines = GOLDEN.read_text().splitlines()
    golden.write_text("\n".join(line for line in lines if '"c-history", "turn": 2' not in line))
    with pytest.raises(InputError) as caught:
        load_conversation_golden(golden)
    assert caught.value.field == "turn" and "turn 2 is missing" in str(caught.value)
    assert caught.value.line is not None


def test_a_golden_turn_without_standalone_is_refused(tmp_path):
    golden = tmp_path / "conversations.jsonl"
    golden.write_text(json.dumps({"conversation_id": "a", "turn": 1, "user": "hi",
                                  "expected": []}) + "\n")  # fmt: skip
    with pytest.raises(InputError) as caught:
        load_conversation_golden(golden)
    assert (caught.value.line, caught.value.field) == (1, "standalone")


def test_without_a_corpus_the_rewrite_test_is_said_not_to_have_run(tmp_path):
    golden = tmp_path / "conversations.jsonl"
    golden.write_text(GOLDEN.read_text())
    result = _run(HERE / "turns.jsonl", golden)
    assert _turn(result, "c-rewrite", 2).label.value == "retrieval"
    assert [w.code for w in result.warnings].count("rewrite_not_tested") == 1


# what each tool's file can say: DeepEval and ragas keep only the passages the generator
# read, so the chunk retrieved at rank 4 and not passed on is a retrieval failure there
WITHOUT_RANKING = {**LABELS, "c-ranking": ["pass", "retrieval", "retrieval"]}


@pytest.mark.parametrize(
    ("name", "fmt", "labels"),
    [
        ("deepeval_conversations.json", "deepeval-conversational", WITHOUT_RANKING),
        ("ragas_multiturn.jsonl", "ragas-multiturn", WITHOUT_RANKING),
        ("langchain_sessions.jsonl", "openinference-sessions", LABELS),
        ("langchain_sessions_otlp.json", "openinference-sessions", LABELS),
    ],
)
def test_each_tools_file_audits_with_the_labels_it_was_built_with(name, fmt, labels):
    result = _run(HERE / name, HERE)
    assert result.traces.format == fmt
    assert {c.conversation_id: [x.value for x in c.labels] for c in result.conversations} == labels
    assert {c.conversation_id: c.first_failing_turn for c in result.conversations} == FIRST_FAILING
    rewrite = _turn(result, "c-rewrite", 2)
    assert rewrite.rewritten_query == "how much memory does the older model have"
    assert [(h.source, h.turn) for h in _turn(result, "c-history", 3).history] == [
        ("history-supported", 1)
    ]
    assert _turn(result, "c-ranking", 3).rewritten_query is None  # the message itself
    assert result.mismatches == {}


TOOL_FILES = [
    "turns.jsonl",
    "deepeval_conversations.json",
    "ragas_multiturn.jsonl",
    "langchain_sessions.jsonl",
    "langchain_sessions_otlp.json",
]


@pytest.fixture(scope="module")
def every_file():
    return {name: _run(HERE / name, HERE) for name in TOOL_FILES}


@pytest.mark.parametrize("name", TOOL_FILES)
def test_an_unanswerable_follow_up_the_answer_abstains_on_passes(every_file, name):
    turn = _turn(every_file[name], "c-abstain", 2)
    assert turn.case.answerable is False
    assert turn.case.judge is not None and turn.case.judge.outcome.value == "abstained"
    assert turn.label.value == "pass" and "abstained" in turn.reason


@pytest.mark.parametrize("name", TOOL_FILES)
def test_a_turn_that_ran_no_retrieval_is_decided_by_the_history_both_ways(every_file, name):
    result = every_file[name]
    recall = _turn(result, "c-recall", 2)  # repeats what turn 1 grounded in its passage
    assert recall.case.retrieved_ids == [] and recall.case.answerable is True
    assert recall.case.label.value == "retrieval"  # the single-turn rule alone
    assert recall.label.value == "pass" and "ran no retrieval" in recall.reason
    assert [(h.source, h.turn) for h in recall.history] == [("history-supported", 1)]
    repeat = _turn(result, "c-repeat", 2)  # repeats turn 1's port, which no passage holds
    assert repeat.case.retrieved_ids == []
    assert repeat.label.value == "generation" and "'Port 8080.'" in repeat.reason
    assert [(h.source, h.turn) for h in repeat.history] == [("ungrounded-history", 1)]


def _spans(name: str) -> list[dict]:
    return [json.loads(line) for line in (HERE / name).read_text().splitlines()]


def _write(path: Path, spans: list[dict]) -> Path:
    path.write_text("".join(json.dumps(s) + "\n" for s in spans))
    return path


def test_span_turns_follow_the_turn_numbers_the_app_set_in_metadata(tmp_path):
    spans = _spans("langchain_sessions.jsonl")
    assert all('"turn"' in s["attributes"]["metadata"] for s in spans)
    for span in spans:  # times that would order the turns backwards
        span["start_time"] = "2020-01-01T00:00:00Z" if '"turn": 2' in span["attributes"][
            "metadata"] else "2030-01-01T00:00:00Z"  # fmt: skip
    result = _run(_write(tmp_path / "spans.jsonl", spans[::-1]), HERE)
    assert {c.conversation_id: [x.value for x in c.labels] for c in result.conversations} == LABELS


def test_span_turns_without_turn_numbers_follow_parsed_start_times(tmp_path):
    """Issue 52: start times written with different UTC offsets are instants, not text:
    "15:00+02:00" (13:00 UTC) is before "14:00Z"."""
    from datetime import datetime, timedelta, timezone

    spans = _spans("langchain_sessions.jsonl")
    plus_two = timezone(timedelta(hours=2))
    for n, span in enumerate(spans):
        meta = json.loads(span["attributes"]["metadata"])
        meta.pop("turn")
        span["attributes"]["metadata"] = json.dumps(meta)
        if n % 2:  # the same instant, written at UTC+2: as text it sorts after every Z time
            at = datetime.fromisoformat(span["start_time"].replace("Z", "+00:00"))
            span["start_time"] = at.astimezone(plus_two).isoformat()
    result = _run(_write(tmp_path / "spans.jsonl", spans[::-1]), HERE)
    assert {c.conversation_id: [x.value for x in c.labels] for c in result.conversations} == LABELS


def test_a_turn_traced_as_a_bare_llm_call_is_still_a_turn(tmp_path):
    """An app that answers a follow-up with one model call and no chain: the trace is the
    LLM span alone; the user's message is its last user input message."""
    spans = _spans("langchain_sessions.jsonl")
    kinds = {(s["attributes"].get("session.id"), s["attributes"].get("openinference.span.kind"))
             for s in spans}  # fmt: skip
    assert ("c-recall", "RETRIEVER") in kinds
    recall = {
        s["context"]["trace_id"]
        for s in spans
        if s["attributes"].get("session.id") == "c-recall"
        and s["attributes"].get("openinference.span.kind") == "RETRIEVER"
    }
    kept = []
    for span in spans:
        attrs = span["attributes"]
        if attrs.get("session.id") != "c-recall" or span["context"]["trace_id"] in recall:
            kept.append(span)
        elif attrs.get("openinference.span.kind") == "LLM":
            kept.append({**span, "parent_id": None})
    result = _run(_write(tmp_path / "spans.jsonl", kept), HERE)
    turn = _turn(result, "c-recall", 2)
    assert turn.label.value == "pass" and turn.case.retrieved_ids == []
    assert [h.turn for h in turn.history] == [1]


def test_passages_known_by_text_get_their_corpus_ids():
    result = _run(HERE / "deepeval_conversations.json", HERE)
    assert _turn(result, "c-history", 1).case.retrieved_ids == ["snapshots", "n4-300-specs"]
    assert any("given the corpus id of the same text" in w.text for w in result.warnings)


def test_spans_without_a_session_are_refused(tmp_path):
    lines = (HERE / "langchain_sessions.jsonl").read_text().splitlines()
    spans = [json.loads(line) for line in lines]
    for span in spans:
        span["attributes"].pop("session.id", None)
    path = tmp_path / "spans.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in spans))
    with pytest.raises(InputError, match="session.id"):
        _run(path, HERE)


def test_a_traced_conversation_matching_no_golden_one_is_set_aside_and_said(tmp_path):
    lines = (HERE / "ragas_multiturn.jsonl").read_text().splitlines()
    samples = [json.loads(line) for line in lines]
    samples[0]["user_input"][0]["content"] = "Something nobody asked?"
    path = tmp_path / "ragas.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in samples))
    result = _run(path, HERE)
    assert any(
        w.code == "reader" and "1 traced conversations match no golden conversation" in w.text
        for w in result.warnings
    )
    assert [t.label.value for t in result.turns if t.conversation_id == "c-rewrite"] == [
        "unscored",
        "unscored",
    ]


# the conversation rows of the conformance table (docs/reference/formats.md, written by
# scripts/make_reference.py): (file, tool, export call, what reaches the generator)
SOURCES = [
    ("turns.jsonl", "ragtriage", "conversation turns JSONL", "as listed (`context_ids`)"),
    ("deepeval_conversations.json", "deepeval 4.3.1",
     'EvaluationDataset.save_as("json", include_test_cases=True)',
     "the `retrieval_context` (no `ranking` label can arise)"),
    ("ragas_multiturn.jsonl", "ragas 0.4.3", "EvaluationDataset.to_jsonl (MultiTurnSample)",
     "the tool message's passages (no `ranking` label can arise)"),
    ("langchain_sessions.jsonl", "openinference-instrumentation-langchain 0.1.80, "
     "langchain 0.3.30, opentelemetry-sdk 1.45.2", "span.to_json(), one a line, by session.id",
     "the top `--context-k`"),
    ("langchain_sessions_otlp.json", "openinference-instrumentation-langchain 0.1.80, "
     "langchain 0.3.30, opentelemetry-sdk 1.45.2",
     "OTLP/JSON (encode_spans + MessageToDict), by session.id", "the top `--context-k`"),
]  # fmt: skip


def conversation_table() -> str:
    """The conversation rows of the formats page, from what the readers take."""
    head = (
        "\n## Conversations (`ragtriage conversations`)\n\n"
        "Generated by `tests/flows/test_conversations.py` from the fixtures in\n"
        "`tests/fixtures/conversations/` (each written by the tool named, with the script\n"
        "beside it). *Labels*: whether the audit (`--judge lexical`) gives every turn the\n"
        "label it was built with (README beside the fixtures).\n\n"
        "| file | tool | export call | read as | conversations | ids | rewritten query "
        "| passed to the generator | labels |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
    )
    rows = []
    for name, tool, call, context in SOURCES:
        result = _run(HERE / name, HERE)
        labels = {c.conversation_id: [x.value for x in c.labels] for c in result.conversations}
        want = WITHOUT_RANKING if "no `ranking`" in context else LABELS
        by_text = any("given the corpus id of the same text" in w.text for w in result.warnings)
        ids = "by text, from the corpus (counted)" if by_text else "yes"
        rewrites = "logged" if any(t.rewritten_query for t in result.turns) else "none"
        traced = {t.conversation_id for t in result.turns if t.case.label.value != "unscored"}
        matched = len(traced)
        by = "by id" if name in ("turns.jsonl", "langchain_sessions.jsonl",
                                 "langchain_sessions_otlp.json",
                                 "deepeval_conversations.json") else "by user messages"  # fmt: skip
        rows.append(
            f"| `{name}` | {tool} | `{call}` | `{result.traces.format}` | {matched} of "
            f"{len(result.conversations)} ({by}) | {ids} | {rewrites} | {context} "
            f"| {'as built' if labels == want else 'DIFFERENT'} |\n"
        )
    return head + "".join(rows)


DEMO = Path(__file__).resolve().parents[2] / "golden_sets" / "handbook"
DEMO_LABELS = {
    "hc-snapshots": ["pass", "pass", "pass"],
    "hc-e1042": ["pass", "rewrite"],
    "hc-n8": ["pass", "pass", "pass"],
    "hc-backup": ["pass", "generation", "generation"],
    "hc-password": ["ranking", "pass"],
    "hc-updates": ["pass", "pass", "pass"],
}


def test_the_demo_conversations_audit_offline_with_the_embedded_defaults(tmp_path):
    """The shipped judge (embedded, its shipped calibration's rule reads no model signal,
    so no model is loaded) on the handbook's conversations, as the README runs them."""
    result = conversations_flow.run(
        ConversationsConfig(golden=DEMO, traces=DEMO / "conversation_traces.jsonl",
                            cache=tmp_path / "cache.sqlite")
    )  # fmt: skip
    assert result.calibration.model_consulted is False
    got = {c.conversation_id: [x.value for x in c.labels] for c in result.conversations}
    assert got == DEMO_LABELS
    assert [(h.source, h.turn) for h in _turn(result, "hc-n8", 3).history] == [
        ("history-supported", 1)
    ]
    assert _turn(result, "hc-n8", 3).judged_with_history is True


def test_an_earlier_answer_never_vetoes_what_the_passages_support(tmp_path):
    """hc-snapshots turn 2 ("so it does not support snapshots") is faithful to its
    passages; judged with turn 1's answer ("the N4-300 and N8-900 support snapshots")
    in context the fact check reads a contradiction. The passages come first."""
    result = _run(DEMO / "conversation_traces.jsonl", DEMO)
    turn = _turn(result, "hc-snapshots", 2)
    assert turn.label.value == "pass" and turn.judged_with_history is False
    assert turn.case.judge is not None and turn.case.judge.signals["contradictions"] == 0


def _claims_judge():
    """A claims judge that supports a claim from the first chunk whose text holds three
    quarters of its words, citing that chunk: history chunks come after the passages, so it cites
    history only when no passage has the words; the invented part FM-99 is in no
    passage and, by the history rule, in no admissible history either."""
    import re

    from ragtriage.llm.base import ModelResponse
    from tests.support.fakes import ScriptedModel

    def script(request, _number):
        text = "\n".join(m.content for m in request.messages)
        chunks = re.findall(r'<chunk id="([^"]+)">\n(.*?)\n</chunk>', text, flags=re.S)
        answer = re.search(r"<answer>\n(.*?)\n</answer>", text, flags=re.S).group(1)
        words = [w for w in re.findall(r"[\w-]+", answer.lower()) if len(w) > 3
                 and w not in ("your", "that", "have", "which")]  # fmt: skip
        cited = [cid for cid, body in chunks
                 if sum(w in body.lower() for w in words) >= 0.75 * len(words)]  # fmt: skip
        verdict = "supported" if cited else "not_in_context"
        out = {"kind": "claims", "claims": [{"claim": answer, "verdict": verdict,
                                             "chunk_ids": cited[:1]}]}  # fmt: skip
        return ModelResponse(text=json.dumps(out), prompt_tokens=10, completion_tokens=10)

    return ScriptedModel(script)


def test_the_claims_judge_reads_the_history_too(tmp_path):
    result = conversations_flow.run(ConversationsConfig(
        golden=HERE, traces=HERE / "turns.jsonl", judge=_claims_judge(),
        cache=tmp_path / "cache.sqlite",
    ))  # fmt: skip
    assert result.judge_fingerprint.judge == "claims"
    follow_up = _turn(result, "c-history", 3)
    assert follow_up.label.value == "pass" and follow_up.judged_with_history
    assert [(h.source, h.turn) for h in follow_up.history] == [("history-supported", 1)]
    assert follow_up.case.judge.claims[0].chunk_ids == ["history:user:1"]
    repeated = _turn(result, "c-ungrounded", 3)
    assert repeated.label.value == "generation"
    assert not any(c.startswith("history:answer") for c in repeated.case.judge.claims[0].chunk_ids)
    assert result.config.judge == "fake/model"
