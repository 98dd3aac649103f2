"""Every option of every command, fuzzed: refused in one line before any work, or obeyed.

``OPTIONS`` lists each command's options with a strategy of values that must be refused
(out of range, not a choice, not a number, a path that cannot be used) and a strategy of
cheap values that must be accepted. Hypothesis draws an option and a value on top of a
valid command line:

* a refused value must give exit 2 and one stderr line naming the option (or the path);
* an accepted value must give a result (exit 0, or 1 where a bar or check failed), and
  where the value has a visible effect (``--depth``, ``--leak-k``, ``--limit``, ...) the
  result must show it.

``test_every_option_is_listed`` fails when a command gains an option this table lacks.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ragtriage.render.calibration_plots
from ragtriage.cli.main import command_tree
from tests.support.harness import Outcome, assert_ran, assert_refused, run_cli

INVALID_INT_TEXT = st.sampled_from(
    ["", "x", "1.5", "nan", "inf", "1e3", "0x10", "٣", "9" * 5000, "--quiet"]
)
INVALID_FLOAT_TEXT = st.sampled_from(["", "x", "nan", "inf", "-inf", "1e400", "1,5", "--quiet"])
JUNK_TEXT = st.sampled_from(["", " ", "bogus", "MAX", "\u2028", "a" * 300, "--quiet"])


def ints_outside(low: int | None, high: int | None) -> st.SearchStrategy[str]:
    """Integer texts outside ``[low, high]`` (far and just outside), or no integer at all."""
    parts = [INVALID_INT_TEXT]
    if low is not None:
        parts += [st.integers(max_value=low - 1).map(str), st.just(str(low - 1))]
    if high is not None:
        parts += [st.integers(min_value=high + 1).map(str), st.just(str(high + 1))]
    return st.one_of(parts)


def floats_outside(low: float, high: float) -> st.SearchStrategy[str]:
    return st.one_of(
        INVALID_FLOAT_TEXT,
        st.floats(max_value=low, exclude_max=True).map(repr),
        st.floats(min_value=high, exclude_min=True).map(repr),
    )


def not_one_of(*allowed: str) -> st.SearchStrategy[str]:
    return st.one_of(JUNK_TEXT, st.text(max_size=8)).filter(lambda v: v not in allowed)


@dataclass
class Opt:
    """One option: values it must refuse, values it must accept, and what accepting shows."""

    invalid: st.SearchStrategy[str] | None = None
    valid: st.SearchStrategy[str] | None = None
    flag: bool = False
    names: tuple[str, ...] = ()  # what a refusal must name, if not the option itself
    check: Callable[[str, Outcome, Path], None] | None = None


def sampled(*values) -> st.SearchStrategy[str]:
    return st.sampled_from([str(v) for v in values])


# --- effects an accepted value must have --------------------------------------------------


def _report(out: Path) -> dict:
    return json.loads((out / "r.json").read_text())


def depth_effect(value: str, outcome: Outcome, out: Path) -> None:
    """No query has more results than --depth (the run keeps at most depth per query)."""
    assert _report(out)["run"]["rows"] <= int(value) * 4


def leak_k_effect(value: str, outcome: Outcome, out: Path) -> None:
    assert _report(out)["leaks"]["k"] == int(value)


def limit_effect(value: str, outcome: Outcome, out: Path) -> None:
    cases = json.loads((out / "results.json").read_text())["cases"]
    assert len(cases) == min(int(value), 4)


def context_k_effect(value: str, outcome: Outcome, out: Path) -> None:
    """--context-k only fills traces without context ids; every case passed <= k."""
    results = json.loads((out / "results.json").read_text())
    assert results["config"]["context_k"] == int(value)


def metrics_effect(value: str, outcome: Outcome, out: Path) -> None:
    assert [a["metric"] for a in _report(out)["aggregates"]] == [value]


def k_effect(value: str, outcome: Outcome, out: Path) -> None:
    assert {a["metric"] for a in _report(out)["aggregates"]} >= {f"recall@{value}"}


def level_effect(value: str, outcome: Outcome, out: Path) -> None:
    report = _report(out)
    assert report["config"]["relevance_level"] == int(value)
    if int(value) > 2:
        assert report["n_answerable"] == 0 or report["config"]["nothing_relevant"] == "zero"


def repeat_effect(value: str, outcome: Outcome, out: Path) -> None:
    repeat = _report(out).get("repeat")
    assert (repeat or {"n_runs": 1})["n_runs"] == int(value)


def folds_effect(value: str, outcome: Outcome, out: Path) -> None:
    record = json.loads(next(out.rglob("calibration.json")).read_text())
    assert f"{value}-fold" in json.dumps(record) or str(value) in json.dumps(record)


# --- the table ----------------------------------------------------------------------------

CONVERSATIONS = Path(__file__).resolve().parents[1] / "fixtures" / "conversations"
GENAI_SPANS = Path(__file__).resolve().parents[1] / "fixtures" / "formats" / "genai_spans.jsonl"
PATH_BAD = sampled("missing.json", "adir", "file.txt/x")  # no file, a directory, under a file


def base_args(command: str, w: dict[str, Path], tmp: Path) -> list:
    """A valid, fast command line the drawn option is added to (later options win)."""
    golden = tmp / "golden"
    shutil.copytree(w["golden"], golden)  # golden split / add may rewrite it
    return {
        "retrieval": ["retrieval", "--golden", golden, "--run", w["run"], "--quiet",
                      "-o", tmp / "r.json"],
        "retrieval+": ["retrieval", "--golden", golden, "--retriever", "bm25", "--quiet",
                       "-o", tmp / "r.json"],
        "judge": ["judge", "--answers", w["answers"], "--judge", "lexical", "--no-cache",
                  "--quiet", "-o", tmp / "j.json"],
        "calibrate": ["calibrate", w["grades"], "--judge", "lexical", "--out", tmp / "c",
                      "--no-plots", "--resamples", "100"],
        "audit": ["audit", "--golden", golden, "--traces", w["traces"], "--judge", "lexical",
                  "--cache", tmp / "cache.sqlite", "-o", tmp, "--quiet"],
        "conversations": ["conversations", "--golden", CONVERSATIONS, "--traces",
                          CONVERSATIONS / "turns.jsonl", "--judge", "lexical", "--cache",
                          tmp / "cache.sqlite", "--out", tmp, "--quiet"],
        "compare": ["compare", w["report"], w["report"], "--quiet", "--resamples", "50",
                    "--permutations", "50"],
        "gate": ["gate", w["report"], "--min", "mrr=0"],
        # the world's audit read no spans: its cases link to no trace of the GenAI fixture,
        # which export says (exit 0) after reading both
        "export": ["export", w["results"], "--traces", GENAI_SPANS, "--otlp-out", tmp / "v.json"],
        "golden split": ["golden", "split", "--golden", golden, "--out", tmp / "split.jsonl"],
        "golden check": ["golden", "check", "--golden", golden, "--quiet"],
        "golden add": ["golden", "add", "--from", w["results"], "--to", golden, "--failed",
                       "--dry-run"],
    }[command]  # fmt: skip


SEED = Opt(ints_outside(0, 2**32 - 1), sampled(0, 1, 2**32 - 1))
# Judge specs that must be refused (old spellings, unknown strategy, no model, no file);
# none of them may be a plain model id, which would be accepted and called.
JUDGE_BAD = sampled(
    "", " ", "default", "local", "lexical@embedded", "bogus@embedded", "claims@", "claims@local",
    "replay:missing.json",
)  # fmt: skip
OLD_JUDGE_OPTION = sampled("lexical", "claims", "bogus", "replay:missing.json")
# --columns OURS=THEIRS pairs: malformed, unknown target, a target twice; valid ones rename
# columns these files do not have, so they change nothing
COLUMNS = Opt(
    sampled("query", "querry=q", "query=a,query=b", "=x", "query="),
    sampled("query=prompt", "expected=gold_ids,answer=response_text"),
)
OPTIONS: dict[str, dict[str, Opt]] = {
    "retrieval": {
        "--golden": Opt(PATH_BAD),
        "--qrels": Opt(PATH_BAD),  # and with --golden: exactly one of them
        "--run": Opt(PATH_BAD),
        "--retriever": Opt(sampled("nomodule", "no_such_module:f", "os:no_such_function")),
        "--metrics": Opt(
            sampled(
                "",
                ",",
                "ndcg@0",
                "ndcg@-1",
                "recall@9999999",
                "bogus",
                "r_precision@5",
                "precision@",
            ),
            sampled("mrr", "ndcg@10", "recall@3", "map", "precision@1"),
            check=metrics_effect,
        ),
        "--k": Opt(
            st.one_of(ints_outside(1, 1_000_000), sampled(",", "1,x")),
            sampled(1, 3, 20),
            check=k_effect,
        ),  # fmt: skip
        "--depth": Opt(ints_outside(1, 1_000_000), sampled(1, 2, 5, 1_000_000), check=depth_effect),
        "--relevance-level": Opt(
            ints_outside(0, 2**63 - 1), sampled(0, 1, 2, 3, 2**63 - 1), check=level_effect
        ),
        "--float32": Opt(flag=True),
        "--float64": Opt(flag=True),
        "--duplicates": Opt(not_one_of("max", "error"), sampled("max", "error")),
        "--skip-missing": Opt(flag=True),
        "--nothing-relevant": Opt(not_one_of("zero", "unanswerable"), sampled("zero")),
        "--out": Opt(sampled("adir", "file.txt/x.json")),
        "--output": Opt(sampled("adir", "file.txt/x.json")),  # the earlier name of --out
        "--quiet": Opt(flag=True),
        "--holdout": Opt(flag=True),  # this set has no held-out cases: refused, one line
        "--corpus": Opt(PATH_BAD),
        "--leak-k": Opt(
            ints_outside(1, 1_000_000), sampled(1, 2, 10, 1_000_000), check=leak_k_effect
        ),  # fmt: skip
        "--reference-run": Opt(PATH_BAD),
        "--repeat": Opt(ints_outside(1, 1000), sampled(1, 2, 3), check=repeat_effect),
        "--columns": COLUMNS,
    },
    "judge": {
        "--answers": Opt(PATH_BAD),
        "--out": Opt(sampled("adir", "file.txt/x.json")),
        "--output": Opt(sampled("adir", "file.txt/x.json")),  # the earlier name of --out
        "--judge": Opt(JUDGE_BAD, sampled("lexical")),
        "--model": Opt(OLD_JUDGE_OPTION),  # replaced by --judge: refused, naming the new one
        "--strategy": Opt(OLD_JUDGE_OPTION),
        "--concurrency": Opt(ints_outside(1, 1024), sampled(1, 2, 1024)),
        "--cache": Opt(sampled("adir", "file.txt/x.sqlite")),
        "--no-cache": Opt(flag=True),
        "--api-base": Opt(valid=sampled("http://127.0.0.1:9", "")),
        "--json-mode": Opt(
            not_one_of("auto", "json_schema", "json_object_schema", "json_object", "none"),
            sampled("auto", "json_schema", "none"),
        ),
        "--timeout": Opt(floats_outside(0.001, 86400), sampled(0.5, 30)),
        "--threads": Opt(ints_outside(1, 1024), sampled(1, 4)),
        "--context-chars": Opt(ints_outside(0, 100_000_000), sampled(0, 10, 500)),
        "--max-sentences": Opt(ints_outside(0, 100_000_000), sampled(0, 1, 5)),  # 0: all
        "--budget-chars": Opt(ints_outside(0, 100_000_000), sampled(0, 500, 1100)),  # 0: none
        "--dry-run": Opt(flag=True),
        "--quiet": Opt(flag=True),
        "--calibration": Opt(PATH_BAD),
        "--all-signals": Opt(flag=True),
        "--samples": Opt(ints_outside(1, 100), sampled(1)),  # >1 with lexical: refused
        "--temperature": Opt(floats_outside(0.0, 2.0)),  # any with lexical: refused
    },
    "calibrate": {
        "grades": Opt(PATH_BAD),
        "--judge": Opt(JUDGE_BAD, sampled("lexical")),
        "--judged": Opt(PATH_BAD),
        "--out": Opt(sampled("file.txt", "file.txt/x")),
        "--folds": Opt(ints_outside(2, 20), sampled(2, 3, 10), check=folds_effect),
        "--seed": SEED,
        "--resamples": Opt(ints_outside(100, 1_000_000), sampled(100, 150)),
        "--plots": Opt(flag=True),
        "--audit": Opt(PATH_BAD),
        "--ppi-labelled": Opt(floats_outside(0.1, 0.9), sampled(0.1, 0.5, 0.9)),
        "--require-beats-lexical": Opt(flag=True),
        "--columns": Opt(COLUMNS.invalid, sampled("label=is_faithful", "id=item,grader=who")),
        "--samples": Opt(ints_outside(1, 100), sampled(1)),  # >1 with lexical: refused
        "--temperature": Opt(floats_outside(0.0, 2.0)),  # any with lexical: refused
        "--min-agreement": Opt(floats_outside(0.5, 0.99), sampled(0.5, 0.85, 0.99)),
        "--delta": Opt(floats_outside(0.01, 0.5), sampled(0.01, 0.1, 0.5)),
        "--plan": Opt(floats_outside(0.001, 0.5), sampled(0.001, 0.05, 0.5)),
        "--verdicts": Opt(PATH_BAD),
        "--card": Opt(flag=True),
        "--band-fallback": Opt(sampled("", "Rule", "none"), sampled("rule", "unsure")),
    },
    "audit": {
        "--golden": Opt(PATH_BAD),
        "--traces": Opt(PATH_BAD),
        "--columns": COLUMNS,
        "--retriever": Opt(valid=sampled("bm25")),
        "--generator": Opt(valid=sampled("extractive")),
        "--judge": Opt(JUDGE_BAD, sampled("lexical")),
        "--strategy": Opt(OLD_JUDGE_OPTION),  # replaced by --judge
        "--calibration": Opt(PATH_BAD),
        "--context-k": Opt(ints_outside(1, 1_000_000), sampled(1, 2, 5), check=context_k_effect),
        "--depth": Opt(ints_outside(1, 1_000_000), sampled(1, 5)),
        "--metrics": Opt(sampled("", "bogus", "ndcg@0"), sampled("mrr", "recall@3")),
        "--k": Opt(ints_outside(1, 1_000_000), sampled(1, 3)),
        "--concurrency": Opt(ints_outside(1, 1024), sampled(1, 8)),
        "--threads": Opt(ints_outside(1, 1024), sampled(1, 2)),
        "--cache": Opt(sampled("adir", "file.txt/x.sqlite")),
        "--limit": Opt(ints_outside(1, None), sampled(1, 2, 4, 10**30), check=limit_effect),
        "--api-base": Opt(valid=sampled("http://127.0.0.1:9")),
        "--json-mode": Opt(
            not_one_of("auto", "json_schema", "json_object_schema", "json_object", "none"),
            sampled("auto", "json_object"),
        ),
        "--timeout": Opt(floats_outside(0.001, 86400), sampled(0.5, 30)),
        "--holdout": Opt(flag=True),
        "--live": Opt(flag=True),  # the model writes the answers now (not the shipped ones)
        "--on-mismatch": Opt(not_one_of("fail", "warn", "error"), sampled("fail", "warn", "error")),
        "--check-reference": Opt(flag=True),
        "--out": Opt(sampled("file.txt", "file.txt/x")),
        "--quiet": Opt(flag=True),
        "--samples": Opt(ints_outside(1, 100), sampled(1)),  # >1 with lexical: refused
        "--temperature": Opt(floats_outside(0.0, 2.0)),  # any with lexical: refused
        "--dry-run": Opt(flag=True),
        # a judge spec that cannot be built; lexical has no record to escalate with: refused
        "--escalate-to": Opt(JUDGE_BAD),
        "--escalate-calibration": Opt(PATH_BAD),  # without --escalate-to: refused
    },
    "conversations": {
        "--golden": Opt(PATH_BAD),
        "--traces": Opt(PATH_BAD),
        "--judge": Opt(JUDGE_BAD, sampled("lexical")),
        "--calibration": Opt(PATH_BAD),
        "--context-k": Opt(ints_outside(1, 1_000_000), sampled(1, 2, 5)),
        "--probe-k": Opt(ints_outside(1, 1_000_000), sampled(1, 3, 10**6)),
        "--metrics": Opt(sampled("", "bogus", "ndcg@0"), sampled("mrr", "recall@3")),
        "--k": Opt(ints_outside(1, 1_000_000), sampled(1, 3)),
        "--concurrency": Opt(ints_outside(1, 1024), sampled(1, 8)),
        "--threads": Opt(ints_outside(1, 1024), sampled(1, 2)),
        "--cache": Opt(sampled("adir", "file.txt/x.sqlite")),
        "--api-base": Opt(valid=sampled("http://127.0.0.1:9")),
        "--json-mode": Opt(
            not_one_of("auto", "json_schema", "json_object_schema", "json_object", "none"),
            sampled("auto", "json_object"),
        ),
        "--timeout": Opt(floats_outside(0.001, 86400), sampled(0.5, 30)),
        "--holdout": Opt(flag=True),
        "--on-mismatch": Opt(not_one_of("warn", "error"), sampled("warn", "error")),
        "--out": Opt(sampled("file.txt", "file.txt/x")),
        "--quiet": Opt(flag=True),
    },
    "compare": {
        "base": Opt(PATH_BAD),
        "candidate": Opt(PATH_BAD),
        "--out": Opt(sampled("adir", "file.txt/x.json")),
        "--output": Opt(sampled("adir", "file.txt/x.json")),  # the earlier name of --out
        "--markdown": Opt(sampled("adir", "file.txt/x.md")),
        "--seed": SEED,
        "--resamples": Opt(ints_outside(1, 1_000_000), sampled(1, 20)),
        "--permutations": Opt(ints_outside(1, 1_000_000), sampled(1, 20)),
        "--quiet": Opt(flag=True),
    },
    "export": {
        "results": Opt(PATH_BAD),
        "--traces": Opt(PATH_BAD),
        "--otlp-out": Opt(sampled("adir", "file.txt/x.json")),
        "--phoenix-out": Opt(sampled("adir", "file.txt/x.json"), sampled("a.json")),
        # nothing listens on port 9 of this host: refused naming the option
        "--phoenix-url": Opt(sampled("http://127.0.0.1:9", "nope://x")),
    },
    "gate": {
        "results": Opt(PATH_BAD),
        "--baseline": Opt(PATH_BAD),
        "--min": Opt(
            sampled("mrr", "mrr=", "mrr=x", "mrr=nan", "=1", "bogus=1", "mrr=inf"),
            sampled("mrr=0", "recall@10=0.1"),
        ),  # fmt: skip
        "--max": Opt(sampled("mrr=nan", "nope=1"), sampled("mrr=1")),
        "--max-drop": Opt(sampled("mrr=-1", "mrr=x")),  # and it needs --baseline
        "--allow-stale": Opt(flag=True),
        "--strict": Opt(flag=True),
    },
    "golden split": {
        "--golden": Opt(PATH_BAD),
        "--fraction": Opt(floats_outside(0.0, 1.0) | sampled(0, 1, 0.0), sampled(0.25, 0.5)),
        "--seed": Opt(sampled("x", "", "1.5"), sampled(0, -1, 10**30)),
        "--out": Opt(sampled("adir.jsonl", "file.txt/x.jsonl")),
        "--force": Opt(flag=True),
        "--columns": COLUMNS,
    },
    "golden check": {
        "--golden": Opt(PATH_BAD),
        "--corpus": Opt(PATH_BAD),
        "--out": Opt(sampled("adir", "file.txt/x.json")),
        "--output": Opt(sampled("adir", "file.txt/x.json")),  # the earlier name of --out
        "--quiet": Opt(flag=True),
        "--columns": COLUMNS,
    },
    "golden add": {
        "--from": Opt(PATH_BAD),
        "--to": Opt(sampled("file.txt"), sampled("new-dir/new.jsonl")),  # a new set: created
        "--case": Opt(sampled("nope", ""), sampled("q1")),
        "--failed": Opt(flag=True),
        # several cases: CASE=ids; q1 passed, so with --failed it is not added: refused
        "--expected": Opt(sampled("fan,bays", "q1=fan"), sampled("q2=fan")),
        "--tag": Opt(valid=sampled("new", "a,b")),
        "--note": Opt(valid=sampled("", "note \u2028 x")),
        "--dry-run": Opt(flag=True),
        "--columns": COLUMNS,
    },
}
# Base-line options that exclude the drawn one (each refuses the pair, tested elsewhere).
EXCLUSIVE = {("golden add", "--case"): ["--failed"], ("judge", "--cache"): ["--no-cache"]}
ARGUMENTS = {"grades", "base", "candidate", "results"}  # positional: replaced, not appended
NOT_COVERED = {
    "doctor": "no options; checks the installed model (another engineer's command)",
    # a valid draw would start a server and wait for a person: tests/annotate/test_options.py
    # checks that a bad value is refused in one line before serving
    "annotate golden": "serves a page",
    "annotate grades": "serves a page",
}


def command_options() -> dict[str, set[str]]:
    """Every command's parameters, by their first name, read from the typer app."""
    found: dict[str, set[str]] = {}

    def walk(command, path: str) -> None:
        subs = getattr(command, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, f"{path} {name}".strip())
            return
        found[path] = {
            param.name if param.param_type_name == "argument" else _long(param.opts)
            for param in command.params
        }

    walk(command_tree(), "")
    return found


