"""``compare``: paired differences with intervals and p-values, rates, flips, CLI."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from ragtriage.cli.main import main
from ragtriage.results.compare import Comparison, compare, paired
from ragtriage.results.files import write_json
from tests.support.audits import BASE_RANKS, make_audit

# Every answerable query's relevant chunk moved to rank 1 (never-retrieved ones to rank 2).
BETTER = {q: 1 if r is not None else 2 for q, r in BASE_RANKS.items()}


def _settings(result, **changed):
    """The result's settings with ``changed`` (validated, as a results.json read back)."""
    return type(result.config).model_validate({**result.config.model_dump(), **changed})


def by_name(diffs, name, tag=None):
    return next(d for d in diffs if d.name == name and d.tag == tag)


def test_identical_inputs_differ_by_nothing(audit):
    result = compare(audit, make_audit())
    assert result.kind == "audit" and result.n_common == 10 and not result.warnings
    for diff in [*result.metrics, *result.tags, *result.rates]:
        assert diff.diff == 0 and diff.low == 0 and diff.high == 0 and diff.p_value == 1.0
    assert result.flips == []


def test_known_difference_is_measured_and_paired(audit):
    result = compare(audit, make_audit(BETTER))
    recall1 = by_name(result.metrics, "recall@1")
    # base: rank 1 for 4 of 10 queries; candidate: 8 of 10 -> +0.4, 4 queries gained 1 each.
    assert (recall1.base, recall1.candidate, recall1.n) == (0.4, 0.8, 10)
    assert recall1.diff == pytest.approx(0.4)
    assert recall1.low > 0 and recall1.high <= 0.8
    # Exact sign-flip p for 4 equal non-zero differences: P(|mean| >= observed) = 2/16.
    assert recall1.p_value == pytest.approx(0.125, abs=0.02)
    who = by_name(result.tags, "recall@3", tag="wh:who")
    assert who.n == 4 and who.diff == pytest.approx(0.5)


def test_rates_and_flips_come_from_the_cases(audit):
    result = compare(audit, make_audit(BETTER))
    pass_rate = by_name(result.rates, "pass_rate")
    assert pass_rate.n == 9  # the unscored case is left out of both sides
    assert (pass_rate.base, pass_rate.candidate) == pytest.approx((4 / 9, 8 / 9))
    assert by_name(result.rates, "faithful_rate").diff == 0
    assert [(f.case_id, f.old.value, f.new.value) for f in result.flips] == [
        ("q05", "ranking", "pass"),
        ("q06", "ranking", "pass"),
        ("q07", "retrieval", "pass"),
        ("q10", "retrieval", "pass"),
    ]


def test_pairing_finds_a_small_consistent_gain():
    rng = np.random.default_rng(0)
    base = rng.uniform(0, 1, 200)
    diff = paired("ndcg@10", base, base + 0.01)
    assert diff.diff == pytest.approx(0.01)
    assert diff.low == pytest.approx(0.01) and diff.high == pytest.approx(0.01)
    assert diff.p_value < 0.001
    noisy = paired("ndcg@10", base, rng.uniform(0, 1, 200))
    assert noisy.low < 0 < noisy.high and noisy.p_value > 0.05


def test_missing_values_and_empty_pairs():
    diff = paired("m", np.array([1.0, np.nan, 0.0]), np.array([1.0, 1.0, np.nan]))
    assert diff.n == 1 and diff.diff == 0
    empty = paired("m", np.array([]), np.array([]))
    assert empty.n == 0 and empty.diff is None and empty.p_value is None


def test_queries_in_one_result_only_and_golden_hash_warning(audit):
    candidate = make_audit(BETTER)
    candidate.retrieval.per_query = candidate.retrieval.per_query.drop(index="q03")
    candidate.golden.sha256 = "f" * 64
    result = compare(audit, candidate)
    assert result.n_common == 9 and result.only_base == ["q03"] and result.only_candidate == []
    assert any(w.code == "provenance" and "golden sets differ" in w.text for w in result.warnings)
    assert by_name(result.metrics, "recall@1").n == 9


