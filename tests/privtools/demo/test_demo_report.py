"""The demo's report page: self-contained, rendered math, and a verdict that keeps the
toolkit's own checks apart from findings about the papers.

The report functions are tested on results built here (no demo run): both verdict branches
(a toolkit check fails; a paper claim fails) can then be constructed directly. The end-to-end
run is ``test_demo_quick_writes_report`` in tests/privtools/cli/test_cli.py.
"""

from __future__ import annotations

import base64
import copy
import struct
import zlib
from html.parser import HTMLParser
from io import StringIO
from pathlib import Path

import pytest
from rich.console import Console

from privtools.demo import checks, report

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Elements HTML closes by itself (they have no end tag).
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


def _png(width: int = 2, height: int = 1) -> bytes:
    """A valid RGB PNG (signature, IHDR, IDAT, IEND)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (PNG_SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _claim(name, status, statement="a statement", example="an example"):
    return {"name": name, "source": f"{name.title()} (000)", "status": status,
            "worst_slack": None if status == "holds" else 0.92, "statement": statement,
            "example": example}


def _results(toolkit_ok: bool = True, claims=None) -> dict:
    """Demo results shaped like ``run_demo``'s (summary.json), with no run."""
    claims = [_claim("fact1", "holds"), _claim("theorem2-algebra", "fails")] \
        if claims is None else claims
    return {
        "epsilon": "1", "n": 64, "s": 10, "batches": 1000, "seconds": 1.5,
        "mechanisms": [
            {"mechanism": "Thm 1 pure DP (Pólya shares)", "share": "Pólya(1/64, e^(-1/8))",
             "total": "Lap_Z(8)", "tv_sum_vs_closed_form": [0.0, 2e-40], "g_test_p": 0.4,
             "passed": True},
            {"mechanism": "Thm 2 RDP (Skellam shares)", "share": "Sk(0, 100)",
             "total": "Sk(0, 6400)", "tv_sum_vs_closed_form": [0.0, 2e-40], "g_test_p": 0.3,
             "passed": toolkit_ok}],
        "exact_samplers": [{"distribution": "Lap_Z(32)", "draws": 1000, "g_test_p": 0.2,
                            "passed": True}],
        "symbolic": [{"name": "fact1", "source": "Fact 1 (000)", "holds": True}],
        "claims": claims,
        "audits": [{"audit": "Lap_Z(32) sampler", "kind": "sampler", "verdict": "pass",
                    "passed": True, "detail": "p = 0.3"}],
        "plans": [{"privacy": "pure-dp", "theorem": 1, "s": 1, "g": 256, "tau": 4126,
                   "tau_bound": 4304, "m": 16785469, "bits": 25, "bits_bound": 25,
                   "passed": True, "failure": "1e-07", "privacy_result": "ε = 1 (ε <= 1)",
                   "reasons": []}],
        "regret": [{"policy": "Dist-DP-SE", "mean": 0.12, "se": 0.01, "horizon": 20000,
                    "runs": 2}],
    }


@pytest.fixture
def out(tmp_path):
    (tmp_path / "noise.png").write_bytes(_png(3, 2))
    (tmp_path / "regret.png").write_bytes(_png(2, 2))
    return tmp_path