def _long(opts: list[str]) -> str:
    return next((o for o in opts if o.startswith("--")), opts[0])


def test_every_option_is_listed():
    for command, options in command_options().items():
        if command in NOT_COVERED:
            continue
        assert command in OPTIONS, f"command {command!r} is not fuzzed"
        missing = options - set(OPTIONS[command]) - {"--help"}
        assert not missing, f"{command}: options not fuzzed: {sorted(missing)}"


# --- the fuzz -----------------------------------------------------------------------------


def draws(valid: bool) -> st.SearchStrategy[tuple[str, str, str | None]]:
    """(command, option, value) over the table; value None: a flag, given bare."""
    cases = []
    for command, options in OPTIONS.items():
        for name, opt in options.items():
            if opt.flag and valid:
                cases.append(st.just((command, name, None)))
                continue
            pool = opt.valid if valid else opt.invalid
            if pool is not None:
                cases.append(pool.map(lambda v, c=command, n=name: (c, n, v)))
    return st.one_of(cases)


def prepare(w: dict[str, Path], tmp: Path) -> None:
    (tmp / "adir").mkdir(exist_ok=True)
    (tmp / "adir.jsonl").mkdir(exist_ok=True)
    (tmp / "file.txt").write_text("not a directory")


def command_line(command: str, option: str, value: str | None, w, tmp: Path) -> list[str]:
    uses_retriever = option in ("--depth", "--repeat", "--retriever")
    args = [str(a) for a in base_args("retrieval+" if uses_retriever else command, w, tmp)]
    if option in ARGUMENTS:
        index = {"grades": 1, "base": 1, "candidate": 2, "results": 1}[option]
        args[index] = str(tmp / value) if value is not None else args[index]
        return args
    if value is None:
        return [*args, option]
    local = value in ("missing.json", "adir", "file.txt", "adir.jsonl") or "/" in value
    if local and not value.startswith("http"):
        value = str(tmp / value)
    if option == "--retriever" and command == "retrieval":
        args = args[: args.index("--retriever")] + args[args.index("--retriever") + 2 :]
    for dropped in EXCLUSIVE.get((command, option), ()):
        args.remove(dropped)
    return [*args, option, value]


