"""The conversation files the libraries write besides JSON, read right (issue 53 item 4):
CSV (DeepEval's ``save_as("csv")``, ragas' ``to_csv`` with the message lists as Python
reprs), Parquet and an HF ``save_to_disk`` folder were refused with "invalid JSON" or "not
valid UTF-8". Each holds the same four conversations as its JSON twin
(``make_file_fixtures.py`` wrote them with DeepEval 4.3.1 and ragas 0.4.3); and a file
with no readable retrieval leads its report with MEANINGLESS, not "retrieval 17"."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragtriage.data.conversation_traces import read_conversation_traces
from ragtriage.data.conversations import load_conversation_golden
from ragtriage.flows import conversations as conversations_flow
from ragtriage.flows.conversations import ConversationsConfig
from ragtriage.render.conversations import headline

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "conversations"
GOLDEN = HERE / "conversations.jsonl"


def _turns(path: Path) -> list[tuple]:
    read = read_conversation_traces(path, 3, load_conversation_golden(GOLDEN))
    return [
        (t.trace.query_id, t.trace.answer, [c.id for c in t.trace.retrieved]) for t in read.turns
    ], read.format


@pytest.mark.parametrize(
    ("written", "twin"),
    [
        ("deepeval_conversations.csv", "deepeval_conversations.json"),
        ("ragas_multiturn.csv", "ragas_multiturn.jsonl"),
        ("ragas_multiturn.parquet", "ragas_multiturn.jsonl"),
        ("ragas_multiturn_hf", "ragas_multiturn.jsonl"),
    ],
)
def test_each_file_reads_as_its_json_twin(written, twin):
    turns, fmt = _turns(HERE / written)
    assert (turns, fmt) == _turns(HERE / twin)
    assert len(turns) > 10  # the conversations of the fixtures, every turn


def test_a_file_with_no_readable_retrieval_is_meaningless_not_retrieval_failures():
    result = conversations_flow.run(
        ConversationsConfig(golden=GOLDEN, traces=HERE / "ragas_no_retrieval.jsonl",
                            judge="lexical", cache=None)
    )  # fmt: skip
    assert "nothing_retrieved" in result.meaningless
    assert headline(result).startswith("MEANINGLESS: none of the")


def test_turns_whose_ids_all_miss_the_corpus_are_meaningless(tmp_path):
    import json

    rows = [json.loads(line) for line in (HERE / "turns.jsonl").read_text().splitlines()]
    for row in rows:
        row["retrieved"] = [f"other-{c}" if isinstance(c, str) else {**c, "id": f"other-{c['id']}"}
                            for c in row["retrieved"]]  # fmt: skip
        row.pop("context_ids", None)
    traces = tmp_path / "turns.jsonl"
    traces.write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = conversations_flow.run(
        ConversationsConfig(golden=GOLDEN, traces=traces, judge="lexical", cache=None)
    )
    assert "trace_ids_not_in_corpus" in result.meaningless
    assert headline(result).startswith("MEANINGLESS:")


def test_a_single_turn_file_is_refused_naming_what_it_is(tmp_path):
    from ragtriage.errors import InputError

    table = tmp_path / "deepeval.csv"  # DeepEval's single-turn save_as("csv") columns
    table.write_text("input,actual_output,retrieval_context\nq,a,\"['x']\"\n")
    with pytest.raises(InputError, match="DeepEval single-turn dataset.*audit --traces"):
        read_conversation_traces(table, 3, load_conversation_golden(GOLDEN))


@pytest.mark.parametrize("name", ["ragas_texts.jsonl", "ragas_texts.csv"])
def test_a_ragas_single_turn_file_is_refused_naming_what_it_is(name):
    """Its ``user_input`` (the question's text) was taken for a multi-turn sample's list
    of messages: "field 'user_input': expected list, got str" (docs/conversations.md)."""
    from ragtriage.errors import InputError

    ragas_texts = HERE.parent / "users" / name
    with pytest.raises(InputError) as info:
        read_conversation_traces(ragas_texts, 3, load_conversation_golden(GOLDEN))
    assert str(info.value).endswith(
        "this is a ragas single-turn dataset, one answer per question, not conversations: "
        "give it to audit --traces (with the golden set of its questions)"
    )


@pytest.mark.parametrize("name", ["deepeval_conversations.json", "ragas_multiturn.jsonl"])
def test_every_passage_deepeval_and_ragas_give_is_the_context(name):
    """DeepEval's retrieval_context and ragas' tool passages are what the generator read, as
    docs/conversations.md says: with --context-k 1 the context was cut to the first, so a
    golden passage the model read second was labelled ``ranking``."""
    read = read_conversation_traces(HERE / name, 1, load_conversation_golden(GOLDEN))
    assert any(len(t.trace.retrieved) > 1 for t in read.turns)
    for t in read.turns:
        assert t.trace.context_ids == [c.id for c in t.trace.retrieved]
