"""How the demo shows its results: the Markdown report, a self-contained HTML page, the
noise and regret plots, and the console summary (:mod:`privtools.demo.checks` computes).

The report is written in Markdown with TeX math between dollar signs (``$g/\\varepsilon$``),
so ``report.md`` reads as text. :func:`html_page` renders it with markdown-it-py: the math
becomes MathML (latex2mathml, server side), the plots become ``data:`` URIs, so the page is
one file that needs no network.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

import numpy as np

from privtools.bandits.experiments.plots import plot_regret

from .checks import AUDIT_ALPHA, P_THRESHOLD, verdict

# The file signatures of the image types the page can embed.
_IMAGE_TYPES = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg"}

_STYLE = ("body{font-family:sans-serif;max-width:1100px;margin:2em auto;line-height:1.4}"
          "h1+p{padding:.5em .8em;border:1px solid #bbb;background:#f5f5f5}"
          "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;"
          "padding:3px 8px;font-size:90%}img{max-width:100%}code{font-size:90%}"
          "math{font-family:math;font-size:105%}")


def md_text(text) -> str:
    """Dynamic text made safe inside the report's Markdown (and its tables).

    Dollar signs would open math and vertical bars would split a table cell; both are
    backslash-escaped. Everything else is left as written, so the ``.md`` stays readable
    (the HTML page escapes HTML itself).

    Parameters
    ----------
    text : object
        Any value; it is formatted with ``str``.

    Returns
    -------
    str
        The text with ``$`` and ``|`` escaped.
    """
    return re.sub(r"([$|])", r"\\\1", str(text))


def mathml(tex: str, display: bool = False) -> str:
    """TeX math as a MathML ``<math>`` element (MathML Core, rendered by browsers natively).

    Parameters
    ----------
    tex : str
        The TeX source, without dollar signs.
    display : bool, optional
        Display (block) math rather than inline math.

    Returns
    -------
    str
        ``<math display=...><semantics>...<annotation encoding="application/x-tex">``, the
        TeX kept as the annotation (what a copy or a screen reader may use).
    """
    from latex2mathml.converter import convert

    out = convert(tex, display="block" if display else "inline")
    inner = out[out.index(">") + 1:out.rindex("</math>")]
    # A slash is ordinary in TeX (no space around it); MathML's operator table spaces it.
    inner = inner.replace("<mo>&#x0002F;</mo>", '<mo lspace="0" rspace="0">&#x0002F;</mo>')
    mode = "block" if display else "inline"
    return (f'<math display="{mode}"><semantics><mrow>{inner}</mrow>'
            f'<annotation encoding="application/x-tex">{html.escape(tex)}</annotation>'
            "</semantics></math>")


def data_uri(path: Path) -> str:
    """An image file as a ``data:`` URI (base64), for a page that embeds its images.

    Parameters
    ----------
    path : pathlib.Path
        A PNG or JPEG file.

    Returns
    -------
    str
        ``data:image/png;base64,...`` (or ``image/jpeg``).

    Raises
    ------
    ValueError
        If the file is neither PNG nor JPEG (by its signature).
    """
    raw = Path(path).read_bytes()
    kind = next((t for sig, t in _IMAGE_TYPES.items() if raw.startswith(sig)), None)
    if kind is None:
        raise ValueError(f"{path}: not a PNG or JPEG image; the page cannot embed it")
    return f"data:{kind};base64," + base64.b64encode(raw).decode("ascii")


def _embedded_image(self, tokens, idx, options, env):
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    if re.match(r"[a-z][a-z0-9+.-]*:", src, re.IGNORECASE):
        raise ValueError(f"image {src!r}: the page embeds local files only, no URLs")
    token.attrSet("src", data_uri(env["base"] / src))
    return self.image(tokens, idx, options, env)


def html_page(md: str, base: Path | None = None) -> str:
    """A self-contained HTML page of a Markdown report: no file or network it depends on.

    Rendered with markdown-it-py (CommonMark and tables; raw HTML in the Markdown is
    escaped, not passed through). Math between ``$...$`` (inline) or ``$$...$$`` (display)
    becomes MathML (:func:`mathml`); every image ``![alt](file.png)`` is read from ``base``
    and embedded as a ``data:`` URI (:func:`data_uri`).

    Parameters
    ----------
    md : str
        The Markdown, e.g. from :func:`markdown`.
    base : pathlib.Path, optional
        The directory image paths are relative to (default: the current directory).

    Returns
    -------
    str
        The page, a complete HTML5 document.

    Raises
    ------
    FileNotFoundError
        If an image the Markdown links is missing.
    ValueError
        If an image is a URL, or not a PNG or JPEG file.
    """
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    renderer = MarkdownIt("commonmark", {"html": False}).enable("table")
    renderer.use(dollarmath_plugin, allow_labels=False, allow_space=False, allow_digits=False,
                 renderer=lambda tex, opts: mathml(tex, opts["display_mode"]))
    renderer.add_render_rule("image", _embedded_image)
    body = renderer.render(md, {"base": Path(".") if base is None else Path(base)})
    title = next((line[2:].strip() for line in md.splitlines() if line.startswith("# ")),
                 "report")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>\n<body>\n"
            f"{body}</body></html>\n")


def verdict_parts(r: dict) -> tuple[str, str, bool]:
    """The verdict line in two parts: the toolkit's checks, then the findings about papers.

    Parameters
    ----------
    r : dict
        The result of :func:`privtools.demo.run_demo`.

    Returns
    -------
    (str, str, bool)
        ``"toolkit checks: 22/22 pass"`` (or which fail); ``"findings about the papers:
        ..."`` (the claims of paper 000 that fail, named, "not toolkit failures"); and
        whether every toolkit check passed.
    """
    v = verdict(r)
    tk = v["toolkit_checks"]
    toolkit = f"toolkit checks: {tk['passed']}/{tk['total']} pass"
    if tk["failed"]:
        toolkit += " — FAILED: " + "; ".join(tk["failed"])
    found, total = v["paper_findings"], v["paper_claims"]
    if not total:
        papers = "findings about the papers: none (no paper claim was checked)"
    elif not found:
        papers = f"findings about the papers: all {total} claims of paper 000 hold (reduced grid)"
    else:
        fails = all(f["status"] == "fails" for f in found)
        verb = ("fails" if fails else "does not hold") if len(found) == 1 else (
            "fail" if fails else "do not hold")
        names = ", ".join(f["claim"] if fails else f"{f['claim']} {f['status']}" for f in found)
        papers = (f"findings about the papers: {len(found)} of {total} claims of paper 000 "
                  f"{verb} on the reduced grid ({names}) — "
                  + ("a finding about the paper, not a toolkit failure" if len(found) == 1
                     else "findings about the paper, not toolkit failures"))
    return toolkit, papers, v["all_passed"]


def verdict_line(r: dict) -> str:
    """The verdict as one plain line (``summary.json``'s ``verdict``).

    Parameters
    ----------
    r : dict
        The result of :func:`privtools.demo.run_demo`.

    Returns
    -------
    str
        ``"toolkit checks: N/N pass; findings about the papers: ..."``.
    """
    toolkit, papers, _ = verdict_parts(r)
    return f"{toolkit}; {papers}"


def noise_plot(plots, path: Path) -> None:
    """Plot each mechanism's exact law of the summed shares against the simulated batches.

    Parameters
    ----------
    plots : list of (str, ExactPMF, numpy.ndarray)
        Per mechanism: its name, the exact law of the summed shares
        (:class:`privtools.exact.ExactPMF`) and the simulated batch sums.
    path : pathlib.Path
        The PNG file to write.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(plots), figsize=(5 * len(plots), 3.8))
    for ax, (name, P, sums) in zip(np.atleast_1d(axes), plots):
        k = np.arange(P.lo, P.hi + 1)
        p = P.to_numpy()
        keep = p > 1e-300
        ax.semilogy(k[keep], p[keep], lw=1.2, label="exact (Arb convolution)")
        vals, counts = np.unique(sums, return_counts=True)
        ax.semilogy(vals, counts / sums.size, ".", ms=2, alpha=0.6, label="simulated batches")
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("total noise of one batch")
        ax.set_ylim(1e-15, 1.5 * p.max())
        shown = k[p > 1e-15]
        ax.set_xlim(shown.min(), shown.max())
    np.atleast_1d(axes)[0].set_ylabel("probability")
    np.atleast_1d(axes)[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def tradeoff_plot(curve: dict, path: Path, title: str = "") -> None:
    """Plot a ledger's certified trade-off band β(α) with the μ-GDP curves at the ends of its
    certified μ interval.

    Parameters
    ----------
    curve : dict
        ``{"alpha": [...], "beta": [[lo, hi], ...], "gdp_mu": [lo, hi]}`` (as
        ``privtools account --fdp --json`` prints it).
    path : pathlib.Path
        The PNG file to write.
    title : str
        The plot's title.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy.stats import norm

    a = np.asarray(curve["alpha"], dtype=float)
    lo = np.array([b[0] for b in curve["beta"]], dtype=float)
    hi = np.array([b[1] for b in curve["beta"]], dtype=float)
    fig, ax = plt.subplots(figsize=(4.6, 4.2))
    ax.fill_between(a, lo, hi, color="tab:blue", alpha=0.35, lw=0)
    ax.plot(a, lo, color="tab:blue", lw=1.2, label="certified β(α): lower end (the guarantee)")
    grid = np.linspace(0.0, 1.0, 401)
    words = ("μ-GDP fails below", "μ-GDP certified")
    for mu, style, word in zip(curve["gdp_mu"], ("--", ":"), words):
        if np.isfinite(mu):
            ax.plot(grid, norm.cdf(norm.ppf(1 - grid) - mu), style, color="tab:red", lw=1,
                    label=f"G_μ, μ = {mu:.4g} ({word})")
    ax.plot(grid, 1 - grid, color="0.6", lw=0.8, label="no privacy loss: 1 − α")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("type I error α")
    ax.set_ylabel("type II error β")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def regret_plot(df, png: Path, T: int, runs: int) -> None:
    """Plot the trust models' regret curves (the experiment runner's plot).

    Parameters
    ----------
    df : pandas.DataFrame
        The runs, from :func:`privtools.demo.checks.regret_runs`.
    png : pathlib.Path
        The PNG file to write.
    T : int
        The horizon.
    runs : int
        Runs per policy.
    """

    plot_regret(df, png, title=f"easy instances, K = 10, T = {T:,}, {runs} runs, ε = 1")


def _verdict_md(r: dict) -> str:
    toolkit, papers, _ = verdict_parts(r)
    label, rest = papers.split(": ", 1)
    return f"Verdict: **{md_text(toolkit)}**; **{label}:** {md_text(rest)}."


def markdown(r: dict) -> str:
    """The demo's report in Markdown, math as ``$...$``; the verdict line comes first.

    Parameters
    ----------
    r : dict
        The result of :func:`privtools.demo.run_demo` (``summary.json``).

    Returns
    -------
    str
        The report; it links ``noise.png`` and (with regret results) ``regret.png``, files
        of the same directory.
    """
    lines = [
        "# privtools demo report",
        "",
        _verdict_md(r),
        "",
        f"One batch of $n = {r['n']}$ users at $\\varepsilon = {r['epsilon']}$ "
        f"($s = {r['s']}$); {r['batches']} simulated batches per mechanism ({r['seconds']} s).",
        "",
        "## Summed noise shares: exact law and simulation",
        "",
        "- Theorem 1 (pure DP): $g = \\lceil \\varepsilon\\sqrt{n}\\,\\rceil$, each user adds "
        "$\\text{Pólya}(1/n, e^{-\\varepsilon/g}) - \\text{Pólya}(1/n, e^{-\\varepsilon/g})$; "
        "the sum is $\\mathrm{Lap}_{\\mathbb{Z}}(g/\\varepsilon)$ (Fact 1).",
        "- Theorem 2 (RDP): $g = \\lceil s\\varepsilon\\sqrt{n}\\,\\rceil$, each user adds "
        "$\\mathrm{Sk}(0, g^2/(n\\varepsilon^2))$; the sum is "
        "$\\mathrm{Sk}(0, g^2/\\varepsilon^2)$.",
        "- Theorem 4 (CDP): $g = \\lceil s\\varepsilon\\sqrt{n}\\,\\rceil$, each user adds "
        "$\\mathcal{N}_{\\mathbb{Z}}(0, g^2/(n\\varepsilon^2))$; the sum is close to, but not "
        "exactly, $\\mathcal{N}_{\\mathbb{Z}}(0, g^2/\\varepsilon^2)$ (Lemma 4).",
        "",
        "For each, the certified interval of the total variation between the exact law of "
        "the summed shares $\\eta_i$ and the closed form,",
        "",
        "$$",
        "\\mathrm{TV}\\bigl(\\eta_1 + \\dots + \\eta_n,\\ \\text{closed form}\\bigr) "
        "\\in [a, b],",
        "$$",
        "",
        "and a G-test of the simulated batch sums against that exact law.",
        "",
        "| mechanism | share | total (closed form) | TV(sum of shares, closed form) "
        "| G-test p | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for m in r["mechanisms"]:
        tv = f"[{m['tv_sum_vs_closed_form'][0]:.2e}, {m['tv_sum_vs_closed_form'][1]:.2e}]"
        lines.append(f"| {md_text(m['mechanism'])} | `{md_text(m['share'])}` | "
                     f"`{md_text(m['total'])}` | {tv} | {m['g_test_p']:.3g} | "
                     f"{'pass' if m['passed'] else 'FAIL'} |")
    lines += [
        "",
        "For Theorems 1 and 2 the sum of shares equals the closed form exactly (the TV "
        "interval contains 0 and is certified below $10^{-30}$). For Theorem 4 the sum of "
        "discrete Gaussians is not a discrete Gaussian, but with shares of $\\sigma = 10$ the "
        "gap is of order $e^{-2\\pi^2\\sigma^2}$ — far below the 40 digits computed, so the "
        "interval shows no difference (Lemma 4 (000) bounds its privacy effect).",
        "",
        "![summed noise](noise.png)",
        "",
        "## Integer-only samplers (Canonne–Kamath–Steinke 2020)",
        "",
        "| distribution | draws | G-test p | verdict |",
        "|---|---|---|---|",
    ]
    for e in r["exact_samplers"]:
        lines.append(f"| `{md_text(e['distribution'])}` | {e['draws']} | "
                     f"{e['g_test_p']:.3g} | {'pass' if e['passed'] else 'FAIL'} |")
    lines += ["", "## Symbolic proofs (sympy)", "", "| check | source | holds |", "|---|---|---|"]
    for c in r["symbolic"]:
        lines.append(f"| {md_text(c['name'])} | {md_text(c['source'])} | {c['holds']} |")
    lines += ["", "## Paper 000's claims (reduced grid; `privtools verify-claims --full` for all)",
              "", "| claim | source | verdict | worst slack |", "|---|---|---|---|"]
    for c in r.get("claims", []):
        slack = "–" if c["worst_slack"] is None else f"{c['worst_slack']:.4g}"
        lines.append(f"| {md_text(c['name'])} | {md_text(c['source'])} | **{c['status']}** | "
                     f"{slack} |")
    off = [c for c in r.get("claims", []) if c["status"] != "holds"]
    for c in off:
        lines += ["", f"- **{md_text(c['name'])} {c['status']}** — {md_text(c['statement'])}. "
                      f"Example: {md_text(c['example'])}"]
    lines += ["", "A failing or inconclusive paper claim is a finding about the paper, not a "
              "failure of the toolkit: it is not counted in the toolkit checks of the verdict "
              "above and does not change the exit status."]
    lines += ["", "## Black-box audits", "",
              f"Each audit fails correct code with probability at most {AUDIT_ALPHA}.", "",
              "| audit | verdict | detail |", "|---|---|---|"]
    for a in r.get("audits", []):
        lines.append(f"| {md_text(a['audit'])} | **{md_text(a['verdict'])}** | "
                     f"{md_text(a['detail'])} |")
    lines += ["", "## A deployment plan: $\\varepsilon = 1$, $n = 2^{16}$ users per batch, "
              "$T = 10^7$", "",
              "$\\tau$ is the certified exact quantile of the total noise (the theorem's bound "
              "in brackets); every plan is then verified exactly.", "",
              "| privacy | theorem | $g$ | $\\tau$ (bound) | $m$ | bits (bound) | achieved "
              "privacy (target) | P(fail) | verdict |", "|---|---|---|---|---|---|---|---|---|"]
    for p in r.get("plans", []):
        lines.append(f"| {md_text(p['privacy'])} ($s = {p['s']}$) | {p['theorem']} | "
                     f"{p['g']} | {p['tau']} ({p['tau_bound']}) | {p['m']} | {p['bits']} "
                     f"({p['bits_bound']}) | {md_text(p['privacy_result'])} | "
                     f"{md_text(p['failure'])} | **{'pass' if p['passed'] else 'FAIL'}** |")
    if r.get("regret"):
        reg = r["regret"]
        horizon = f"{reg[0]['horizon']:,}".replace(",", "\\,")
        lines += ["", "## Regret of the trust models (easy instances, $\\varepsilon = 1$)", "",
                  f"Final time-average pseudo-regret at $T = {horizon}$ over {reg[0]['runs']} "
                  "runs. AdaC-UCB runs at $\\rho = \\varepsilon^2/2 = 1/2$, the zCDP level "
                  "pure $\\varepsilon$-DP implies (for a comparison at equal "
                  "$(\\varepsilon, \\delta)$ see the documentation).", "",
                  "| policy | $\\mathrm{Reg}(T)/T$ | s.e. |", "|---|---|---|"]
        for x in reg:
            lines.append(f"| {md_text(x['policy'])} | {x['mean']:.4f} | {x['se']:.4f} |")
        lines += ["", "![regret](regret.png)"]
    lines += ["", f"G-tests pass at $p \\ge {_tex_number(P_THRESHOLD)}$ (false-alarm rate "
              f"{P_THRESHOLD} per test)."]
    return "\n".join(lines) + "\n"


def _tex_number(x: float) -> str:
    mant, exp = f"{x:.0e}".split("e")
    return f"10^{{{int(exp)}}}" if mant == "1" else f"{x:g}"


def print_summary(r: dict, out: Path, console) -> None:
    """Print the one-screen summary: a table of every check, then the verdict line.

    Parameters
    ----------
    r : dict
        The result of :func:`privtools.demo.run_demo`.
    out : pathlib.Path
        The report directory (named in the last line).
    console : rich.console.Console
        Where to print.
    """
    from rich.markup import escape
    from rich.table import Table

    t = Table(title=f"noise library, n = {r['n']}, ε = {r['epsilon']}")
    for c in ("check", "result", "verdict"):
        t.add_column(c)
    ok, bad = "[green]pass[/green]", "[red]FAIL[/red]"
    for m in r["mechanisms"]:
        t.add_row(escape(m["mechanism"]),
                  f"TV<= {m['tv_sum_vs_closed_form'][1]:.1e}, G-test p={m['g_test_p']:.3f}",
                  ok if m["passed"] else bad)
    for e in r["exact_samplers"]:
        t.add_row(f"exact sampler {escape(e['distribution'])}", f"G-test p={e['g_test_p']:.3f}",
                  ok if e["passed"] else bad)
    held = sum(c["holds"] for c in r["symbolic"])
    t.add_row("symbolic proofs", f"{held}/{len(r['symbolic'])} hold",
              ok if held == len(r["symbolic"]) else bad)
    if r.get("claims"):
        held = sum(c["status"] == "holds" for c in r["claims"])
        off = ", ".join(f"{c['name']} {c['status']}" for c in r["claims"]
                        if c["status"] != "holds")
        t.add_row("paper 000's claims (reduced grid; findings, not toolkit checks)",
                  f"{held}/{len(r['claims'])} hold",
                  "[green]all hold[/green]" if not off else f"[yellow]{escape(off)}[/yellow]")
    for a in r.get("audits", []):
        t.add_row(f"audit: {escape(a['audit'])}", escape(a["detail"]),
                  ok if a["passed"] else f"[red]{escape(a['verdict'])}[/red]")
    for p in r.get("plans", []):
        t.add_row(f"plan {p['privacy']} n=2^16 T=10^7", f"g={p['g']} τ={p['tau']} "
                  f"({p['tau_bound']}) m={p['m']} {p['bits']} bits", ok if p["passed"] else bad)
    if r.get("regret"):
        best = ", ".join(f"{x['policy']} {x['mean']:.4f}" for x in r["regret"])
        t.add_row("regret Reg(T)/T (ε = 1)", escape(best), "info")
    console.print(t)
    toolkit, papers, passed = verdict_parts(r)
    colour = "green" if passed else "red"
    found = "yellow" if verdict(r)["paper_findings"] else "green"
    console.print(f"[{colour}]{escape(toolkit)}[/{colour}]; [{found}]{escape(papers)}[/{found}]")
    console.print(f"{r['seconds']} s — report: {out / 'report.md'} "
                  f"(HTML: {out / 'report.html'})")
