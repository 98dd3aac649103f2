"""A small valid world for the hostile-input suite, built once per session.

Every hostile input is a small edit of one of these files, so a refusal can only come from
the edit. ``world`` holds paths: a golden set with corpus, a BEIR layout, JSONL and TREC
runs and qrels, traces, judge answers, human grades, a retrieval report and an audit's
results. The terminal summary prints how many hostile inputs each class tried.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.harness import FIGURES, FUZZ_COUNTS, LOADED, assert_ran, run_cli, write_jsonl

CORPUS = [
    {"id": "fan", "text": "Error E2201 means the fan is too slow; clean the fan filter."},
    {"id": "bays", "text": "The N4-300 has four drive bays."},
    {"id": "raid", "text": "RAID 5 rebuilds take about six hours per terabyte."},
    {"id": "boot", "text": "Hold the reset button for ten seconds to enter recovery mode."},
    {"id": "admin", "text": "Admin password reset procedure for support staff only."},
    {"id": "misc", "text": "The warranty lasts three years."},
]
GOLDEN = [
    {"id": "q1", "query": "what does E2201 mean", "expected": ["fan"], "tags": ["error"]},
    {
        "id": "q2",
        "query": "how many bays does the N4-300 have",
        "expected": ["bays"],
        "relevance_grades": {"bays": 2, "misc": 0},
        "tags": ["product"],
        "forbidden": ["admin"],
    },
    {"id": "q3", "query": "how long does a RAID 5 rebuild take", "expected": ["raid"]},
    {"id": "q4", "query": "what is the price of the moon", "expected": [], "tags": ["none"]},
]
RUN = {
    "q1": ["fan", "misc", "boot"],
    "q2": ["misc", "admin", "bays"],
    "q3": ["boot", "misc", "fan"],
    "q4": ["misc", "fan", "raid"],
}


def _traces() -> list[dict]:
    texts = {c["id"]: c["text"] for c in CORPUS}
    return [
        {
            "query_id": qid,
            "retrieved": [{"id": d, "score": 3.0 - i, "text": texts[d]} for i, d in enumerate(ids)],
            "context_k": 2,
            "answer": texts[ids[0]],
        }
        for qid, ids in RUN.items()
    ]


def _grades() -> list[dict]:
    rows = []
    for i in range(24):
        context = CORPUS[i % len(CORPUS)]["text"]
        faithful = i % 2 == 0
        rows.append(
            {
                "id": f"g{i}",
                "label": faithful,
                "grade": 1.0 if faithful else 0.0,
                "question": f"question {i}",
                "contexts": [context],
                "answer": context if faithful else f"Something unrelated number {i} happened.",
            }
        )
    return rows


@pytest.fixture(scope="session")
def world(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("world")
    w = {
        "golden": root / "golden",
        "corpus": write_jsonl(root / "golden" / "corpus.jsonl", CORPUS),
        "run": write_jsonl(
            root / "run.jsonl", [{"query_id": q, "retrieved": ids} for q, ids in RUN.items()]
        ),
        "traces": write_jsonl(root / "traces.jsonl", _traces()),
        "answers": write_jsonl(
            root / "answers.jsonl",
            [
                {"id": t["query_id"], "question": "q", "contexts": [CORPUS[0]], "answer": "a"}
                for t in _traces()
            ],
        ),
        "grades": write_jsonl(root / "grades" / "set" / "grades.jsonl", _grades()),
        "trec_run": root / "run.trec",
        "qrels": root / "qrels.trec",
        "beir": root / "beir",
    }
    write_jsonl(w["golden"] / "golden.jsonl", GOLDEN)
    w["trec_run"].write_text(
        "".join(
            f"{q} Q0 {d} {r + 1} {3.0 - r} t\n" for q, ids in RUN.items() for r, d in enumerate(ids)
        )
    )
    w["qrels"].write_text("q1 0 fan 1\nq2 0 bays 2\nq3 0 raid 1\nq4 0 misc 0\n")
    write_jsonl(w["beir"] / "corpus.jsonl", [{"_id": c["id"], "text": c["text"]} for c in CORPUS])
    write_jsonl(w["beir"] / "queries.jsonl", [{"_id": g["id"], "text": g["query"]} for g in GOLDEN])
    (w["beir"] / "qrels").mkdir()
    (w["beir"] / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\tfan\t1\nq2\tbays\t2\nq3\traid\t1\n"
    )
    w["report"] = root / "report.json"
    assert_ran(
        run_cli(["retrieval", "--golden", w["golden"], "--run", w["run"], "-o", w["report"]])
    )
    w["results"] = root / "audit" / "results.json"
    assert_ran(
        run_cli(
            [
                "audit",
                "--golden",
                w["golden"],
                "--traces",
                w["traces"],
                "--judge",
                "lexical",
                "--cache",
                root / "cache.sqlite",
                "-o",
                root / "audit",
                "--quiet",
            ]
        )
    )
    return w


def pytest_terminal_summary(terminalreporter) -> None:
    """How many hostile inputs each class tried, and fuzz cases each loader saw (the
    figures in docs/reliability.md)."""
    if FUZZ_COUNTS:
        terminalreporter.section("fuzz cases per loader (loaded and checked by the oracle)")
        for name, count in sorted(FUZZ_COUNTS.items()):
            terminalreporter.write_line(f"{name}: {count} ({LOADED[name]} loaded)")
        terminalreporter.write_line(f"total: {sum(FUZZ_COUNTS.values())}")
    if not FIGURES:
        return
    terminalreporter.section("hostile inputs tried")
    for kind, count in sorted(FIGURES.items()):
        terminalreporter.write_line(f"{kind}: {count}")
    terminalreporter.write_line(f"total: {sum(FIGURES.values())}")
