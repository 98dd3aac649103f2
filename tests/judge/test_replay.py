"""The embedded judge replayed from its committed recording: no model, no network.

The recording and the results were produced together by a real run of the embedded
model (``benchmarks/judge_calibration_run.py``); replaying the shipped sample must
reproduce the recorded results exactly, which also proves that request construction
(prompt, evidence selection, sentence choice) and cache keys are unchanged.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from ragtriage.judge.api import ajudge_run
from ragtriage.judge.items import load_answers
from ragtriage.judge.types import JudgeResult, Outcome
from ragtriage.llm.replay import ReplayModel

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "judge"
RECORDING = FIXTURES / "embedded_calibration_recording.jsonl"
RESULTS = FIXTURES / "embedded_calibration_results.jsonl"
SAMPLE = FIXTURES / "calibration_sample20.jsonl"


def _recorded() -> dict[str, JudgeResult]:
    rows = (JudgeResult.model_validate_json(line) for line in RESULTS.read_text().splitlines())
    return {r.item_id: r for r in rows}


@pytest.fixture(scope="module")
def replayed():
    model = ReplayModel.load(RECORDING)
    run = asyncio.run(ajudge_run(load_answers(SAMPLE), model=model, cache=None))
    return model, run


def test_replay_reproduces_the_recorded_results(replayed):
    _, run = replayed
    recorded = _recorded()
    assert len(run.results) == 20
    for result in run.results:
        expected = recorded[result.item_id]
        assert result.outcome == expected.outcome
        assert result.score == pytest.approx(expected.score)
        assert result.signals == pytest.approx(expected.signals)
        assert result.fingerprint == expected.fingerprint


def test_replay_makes_no_unrecorded_call(replayed):
    model, run = replayed
    assert all(r.outcome != Outcome.UNSCORED for r in run.results)
    assert model.calls == run.usage.calls > 0


def test_recorded_results_cover_the_calibration_set():
    rows = [json.loads(line) for line in RESULTS.read_text().splitlines()]
    assert len(rows) == 300 and len({r["item_id"] for r in rows}) == 300
    assert {r["outcome"] for r in rows} <= {o.value for o in Outcome}
    assert all("lexical" in r["signals"] for r in rows if r["outcome"] == "scored")
    assert all(r["score"] is None for r in rows if r["outcome"] != "scored")


def test_unrecorded_request_is_unscored_not_invented():
    model = ReplayModel.load(RECORDING)
    item = {
        "id": "new",
        "question": "q",
        "contexts": ["Never recorded context."],
        "answer": "A sentence nobody recorded.",
    }
    run = asyncio.run(ajudge_run([item], model=model, cache=None))
    assert run.results[0].outcome == Outcome.UNSCORED
    assert "no recorded response" in run.results[0].reason


def test_seeded_cache_makes_the_real_model_free(tmp_path):
    """Seed a cache from the recording; the embedded model then makes zero calls."""
    from ragtriage.llm.cache import ResponseCache
    from ragtriage.llm.local import LocalModel
    from ragtriage.llm.replay import seed_cache

    cache = ResponseCache(tmp_path / "c.sqlite")
    assert seed_cache(RECORDING, cache) == len(RECORDING.read_text().splitlines()) - 1
    model = LocalModel()  # never loaded: every request is a cache hit
    run = asyncio.run(ajudge_run(load_answers(SAMPLE), model=model, cache=cache))
    assert run.usage.calls == 0 and run.usage.cached_calls > 20
    assert model.worker_pid is None  # never started
    recorded = _recorded()
    assert all(r.score == pytest.approx(recorded[r.item_id].score) for r in run.results)
