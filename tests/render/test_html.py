"""The self-contained HTML report: content, autoescaping, CSP, figures, determinism."""

from __future__ import annotations

import base64
import io
import re
from html.parser import HTMLParser
from importlib.resources import files

import pytest
from PIL import Image

from ragtriage.errors import InputError
from ragtriage.render import plots
from ragtriage.render.html import CSP, render_html
from ragtriage.render.writer import write_reports
from tests.support.audits import make_audit, with_leaks

TINY_PNG = plots.metric_bars(make_audit().retrieval)


class Tags(HTMLParser):
    """Every start tag with its attributes, and the document's text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def parse(html: str) -> Tags:
    parser = Tags()
    parser.feed(html)
    return parser


def images(html: str) -> list[bytes]:
    srcs = [a["src"] for t, a in parse(html).tags if t == "img"]
    assert all(s.startswith("data:image/png;base64,") for s in srcs)
    return [base64.b64decode(s.split(",", 1)[1]) for s in srcs]


def test_hostile_data_is_escaped_never_markup(hostile_audit):
    html = render_html(hostile_audit)
    doc = parse(html)
    names = {tag for tag, _ in doc.tags}
    assert "script" not in names and "a" not in names and "link" not in names
    for tag, attrs in doc.tags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        if tag == "img":
            assert attrs["src"].startswith("data:image/png;base64,")
    text = "".join(doc.text)
    assert "<script>document.title='pwned'</script>" in text  # shown as text
    assert "[x](javascript:document.title='pwned')" in text
    assert not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202e]", html)


def test_strict_csp_comes_before_any_data(hostile_audit):
    html = render_html(hostile_audit)
    tags = parse(html).tags
    meta = [i for i, (t, a) in enumerate(tags) if a.get("http-equiv") == "Content-Security-Policy"]
    assert len(meta) == 1 and meta[0] < [t for t, _ in tags].index("title")
    assert tags[meta[0]][1]["content"] == CSP
    assert CSP == "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
    assert html.index("Content-Security-Policy") < html.index("pwned")
    assert "<title>ragtriage audit report</title>" in html


def test_self_contained_no_network(hostile_audit):
    html = render_html(hostile_audit)
    for _, attrs in parse(html).tags:
        for name in ("src", "href", "action", "srcset"):
            assert not (attrs.get(name) or "").startswith(("http", "//", "file:")), attrs
    assert "@import" not in html and "url(" not in html


def test_figures_are_decodable_pngs(audit):
    pngs = images(render_html(audit))
    assert len(pngs) == 3  # metric bars, score distributions, failure breakdown
    for png in pngs:
        with Image.open(io.BytesIO(png)) as image:
            assert image.format == "PNG" and image.width > 100 and image.height > 100


def test_extra_pngs_from_paths_and_bytes(audit, tmp_path):
    path = tmp_path / "confusion_matrix.png"
    path.write_bytes(TINY_PNG)
    html = render_html(audit, [path, ("kappa by threshold", TINY_PNG)])
    assert len(images(html)) == 5
    assert "<figcaption>confusion matrix</figcaption>" in html
    assert "<figcaption>kappa by threshold</figcaption>" in html
    with pytest.raises(InputError, match="not a PNG"):
        render_html(audit, [("fake", b"<svg onload=alert(1)>")])
    with pytest.raises(InputError, match="cannot read figure"):
        render_html(audit, [tmp_path / "missing.png"])


def test_cases_expand_worst_first_with_details(audit):
    html = render_html(audit)
    assert html.count("<details") == len(audit.cases)
    order = re.findall(r'<summary><span class="label label-(\w+)">', html)
    assert order[:6] == ["retrieval", "retrieval", "ranking", "ranking", "generation", "unscored"]
    q05 = html[html.index("</span> q05:") :]
    q05 = q05[: q05.index("</details>")]
    assert "<td>q05-rel</td>" in q05 and "relevant chunk at rank 4" in q05
    assert '<td>q05-d0</td><td class="num">0.9000</td>' in q05
    assert "supported" in html and "not_in_context" in html


def test_stale_banner_only_when_stale(audit):
    assert 'class="stale"' not in render_html(audit)
    html = render_html(make_audit(stale=["model"]))
    banner = re.search(r'<p class="stale" role="alert">(.*?)</p>', html, flags=re.S)
    assert banner and "STALE" in banner.group(1) and "model" in banner.group(1)
    assert html.index('class="stale"') < html.index("Stage 1: retrieval")


def test_rendering_is_deterministic(audit):
    assert render_html(audit) == render_html(audit)


def test_score_histograms_when_samples_are_present(audit):
    threshold = audit.retrieval.threshold
    summary_png = plots.score_distributions(threshold)
    with_samples = threshold.model_copy(
        update={"score_samples": {"relevant": [0.9, 0.8, 0.9], "non_relevant": [0.5, 0.6]}}
    )
    sample_png = plots.score_distributions(with_samples)
    assert summary_png and sample_png and summary_png != sample_png


def test_mathtext_in_tags_does_not_break_plots():
    assert plots.label("$\\bad{$") == "\\$\\bad{\\$"
    assert plots.failure_breakdown(make_audit(hostile=True)).startswith(b"\x89PNG")


def test_write_reports_writes_both_files(audit, tmp_path):
    paths = write_reports(audit, tmp_path / "out", extra_pngs=[("cm", TINY_PNG)])
    assert set(paths) == {"markdown", "html"}
    assert paths["markdown"].name == "report.md" and paths["html"].name == "report.html"
    assert paths["markdown"].read_text().startswith("## ragtriage audit")
    assert len(images(paths["html"].read_text())) == 4
    assert not list((tmp_path / "out").glob(".*"))  # no temporary files left behind


def test_template_ships_as_package_data(root):
    assert (files("ragtriage.render") / "templates" / "report.html.j2").is_file()
    assert "render/templates/*.j2" in (root / "pyproject.toml").read_text()


def test_an_empty_audit_still_renders(empty_audit):
    html = render_html(empty_audit)
    assert "0 of 0 cases failing" in html and "No failing cases." in html
    assert "<details" not in html and images(html) == []
    assert "none (judge decisions are uncalibrated)" in html


def test_leaks_banner(audit):
    html = render_html(with_leaks(audit, [("q01", "<b>secret</b>", 2)]))
    assert 'class="stale leaks"' in html
    assert "<li>q01: &lt;b&gt;secret&lt;/b&gt; at rank 2</li>" in html
    assert "leaks" not in render_html(with_leaks(audit, [])).split("<body>")[1]