class _Page(HTMLParser):
    """Collects the images, links, text and nesting errors of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.imgs, self.urls = [], [], [], []
        self.text, self.maths = [], []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.imgs.append(attrs)
        if tag == "math":
            self.maths.append(attrs)
        self.urls += [v for k, v in attrs.items() if k in ("src", "href", "action") and v]
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        if "annotation" not in self.stack and "style" not in self.stack:
            self.text.append(data)


def _parse(page: str) -> _Page:
    parser = _Page()
    parser.feed(page)
    parser.close()
    return parser


def _page(out, r=None) -> tuple[str, str]:
    md = report.markdown(_results() if r is None else r)
    return md, report.html_page(md, out)


def test_every_image_is_an_embedded_png(out):
    md, page = _page(out)
    assert "](noise.png)" in md and "](regret.png)" in md  # the .md keeps linking the files
    imgs = _parse(page).imgs
    assert len(imgs) == 2
    for img, name in zip(imgs, ("noise.png", "regret.png")):
        src = img["src"]
        assert src.startswith("data:image/png;base64,"), src[:40]
        raw = base64.b64decode(src.split(",", 1)[1], validate=True)
        assert raw.startswith(PNG_SIGNATURE) and raw == (out / name).read_bytes()
    assert "<img src=\"noise.png" not in page and 'src="regret.png"' not in page


def test_missing_or_remote_image_is_refused(out):
    with pytest.raises(FileNotFoundError):
        report.html_page("![x](missing.png)\n", out)
    with pytest.raises(ValueError, match="local files only"):
        report.html_page("![x](https://example.org/x.png)\n", out)
    (out / "fake.png").write_bytes(b"GIF89a....")
    with pytest.raises(ValueError, match="PNG or JPEG"):
        report.html_page("![x](fake.png)\n", out)


def test_math_becomes_mathml_and_no_tex_leaks(out):
    page = report.html_page("Inline $e^{-\\varepsilon/g}$ here.\n\n$$\n\\sum_{i=1}^n x_i\n$$\n",
                            out)
    parsed = _parse(page)
    assert [m["display"] for m in parsed.maths] == ["inline", "block"]
    assert "<msup>" in page and "&#x02211;" in page.split('display="block"')[1]
    assert "$" not in "".join(parsed.text)
    # The whole report: every $...$ of the Markdown is a <math>, no TeX left in the text.
    md, page = _page(out)
    parsed = _parse(page)
    assert len(parsed.maths) >= 20 and any(m["display"] == "block" for m in parsed.maths)
    text = "".join(parsed.text)
    assert "$" not in text and "\\" not in text, text
    assert '<annotation encoding="application/x-tex">' in page  # the TeX, kept as source


def test_dynamic_text_with_dollar_or_bar_stays_literal(out):
    r = _results(claims=[_claim("odd", "fails", statement="costs $5 | or $6", example="a|b")])
    md, page = _page(out, r)
    parsed = _parse(page)
    text = "".join(parsed.text)
    assert "costs $5 | or $6" in text and "a|b" in text
    assert not parsed.errors


def test_page_is_well_formed_and_self_contained(out):
    md, page = _page(out)
    parsed = _parse(page)
    assert not parsed.errors and parsed.stack == [], (parsed.errors, parsed.stack)
    assert page.startswith("<!DOCTYPE html>") and "<title>privtools demo report</title>" in page
    assert all(u.startswith(("data:", "#")) for u in parsed.urls), parsed.urls
    assert "http://" not in page and "https://" not in page and "url(" not in page
    assert page.count("<table>") >= 6


def test_raw_html_in_the_markdown_is_escaped(out):
    page = report.html_page("<script>alert(1)</script> and <b>x</b>\n", out)
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_verdict_separates_a_failing_paper_claim_from_the_toolkit(out):
    r = _results(toolkit_ok=True)
    v = checks.verdict(r)
    assert v["all_passed"] and v["toolkit_checks"]["failed"] == []
    assert [f["claim"] for f in v["paper_findings"]] == ["theorem2-algebra"]
    md, page = _page(out, r)
    head = md.splitlines()[2]  # right under the title
    total = v["toolkit_checks"]["total"]
    assert head.startswith("Verdict:")
    assert f"toolkit checks: {total}/{total} pass" in head
    assert "findings about the papers" in head and "theorem2-algebra" in head
    assert "1 of 2 claims of paper 000 fails" in head and "not a toolkit failure" in head
    for text in (md, page, report.verdict_line(r)):
        assert "all checks passed" not in text.lower()
    assert "findings about the papers" in "".join(_parse(page).text).split("One batch")[0]


def test_verdict_names_a_failing_toolkit_check(out):
    r = _results(toolkit_ok=False, claims=[_claim("fact1", "holds")])
    v = checks.verdict(r)
    assert not v["all_passed"]
    assert v["toolkit_checks"]["failed"] == ["Thm 2 RDP (Skellam shares)"]
    head = report.markdown(r).splitlines()[2]
    total = v["toolkit_checks"]["total"]
    assert f"toolkit checks: {total - 1}/{total} pass — FAILED: Thm 2 RDP" in head
    assert "all 1 claims of paper 000 hold" in head and "not a toolkit failure" not in head


def test_paper_claims_never_change_the_toolkit_verdict():
    base = _results(claims=[_claim("fact1", "holds")])
    for status in ("fails", "inconclusive"):
        r = copy.deepcopy(base)
        r["claims"].append(_claim("lemma4", status))
        assert checks.verdict(r)["all_passed"] is True
        assert checks.toolkit_checks(r) == checks.toolkit_checks(base)
    r["claims"].append(_claim("theorem5", "fails"))
    line = report.verdict_line(r)
    assert "2 of 3 claims of paper 000 do not hold" in line
    assert "lemma4 inconclusive, theorem5 fails" in line and "not toolkit failures" in line


def test_console_summary_keeps_the_two_verdicts_apart():
    console = Console(file=StringIO(), width=300, record=True, color_system=None)
    report.print_summary(_results(), Path("/tmp/report"), console)
    text = console.export_text()
    assert "all checks passed" not in text.lower()
    line = next(x for x in text.splitlines() if x.startswith("toolkit checks:"))
    assert "findings about the papers: 1 of 2 claims of paper 000 fails" in line