def run_drawn(draw: tuple[str, str, str | None], w, tmp_factory) -> tuple[Outcome, Path]:
    command, option, value = draw
    tmp = tmp_factory.mktemp("opt")
    prepare(w, tmp)
    args = command_line(command, option, value, w, tmp)
    # in the example's own folder: a relative value (--phoenix-out a.json) writes there,
    # not into the checkout the tests run from
    plots = mock.patch.object(ragtriage.render.calibration_plots, "write_plots", lambda *a, **k: [])
    with contextlib.chdir(tmp), plots:
        return run_cli(args, f"5 options: {command}"), tmp


SCALE = float(os.environ.get("FUZZ_SCALE", "1"))  # e.g. FUZZ_SCALE=10 for a long run
SETTINGS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@settings(SETTINGS, max_examples=int(150 * SCALE))
@given(draws(valid=False))
def test_refused_values_are_one_line_naming_the_option(world, tmp_path_factory, draw):
    outcome, tmp = run_drawn(draw, world, tmp_path_factory)
    command, option, value = draw
    line = assert_refused(outcome)
    named = [option, option.lstrip("-"), *OPTIONS[command][option].names]
    if value and value.strip() and len(value) < 100:
        named.append(value.split("=")[0] if "=" in value else value)  # the value at fault
    assert any(name and name in line for name in named), line


@settings(SETTINGS, max_examples=int(40 * SCALE))
@given(draws(valid=True))
def test_accepted_values_give_a_result(world, tmp_path_factory, draw):
    outcome, tmp = run_drawn(draw, world, tmp_path_factory)
    command, option, value = draw
    if option in ("--holdout",):  # the world has no held-out cases: a clean refusal
        assert_refused(outcome, "holdout")
        return
    assert_ran(outcome, codes=(0, 1))
    check = OPTIONS[command][option].check
    if check is not None and value is not None:
        check(value, outcome, tmp)


@pytest.mark.parametrize("command", sorted(OPTIONS))
def test_a_flag_given_a_value_is_refused(world, tmp_path, command):
    """``--quiet=yes`` and the like: click refuses a value for a flag, in one line."""
    flags = [name for name, opt in OPTIONS[command].items() if opt.flag]
    if not flags:
        pytest.skip("no flags")
    prepare(world, tmp_path)
    args = [str(a) for a in base_args(command, world, tmp_path)]
    for flag in flags:
        line = assert_refused(run_cli([*args, f"{flag}=yes"], f"5 options: {command}"))
        assert flag in line