def test_cli_on_two_retrieval_reports(audit, tmp_path, capsys):
    base, candidate, out = tmp_path / "b.json", tmp_path / "c.json", tmp_path / "diff.json"
    write_json(base, audit.retrieval)
    write_json(candidate, make_audit(BETTER).retrieval)
    assert main(["compare", str(base), str(candidate), "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "Retrieval metrics (candidate - base, paired)" in printed and "recall@1" in printed
    result = Comparison.model_validate(json.loads(out.read_text()))
    assert result.kind == "retrieval" and result.flips == [] and result.rates == []
    assert by_name(result.metrics, "mrr").diff == pytest.approx(
        0.9 - audit.retrieval.aggregate("mrr").mean
    )
    # Retrieval reports hold slice means only: per-tag differences without intervals.
    tag = by_name(result.tags, "recall@1", tag="numeric")
    assert tag.diff == pytest.approx(1.0) and tag.p_value is None


def test_cli_on_two_audits_lists_flips(audit, tmp_path, capsys):
    base, candidate = tmp_path / "b.json", tmp_path / "c.json"
    write_json(base, audit)
    write_json(candidate, make_audit(BETTER))
    assert main(["compare", str(base), str(candidate), "--permutations", "2000"]) == 0
    printed = capsys.readouterr().out
    assert "Label flips: 4" in printed and "q07: retrieval -> pass" in printed
    assert re.search(r"Label flips: 4 \(0 pass -> failure, \d failure -> pass", printed)
    assert "pass_rate" in printed and "Per tag" in printed


@pytest.mark.parametrize(
    "content",
    [
        None,
        "{not json",
        '{"schema_version": "other/1"}',
        "[]",
        '{"schema_version": "ragtriage.audit/1"}',
    ],
)
def test_cli_unusable_input_exits_2(audit, tmp_path, capsys, content):
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    write_json(good, audit)
    if content is not None:
        bad.write_text(content)
    assert main(["compare", str(good), str(bad)]) == 2
    assert "bad.json" in capsys.readouterr().err


def test_markdown_summary_escapes_ids_and_marks_real_differences(audit, tmp_path):
    from markdown_it import MarkdownIt

    from ragtriage.render.markdown import render_comparison_markdown

    base, candidate = make_audit(), make_audit(BETTER)
    for result in (base, candidate):
        result.cases[6].case_id = "<img src=x onerror=alert(1)>|[x](javascript:alert(1))"
    text = render_comparison_markdown(compare(base, candidate))
    html = MarkdownIt("commonmark").enable("table").render(text)
    assert "<img" not in html and "<a " not in html
    assert (
        "&lt;img src=x onerror=alert(1)&gt;|[x](javascript:alert(1)): retrieval -&gt; pass" in html
    )
    assert "Label flips: 4" in text
    assert "#### Retrieval metrics" in text and "#### Per tag" in text  # tables apart, tags
    # mrr: interval excludes 0 and raw p 0.03, but Holm over 5 metrics gives 0.15 -> plain;
    # recall@5: interval touches 0 -> plain.
    assert re.search(r"\| mrr \|[^*]*\| 0\.0297 \| 0\.1485 \|$", text, flags=re.M)
    assert re.search(r"\| recall@5 \|[^*]*\|$", text, flags=re.M)
    out = tmp_path / "diff.md"
    write_json(tmp_path / "b.json", base)
    write_json(tmp_path / "c.json", candidate)
    assert (
        main(
            [
                "compare",
                str(tmp_path / "b.json"),
                str(tmp_path / "c.json"),
                "--markdown",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    assert out.read_text() == text


def test_large_inputs_use_the_normal_limit_of_the_randomization_test(monkeypatch):
    import ragtriage.results.compare as module

    rng = np.random.default_rng(1)
    base = rng.uniform(0, 1, 400)
    candidate = base + rng.normal(0.01, 0.1, 400)
    exact = paired("m", base, candidate, permutations=20000).p_value
    monkeypatch.setattr(module, "NORMAL_ABOVE", 100)
    assert paired("m", base, candidate).p_value == pytest.approx(exact, abs=0.02)
    assert paired("m", base, base).p_value == 1.0


def test_holm_adjustment_decides_what_is_real():
    from ragtriage.render.markdown import render_comparison_markdown
    from ragtriage.results.compare import Diff, _adjust
    from ragtriage.stats import holm

    assert holm([0.01, 0.04, 0.03, 0.005]).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([]).tolist() == []

    def diff(name, p, low):
        return Diff(
            name=name, n=50, base=0.5, candidate=0.6, diff=0.1, low=low, high=0.2, p_value=p
        )

    comparison = Comparison(
        kind="retrieval",
        golden={"base": None, "candidate": None},
        n_common=50,
        metrics=[diff("strong", 0.001, 0.05), diff("weak", 0.03, 0.01), diff("flat", 0.5, -0.1)],
    )
    _adjust(comparison)
    strong, weak, flat = comparison.metrics
    assert (strong.p_holm, weak.p_holm, flat.p_holm) == pytest.approx((0.003, 0.06, 0.5))
    assert strong.real() and not weak.real() and not flat.real()
    text = render_comparison_markdown(comparison)
    assert "**+0.0500 to +0.2000**" in text and "**+0.0100 to +0.2000**" not in text


def test_the_randomization_test_refuses_missing_values():
    import numpy as np

    from ragtriage.stats import randomization_test

    with pytest.raises(ValueError):
        randomization_test(np.array([0.0, 1.0, np.nan]), np.ones(3))  # p was 1e-4


def test_changed_settings_are_named_and_a_verdict_says_what_moved(audit):
    from ragtriage.render.compare import verdict

    worse_ranks = {q: None for q in BASE_RANKS}  # every relevant chunk lost
    candidate = make_audit(worse_ranks)
    candidate = candidate.model_copy(update={"config": _settings(candidate, context_k=1)})
    base = audit.model_copy(update={"config": _settings(audit, context_k=3, cache="a")})
    result = compare(base, candidate, resamples=200, permutations=500)
    assert any(
        w.code == "settings_differ" and w.text == "the runs' settings differ: context_k 3 -> 1"
        for w in result.warnings
    )
    line = verdict(result)
    assert line.startswith("beyond noise in") and "worse: " in line and "better" not in line
    moved = result.label_changes
    assert moved["retrieval"][1] > moved["retrieval"][0] and "pass" in moved  # which stage
    same = compare(audit, audit)
    n = len(same.metrics) + len(same.rates)
    assert verdict(same) == f"no difference beyond noise in {n} metrics and rates"


def test_a_changed_corpus_or_slice_is_flagged(audit, tmp_path, capsys):
    def measured_on(corpus: str, slice_: str):
        # the corpus hash is the retrieval report's, the slice the audit's own golden record
        retrieval = audit.retrieval.model_copy(
            update={"golden": {**audit.retrieval.golden, "corpus_sha256": corpus * 64}}
        )
        golden = audit.golden.model_copy(update={"slice": slice_})
        return audit.model_copy(update={"golden": golden, "retrieval": retrieval})

    base, candidate = measured_on("a", "dev"), measured_on("b", "holdout")
    warnings = compare(base, candidate, resamples=100, permutations=200).warnings
    assert any(w.code == "provenance" and w.text.startswith("the corpora differ") for w in warnings)
    assert any("different slices of the golden set (dev vs holdout)" in w.text for w in warnings)
    paths = [tmp_path / "b.json", tmp_path / "c.json"]
    write_json(paths[0], base)
    write_json(paths[1], candidate)
    main(["gate", str(paths[1]), "--baseline", str(paths[0]), "--min", "mrr=0"])
    assert "warning: baseline vs this result: the corpora differ" in capsys.readouterr().out


def test_setting_warnings_are_not_cut_mid_name(audit):
    """A setting was cut at 40 characters ('retriever my_company.search.retrievers:hyb')
    and the Markdown warning at 200: names are shown whole, a long one by its end."""
    from ragtriage.render.markdown import render_comparison_markdown

    base_fn = "my_company.search.retrievers:hybrid_bm25_dense_reranked"
    long_path = "/home/someone/projects/" + "nested/" * 12 + "golden_sets/handbook_v2"
    base = audit.model_copy(update={"config": _settings(audit, retriever=base_fn)})
    cand = audit.model_copy(
        update={"config": _settings(audit, retriever=base_fn + "_v2", golden=long_path)}
    )
    result = compare(base, cand, resamples=50, permutations=50)
    [warning] = [w.text for w in result.warnings if w.code == "settings_differ"]
    assert f"retriever {base_fn} -> {base_fn}_v2" in warning
    assert "\u2026" + long_path[-59:] in warning  # the end of the path, after a visible cut
    md = render_comparison_markdown(result)
    assert "hybrid\\_bm25" not in md  # escaped only where markdown would act
    assert f"{base_fn}_v2" in md.replace("\u2060", "")
