"""The save endpoints attacked from outside, in process (Starlette's test client on the real
app, store and files): each defect of issue 40 as a test. A refused or failed save
changes nothing, in memory or on disk, and the next save on the same version works."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import ragtriage.annotate.store as store_module
from ragtriage.annotate.app import HEADER, MAX_BODY, cookie_name, make_app
from ragtriage.annotate.golden import GoldenTask, render_golden
from ragtriage.annotate.grades import GradesTask, render_grades
from ragtriage.annotate.pool import Corpus
from ragtriage.annotate.store import SessionStore, session_path
from ragtriage.data.golden import load_chunks
from ragtriage.errors import InputError
from tests.conftest import ROOT

CORPUS = ROOT / "golden_sets" / "handbook" / "corpus.jsonl"
TOKEN = "t" * 43
PORT = 8790
QUERIES = [
    {"id": "q1", "text": "How many drive bays does the N4-300 have?"},
    {"id": "q2", "text": "what does E1042 mean"},
]


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    return Corpus(load_chunks(CORPUS))


def golden_session() -> dict[str, Any]:
    return {
        "kind": "golden",
        "queries": {"source": "q.txt"},
        "sample": [dict(q) for q in QUERIES],
        "options": {"graded": False},
    }


def grades_session() -> dict[str, Any]:
    item = {
        "id": "c1", "question": "q", "contexts": ["The N4-300 has four drive bays."],
        "context_ids": ["n4-300-specs"], "answer": "It has four bays. It is blue.",
        "sentences": ["It has four bays.", "It is blue."], "evidence": [None, None],
    }  # fmt: skip
    return {
        "kind": "grades",
        "items": [item],
        "options": {"grader": "ana"},
        "audit": {"id": "a", "sha256": "abc"},
        "sample": {"seed": 1, "population": 1},
    }


def golden_app(tmp: Path, corpus: Corpus, host: str = "127.0.0.1"):
    store = SessionStore(tmp / "golden.jsonl", render_golden)
    store.start(golden_session())
    task = GoldenTask(store, corpus, {}, "ragtriage golden check")
    return task, make_app(task, TOKEN, host, PORT)


def grades_app(tmp: Path):
    store = SessionStore(tmp / "grades.jsonl", render_grades)
    store.start(grades_session())
    task = GradesTask(store, "ragtriage calibrate")
    return task, make_app(task, TOKEN, "127.0.0.1", PORT)


def client(app) -> TestClient:
    headers = {HEADER: TOKEN, "host": f"127.0.0.1:{PORT}"}
    return TestClient(app, base_url=f"http://127.0.0.1:{PORT}", headers=headers)


def post(http: TestClient, index: int, body: Any, raw: bytes | None = None):
    data = raw if raw is not None else json.dumps(body).encode()
    return http.post(
        f"/api/item/{index}", content=data, headers={"content-type": "application/json"}
    )


def on_disk(store: SessionStore) -> tuple[str, dict]:
    return store.output.read_text(), json.loads(session_path(store.output).read_text())


MARK = {"relevance": {"n4-300-specs": 1}, "note": "ok"}


def test_a_half_emoji_is_refused_naming_the_field_and_poisons_nothing(tmp_path, corpus):
    task, app = golden_app(tmp_path, corpus)
    http = client(app)
    before = on_disk(task.store)
    # what JSON.stringify sends for a paste that cut an emoji in half
    raw = b'{"record":{"relevance":{"n4-300-specs":1},"note":"half \\ud83d"},"version":0}'
    answer = post(http, 0, None, raw)
    assert answer.status_code == 400
    assert answer.json()["field"] == "record.note" and "not saved" in answer.json()["error"]
    assert on_disk(task.store) == before  # nothing written
    assert http.get("/api/item/0").json()["version"] == 0  # nothing kept in memory
    assert http.get("/api/item/0").json()["record"] == {}
    for field in ("tags", "added"):  # any text field, in a list too
        body = {"record": {field: ["x\udc00"]}, "version": 0}
        assert post(http, 0, body).json()["field"] == f"record.{field}"
    # the retry on the same version is saved (not a 409), and so is every other item
    assert post(http, 0, {"record": MARK, "version": 0}).status_code == 200
    assert post(http, 1, {"record": {"unanswerable": True}, "version": 0}).status_code == 200
    assert http.get("/api/state").status_code == 200
    rows = [json.loads(line) for line in task.store.output.read_text().split("\n") if line]
    assert [(r["id"], r["expected"], r.get("notes")) for r in rows] == [
        ("q1", ["n4-300-specs"], "ok"),
        ("q2", [], None),
    ]


def test_a_failed_write_changes_nothing_and_the_retry_is_saved(tmp_path, corpus, monkeypatch):
    task, app = golden_app(tmp_path, corpus)
    http = client(app)
    before = on_disk(task.store)

    def full(files):
        raise InputError("cannot write: No space left on device", path=next(iter(files)))

    monkeypatch.setattr(store_module, "write_atomic_set", full)
    answer = post(http, 0, {"record": MARK, "version": 0})
    assert answer.status_code == 503
    assert (
        answer.json()["error"].startswith("not saved: ")
        and "No space left" in answer.json()["error"]
    )
    item = http.get("/api/item/0").json()
    assert (item["record"], item["version"]) == ({}, 0)  # not remembered as saved
    assert post(http, 0, {"record": MARK, "version": 0}).status_code == 503
    assert on_disk(task.store) == before
    monkeypatch.undo()
    answer = post(http, 0, {"record": MARK, "version": 0})  # the same version: no 409
    assert answer.status_code == 200 and answer.json()["version"] == 1
    assert "n4-300-specs" in task.store.output.read_text()


def test_non_finite_numbers_are_refused_and_an_old_null_is_survived(tmp_path, corpus):
    task, app = golden_app(tmp_path, corpus)
    http = client(app)
    for raw, field in (
        (b'{"record":{},"seconds":NaN,"version":0}', "seconds"),
        (b'{"record":{},"seconds":Infinity,"version":0}', "seconds"),
        (b'{"record":{},"seconds":1e999,"version":0}', "seconds"),
        (b'{"record":{"relevance":{"n4-300-specs":NaN}},"version":0}',
         "record.relevance.n4-300-specs"),
        (b'{"record":{},"version":NaN}', "version"),
    ):  # fmt: skip
        answer = post(http, 0, None, raw)
        assert (answer.status_code, answer.json()["field"]) == (400, field), raw
    assert http.get("/api/state").status_code == 200  # the page still starts
    # a session an older version wrote NaN into (orjson wrote null) takes saves again
    task.store.data["records"]["q1"] = {"seconds": None}
    answer = post(http, 0, {"record": MARK, "seconds": 5, "version": 0})
    assert answer.status_code == 200 and answer.json()["record"]["seconds"] == 5.0


def test_too_many_or_too_long_values_and_too_big_a_body_are_refused(tmp_path, corpus):
    task, app = golden_app(tmp_path, corpus)
    http = client(app)
    for record, field in (
        ({"tags": ["t"] * 51}, "record.tags"),
        ({"tags": ["t" * 101]}, "record.tags"),
        ({"added": ["x"] * 1001}, "record.added"),
        ({"note": "n" * 20_001}, "record.note"),
        ({"reference_answer": 5}, "record.reference_answer"),
    ):
        answer = post(http, 0, {"record": record, "version": 0})
        assert (answer.status_code, answer.json()["field"]) == (400, field)
    huge = {"record": {"tags": ["x" * 90] * 40, "note": "n" * MAX_BODY}, "version": 0}
    assert post(http, 0, huge).status_code == 413
    assert task.store.data["records"] == {}


def test_strings_are_not_booleans(tmp_path, corpus):
    task, app = golden_app(tmp_path, corpus)
    http = client(app)
    for field, value in (("unanswerable", "false"), ("skipped", "false"), ("skipped", 0)):
        answer = post(http, 0, {"record": {field: value}, "version": 0})
        assert (answer.status_code, answer.json()["field"]) == (400, f"record.{field}")
    assert task.store.data["records"] == {}
    _, grades = grades_app(tmp_path)
    answer = post(client(grades), 0, {"record": {"label": "false"}, "version": 0})
    assert (answer.status_code, answer.json()["field"]) == (400, "record.label")


def test_bad_bodies_are_400_not_500(tmp_path, corpus):
    task, app = golden_app(tmp_path, corpus)
    http = client(app)
    deep = b'{"record":' + b"[" * 100_000 + b"]" * 100_000 + b',"version":0}'
    assert post(http, 0, None, deep).status_code == 400
    assert post(http, 0, None, b"\xff\xfe not utf-8").status_code == 400
    assert post(http, 0, None, b"[1]").status_code == 400
    assert post(http, 0, {"record": [], "version": 0}).status_code == 400
    assert http.post("/api/item/0x1", json={}).status_code == 404
    assert http.post("/api/item/\u0661", json={}).status_code == 404  # an Arabic digit one
    _, grades = grades_app(tmp_path)
    http = client(grades)
    for verdicts, field in (
        ([[1], None], "record.sentences.0"),
        ([None, {}], "record.sentences.1"),
    ):
        answer = post(http, 0, {"record": {"sentences": verdicts}, "version": 0})
        assert (answer.status_code, answer.json()["field"]) == (400, field)


def test_host_and_origin_are_allowlisted_and_redirects_stay_on_the_host(tmp_path, corpus):
    _, app = golden_app(tmp_path, corpus)
    http = client(app)
    for host in ("127.0.0.1:8790", "localhost:8790", "[::1]:8790", "127.0.0.1"):
        assert http.get("/api/state", headers={"host": host}).status_code == 200, host
    for host in ("evil.example", "evil.example:8790", "127.0.0.1:9999", "127.0.0.1.evil:8790",
                 "x@127.0.0.1:8790", "127.0.0.1:port"):  # fmt: skip
        assert http.get("/api/state", headers={"host": host}).status_code == 403, host
    for origin, status in (
        ("http://127.0.0.1:8790", 200),
        ("http://localhost:8790", 200),
        ("http://evil.example", 403),
        ("http://127.0.0.1:9999", 403),
        ("null", 403),
        ("https://127.0.0.1:8790", 403),
    ):
        answer = http.post("/api/move/0", headers={"origin": origin})
        assert answer.status_code == status, origin
    redirect = http.get("/static", follow_redirects=False)
    assert redirect.status_code in (301, 307) and redirect.headers["location"] == "/static/"
    # the --host given is allowed too, and only that one besides the loopback names
    _, lan = golden_app(tmp_path / "lan", corpus, host="192.168.7.9")
    http = client(lan)
    assert http.get("/api/state", headers={"host": "192.168.7.9:8790"}).status_code == 200
    assert http.get("/api/state", headers={"host": "192.168.7.10:8790"}).status_code == 403


def test_the_printed_url_wins_over_an_old_cookie_and_cookies_are_per_port(tmp_path, corpus):
    _, app = golden_app(tmp_path, corpus)
    browser = TestClient(app, base_url=f"http://127.0.0.1:{PORT}")
    browser.cookies.set(cookie_name(PORT), "the-last-run's-token")
    page = browser.get(f"/?token={TOKEN}")
    assert page.status_code == 200  # was 403 until the cookies were cleared
    assert f"{cookie_name(PORT)}={TOKEN}" in page.headers["set-cookie"]
    assert browser.get("/static/golden.js").status_code == 200  # the new cookie carries it
    assert browser.get("/?token=wrong").status_code == 200  # the (new) cookie still holds
    stranger = TestClient(app, base_url=f"http://127.0.0.1:{PORT}")
    stranger.cookies.set(cookie_name(PORT + 1), TOKEN)  # another server's cookie: not ours
    assert stranger.get("/static/golden.js").status_code == 403
    assert cookie_name(8790) != cookie_name(8791)


def test_leftover_temporary_files_are_swept_at_start_under_the_lock(tmp_path):
    out = tmp_path / "golden.jsonl"
    left = [
        tmp_path / ".golden.jsonl.k2j_9x0a.ragtriage-tmp",
        tmp_path / ".golden.jsonl.session.json.abcdefgh.ragtriage-tmp",
    ]
    kept = [tmp_path / ".golden.jsonl.notours", tmp_path / ".other.jsonl.abcdefgh", out]
    # a user's own files that merely look like temporaries (issue 52 item 7)
    kept += [tmp_path / ".golden.jsonl.20261204", tmp_path / ".golden.jsonl.session.json.backup_1"]
    kept += [tmp_path / ".golden.jsonl.k2j_9x0a"]  # the old names: not provably ours
    for path in left + kept:
        path.write_text("x")
    store = SessionStore(out, str)
    assert store.swept == 2
    assert [p.exists() for p in left] == [False, False] and all(p.exists() for p in kept)
    left[0].write_text("x")  # while the lock is held, a second store sweeps nothing
    with pytest.raises(InputError, match="another ragtriage annotate"):
        SessionStore(out, str)
    assert left[0].exists()
    store.close()


def test_every_temporary_the_writer_stages_carries_the_sweeps_marker(tmp_path, monkeypatch):
    """What the sweep removes is exactly what ``atomic`` creates: a write interrupted
    after staging leaves a name the next start sweeps, and nothing else."""
    import ragtriage.atomic as atomic

    def killed(src, dst):  # the rename never happens: as after a kill -9
        raise KeyboardInterrupt

    out = tmp_path / "golden.jsonl"
    monkeypatch.setattr(atomic.os, "replace", killed)
    monkeypatch.setattr(atomic, "_discard", lambda staged: None)  # no cleanup either
    with pytest.raises(KeyboardInterrupt):
        atomic.write_atomic_set({out: "x\n"})
    monkeypatch.undo()
    [left] = [p for p in tmp_path.iterdir() if p.name.startswith(".golden.jsonl.")]
    assert left.name.endswith(atomic.TEMP_SUFFIX)
    store = SessionStore(out, str)
    assert store.swept == 1 and not left.exists()
    store.close()
