"""Fuzz of both pages' save endpoints (hypothesis over bodies, sent as a hostile client
would: lone surrogates, NaN and infinities, strings for booleans, wrong types, junk bytes,
deep nesting, stale and odd versions). After every answer: never a 5xx, and the output
and session files parse and hold exactly the marks the server acknowledged (a refused
save left nothing behind, an acknowledged one is all there).

``FUZZ_EXAMPLES`` (default 60 per page) bounds the run for CI on 2 cores."""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from ragtriage.annotate.app import make_app
from ragtriage.annotate.golden import GoldenTask, is_labelled, render_golden
from ragtriage.annotate.grades import GradesTask, overall, render_grades
from ragtriage.annotate.pool import Corpus
from ragtriage.annotate.store import SessionStore, session_path
from ragtriage.data.golden import load_chunks

from .test_saves import CORPUS, PORT, TOKEN, client, golden_session, grades_session

SETTINGS = settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
STATUSES: Counter[int] = Counter()
FIELDS = Counter()  # what the fuzz reached, checked by the last test
CHUNK_IDS = ["n4-300-specs", "err-e1042", "nas-overview", "no-such-chunk"]

# text as a page (or an attacker) may send it: lone surrogates and NULs included
ODD = st.sampled_from(["\ud83d", "\udc00", "\x00", "😀", "\u2028"])
TEXT = st.one_of(
    st.text(max_size=30),
    st.text(max_size=30),
    st.text(st.one_of(st.characters(), ODD), max_size=30),
)
ATOM = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 6),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
    st.sampled_from(["true", "false", "0", "1", "supported"]),
)
JUNK = st.recursive(
    ATOM,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)),
    max_leaves=8,
)


def rarely(common: st.SearchStrategy, rare: st.SearchStrategy) -> st.SearchStrategy:
    """``rare`` one draw in eight (hypothesis weighs the branches of one_of alike, and
    favours a range's ends: the rare branch is a middle value)."""
    return st.integers(0, 7).flatmap(lambda i: rare if i == 3 else common)


def maybe(valid: st.SearchStrategy) -> st.SearchStrategy:
    """Mostly a valid value, sometimes anything (a body with one bad field of five is
    refused whole, so junk stays rare enough for most bodies to be saved)."""
    return rarely(valid, JUNK)


GOLDEN_RECORD = rarely(
    st.one_of(
        st.fixed_dictionaries(
            {},
            optional={
                "relevance": maybe(
                    st.dictionaries(
                        st.one_of(*[st.sampled_from(CHUNK_IDS)] * 6, TEXT),
                        maybe(st.integers(-1, 4)),
                    )
                ),
                "unanswerable": maybe(st.booleans()),
                "skipped": maybe(st.booleans()),
                "tags": maybe(st.lists(TEXT, max_size=4)),
                "note": maybe(TEXT),
                "reference_answer": maybe(TEXT),
                "added": maybe(st.lists(st.sampled_from(CHUNK_IDS), max_size=3)),
            },
        ),
        st.fixed_dictionaries({}),  # an empty mark: every field its empty value
    ),
    JUNK,
)
VERDICT = st.sampled_from([None, "supported", "unsupported", "unsure"])
GRADES_RECORD = rarely(
    st.one_of(
        st.fixed_dictionaries(
            {},
            optional={
                "sentences": maybe(st.lists(maybe(VERDICT), min_size=2, max_size=2)),
                "label": maybe(st.none() | st.booleans()),
                "answers": maybe(st.none() | st.booleans()),
                "note": maybe(TEXT),
            },
        ),
        st.fixed_dictionaries({}),  # an empty mark: every field its empty value
    ),
    JUNK,
)
VERSION = rarely(st.just("current"), st.one_of(st.just("stale"), JUNK))


def bodies(record: st.SearchStrategy) -> st.SearchStrategy:
    structured = st.fixed_dictionaries(
        {"record": record, "version": VERSION},
        optional={"seconds": maybe(st.floats(0, 100))},
    )
    raw = st.one_of(
        st.binary(max_size=40),
        st.integers(1, 5000).map(lambda n: b'{"record":' + b"[" * n + b"]" * n + b"}"),
        JUNK.map(lambda v: json.dumps(v).encode()),
    )
    return rarely(structured, raw)


