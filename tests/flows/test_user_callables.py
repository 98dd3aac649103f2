"""A user's retriever or generator that fails: a clear error naming it (exit 2) for the
retriever, a per-case generation error for the generator; never a traceback, and never a
``None`` answer judged as the text "None"."""

from __future__ import annotations

import json
import textwrap

import pytest

from ragtriage.cli.main import main
from tests.conftest import ROOT

HANDBOOK = ROOT / "golden_sets" / "handbook"
MODULE = textwrap.dedent(
    """
    import json, pathlib
    CORPUS = [json.loads(x)["id"] for x in pathlib.Path(%r).open()]

    def good(query, k):
        return [(doc, 1.0 / (i + 1)) for i, doc in enumerate(CORPUS[:k])]

    def none(query, k):
        return None

    def boom(query, k):
        raise RuntimeError("index offline")

    def nan(query, k):
        return [(CORPUS[0], float("nan"))]

    calls = []

    def flaky_gen(query, chunks):
        calls.append(query)
        if len(calls) == 2:
            raise ConnectionError("model server down")
        return "An answer." if len(calls) != 3 else None
    """
) % str(HANDBOOK / "corpus.jsonl")


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "usermod.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "usermod"


def _audit(tmp_path, retriever: str, generator: str = "extractive") -> tuple[int, str]:
    out = tmp_path / "out"
    args = ["audit", "--golden", str(HANDBOOK), "--retriever", retriever]
    args += ["--generator", generator, "--judge", "lexical", "--out", str(out), "--quiet"]
    return main(args), str(out)


@pytest.mark.parametrize(
    ("function", "says"),
    [
        ("none", "returned NoneType, not a list of hits"),
        ("boom", "raised RuntimeError on query"),
        ("nan", "NaN score"),
    ],
)
def test_a_failing_retriever_is_an_input_error_naming_it(user_module, tmp_path, capsys, function,
                                                         says):  # fmt: skip
    code, _ = _audit(tmp_path, f"{user_module}:{function}")
    err = capsys.readouterr().err
    assert code == 2 and says in err and f"{user_module}:{function}" in err
    assert "on query 'hb-01'" in err  # which input broke the user's code
    assert "Traceback" not in err


def test_a_failing_generator_fails_its_cases_only(user_module, tmp_path, capsys):
    code, out = _audit(tmp_path, f"{user_module}:good", f"{user_module}:flaky_gen")
    assert code == 0, capsys.readouterr().err
    cases = json.loads((tmp_path / "out" / "results.json").read_text())["cases"]
    errors = [" ".join(c["warnings"]) for c in cases]
    assert any("raised ConnectionError: model server down" in e for e in errors)
    assert any("returned NoneType, not str" in e for e in errors)
    assert all(c["answer"] != "None" for c in cases)


def test_a_missing_generator_names_the_generator_option(tmp_path, capsys):
    code, _ = _audit(tmp_path, "bm25", "nomodule_here:fn")
    assert code == 2 and "field 'generator'" in capsys.readouterr().err


def test_ctrl_c_exits_130_saying_how_to_resume(tmp_path, monkeypatch, capsys):
    from ragtriage.retrieval import evaluate

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluate.RetrievalEvaluator, "evaluate", interrupted)
    code, _ = _audit(tmp_path, "bm25")
    err = capsys.readouterr().err
    assert code == 130 and "interrupted" in err and "resumes" in err and "Traceback" not in err
    assert not (tmp_path / "out" / "results.json").exists()


def test_an_embedded_audit_without_llama_cpp_fails_before_any_work(tmp_path, monkeypatch):
    from ragtriage.flows import audit as audit_module
    from ragtriage.llm import local
    from ragtriage.llm.weights import ModelUnavailable

    monkeypatch.setattr(local, "find_spec", lambda name: None)  # a wheel without [local]
    started = []
    monkeypatch.setattr(audit_module, "_traces", lambda *a, **k: started.append(1))
    # --live: the handbook's shipped answers need no model (tests/flows/test_recorded_answers.py)
    config = audit_module.AuditConfig(golden=HANDBOOK, live=True, cache=tmp_path / "c.sqlite")
    with pytest.raises(ModelUnavailable, match="pip install"):
        audit_module.run(config)
    assert started == []  # no answer was generated first