def actions(record: st.SearchStrategy, items: int) -> st.SearchStrategy:
    return st.lists(st.tuples(st.integers(0, items - 1), bodies(record)), min_size=1, max_size=6)


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus(load_chunks(CORPUS))


def _send(http: TestClient, index: int, body: Any, versions: dict[int, int]):
    if isinstance(body, bytes):
        data = body
    else:
        body = dict(body)
        if body["version"] == "current":
            body["version"] = versions.get(index, 0)
        elif body["version"] == "stale":  # another tab saved meanwhile
            body["version"] = versions.get(index, 0) + 1
        data = json.dumps(body).encode()  # lone surrogates as \ud83d, NaN as NaN
    headers = {"content-type": "application/json"}
    return http.post(f"/api/item/{index}", content=data, headers=headers)


def _files(store: SessionStore) -> tuple[list[dict], dict]:
    rows = [json.loads(line) for line in store.output.read_text("utf-8").split("\n") if line]
    return rows, json.loads(session_path(store.output).read_text("utf-8"))


def _run(make_task, steps, check_rows) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        task = make_task(Path(tmp))
        http = client(make_app(task, TOKEN, "127.0.0.1", PORT))
        acknowledged: dict[str, dict] = {}
        versions: dict[int, int] = {}
        try:
            for index, body in steps:
                answer = _send(http, index, body, versions)
                assert answer.status_code < 500, (body, answer.text)
                STATUSES[answer.status_code] += 1
                if answer.status_code == 200:
                    item_id = _item_id(task, index)
                    acknowledged[item_id] = answer.json()["record"]
                    versions[index] = answer.json()["version"]
                rows, session = _files(task.store)
                assert session["records"] == acknowledged
                check_rows(rows, acknowledged)
                assert http.get("/api/state").status_code == 200
        finally:
            task.store.close()


def _item_id(task, index: int) -> str:
    return task.sample[index].id if isinstance(task, GoldenTask) else task.items[index]["id"]


@SETTINGS
@given(steps=actions(GOLDEN_RECORD, 2))
def test_golden_saves_never_fail_the_server_and_the_files_hold_what_was_acknowledged(corpus, steps):
    def make(tmp: Path) -> GoldenTask:
        store = SessionStore(tmp / "golden.jsonl", render_golden)
        store.start(golden_session())
        return GoldenTask(store, corpus, {}, "check")

    def check(rows: list[dict], acknowledged: dict[str, dict]) -> None:
        labelled = [q["id"] for q in golden_session()["sample"]
                    if is_labelled(acknowledged.get(q["id"], {}))]  # fmt: skip
        assert [r["id"] for r in rows] == labelled
        for row in rows:
            record = acknowledged[row["id"]]
            relevant = [d for d, g in record["relevance"].items() if g >= 1]
            assert row["expected"] == ([] if record["unanswerable"] else relevant)
            assert row.get("notes", "") == record["note"]

    _run(make, steps, check)


@SETTINGS
@given(steps=actions(GRADES_RECORD, 1))
def test_grades_saves_never_fail_the_server_and_the_files_hold_what_was_acknowledged(steps):
    def make(tmp: Path) -> GradesTask:
        store = SessionStore(tmp / "grades.jsonl", render_grades)
        store.start(grades_session())
        return GradesTask(store, "calibrate")

    def check(rows: list[dict], acknowledged: dict[str, dict]) -> None:
        record = acknowledged.get("c1", {})
        label = overall(record, 2)
        assert [r["label"] for r in rows] == ([] if label is None else [label])
        for row in rows:
            assert [s["verdict"] for s in row["sentences"]] == record["sentences"]
            assert row["notes"] == record["note"]

    _run(make, steps, check)


def test_the_fuzz_reached_saves_refusals_and_conflicts():
    """Run after the two above (file order): a fuzz that only ever drew refused bodies
    would check nothing about acknowledged marks."""
    assert {200, 400, 409} <= set(STATUSES), STATUSES
    assert STATUSES[200] >= sum(STATUSES.values()) / 5, STATUSES
