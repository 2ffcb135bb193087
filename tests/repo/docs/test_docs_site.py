"""The documentation site as a reader sees it: built once, served over HTTP, opened in a real
headless Chromium.

For the home page, an API page, a guide and a notebook page: the page loads (HTTP 200), its
main article has its heading and substantial text, the browser logs no error (a missing
script, stylesheet or image, a JavaScript exception), every stylesheet and image loaded,
nothing is fetched from another origin (CI has no network), and the math is drawn. The
built-in search finds ``audit_mechanism`` on its API page. Screenshots of each page go to a
temporary directory, and to ``$PRIVTOOLS_SCREENSHOTS`` when it is set.

The site: ``$PRIVTOOLS_DOCS_HTML`` when it names a built HTML directory (CI builds it once,
strictly, in a step of its own); otherwise it is built here once per module with the strict
command of docs/conf.py. Sphinx, myst-nb and furo (the ``docs`` extra), selenium, Chromium
and chromedriver are optional dependencies: a test skips when one is missing and says which,
unless ``PRIVTOOLS_REQUIRE_DOCS=1``, when it fails instead.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.optional import OPTIONAL

ROOT = Path(__file__).resolve().parents[3]
REQUIRED = os.environ.get("PRIVTOOLS_REQUIRE_DOCS") == "1"
WAIT = 20  # seconds: the longest any wait below may take (never asserted on)
WINDOW = (1280, 900)

#: (screenshot name, page, its h1, the fewest images it shows)
PAGES = [
    ("home", "index.html", "privtools", 0),
    ("api", "api/verification.audit.html", "verification.audit", 0),
    ("guide", "guides/auditing.html", "Auditing a mechanism or a sampler", 0),
    ("notebook", "notebooks/08_auditing_your_own_mechanism.html",
     "08 — Auditing your own mechanism", 1),
]
#: the page whose math is checked (the four above have none of their own)
MATH_PAGE = "math.html"


def _missing(what: str, detail: str = "") -> None:
    """Skip (or, under PRIVTOOLS_REQUIRE_DOCS=1, fail) for the missing dependency *what*."""
    detail = f" ({detail})" if detail else ""
    if REQUIRED:
        pytest.fail(f"{what} is missing{detail}; PRIVTOOLS_REQUIRE_DOCS=1 requires it")
    pytest.skip(f"{OPTIONAL}: {what}{detail}")


def _need(module: str, what: str):
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        _missing(what, str(exc))


# ----------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The built HTML directory."""
    given = os.environ.get("PRIVTOOLS_DOCS_HTML")
    if given:
        path = Path(given)
        assert (path / "index.html").is_file(), (
            f"PRIVTOOLS_DOCS_HTML={given} is not a built HTML directory (no index.html)")
        return path
    for module in ("sphinx", "myst_nb", "furo"):
        _need(module, f"{module} (the `docs` extra: pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("docs-html")
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-b", "html",
           "-d", str(tmp_path_factory.mktemp("docs-doctrees")), "docs", str(out)]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, (f"the strict docs build failed: {' '.join(cmd[2:])}\n"
                                 f"{run.stdout[-3000:]}\n{run.stderr[-6000:]}")
    return out


class _Handler(SimpleHTTPRequestHandler):
    """Serves the site quietly, recording every request's path and status."""

    log: list[tuple[str, int]]

    def log_request(self, code="-", size="-"):
        self.log.append((self.path, int(getattr(code, "value", code))))

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def server(site):
    """(base URL, request log) of an HTTP server of the site on 127.0.0.1."""
    log: list[tuple[str, int]] = []
    handler = type("Handler", (_Handler,), {"log": log})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0),
                                functools.partial(handler, directory=str(site)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/", log
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=WAIT)


def _first(*candidates: str | None) -> str | None:
    return next((c for c in candidates if c and Path(c).exists()), None)


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium (via selenium) for the module, 1280x900, logging its console."""
    _need("selenium", "selenium (the `docs` extra)")
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={WINDOW[0]},{WINDOW[1]}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    binary = _first("/usr/bin/chromium", shutil.which("chromium"),
                    shutil.which("chromium-browser"), shutil.which("google-chrome"))
    if binary:
        options.binary_location = binary
    driver_path = _first("/usr/bin/chromedriver", shutil.which("chromedriver"))
    service = Service(driver_path) if driver_path else Service()
    try:
        driver = webdriver.Chrome(options=options, service=service)
    except WebDriverException as exc:
        _missing("Chromium and chromedriver (apt install chromium chromium-driver)",
                 f"browser {binary or 'not found'}, driver {driver_path or 'not found'}: "
                 f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
    try:
        driver.set_window_size(*WINDOW)
        # The window's own frame takes some height: grow it until the page sees 1280x900.
        inner = driver.execute_script("return [window.innerWidth, window.innerHeight];")
        driver.set_window_size(2 * WINDOW[0] - inner[0], 2 * WINDOW[1] - inner[1])
        driver.set_page_load_timeout(WAIT)
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def shots(tmp_path) -> list[Path]:
    """Where screenshots go: a temporary directory, and $PRIVTOOLS_SCREENSHOTS when set."""
    dirs = [tmp_path]
    if os.environ.get("PRIVTOOLS_SCREENSHOTS"):
        dirs.append(Path(os.environ["PRIVTOOLS_SCREENSHOTS"]))
    for d in dirs:
        d.mkdir(parents=True, exist_ok=True)
    return dirs


# ------------------------------------------------------------------------------ helpers
def _wait(driver, condition, message: str):
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, WAIT).until(condition)
    except TimeoutException:
        pytest.fail(f"timed out after {WAIT} s waiting for {message}")


def _open(driver, server, page: str) -> tuple[list[dict], list[tuple[str, int]]]:
    """Load *page*; (its browser console messages, the server's answers while loading)."""
    base, log = server
    driver.get_log("browser")  # drop what earlier pages logged
    del log[:]
    try:
        with urllib.request.urlopen(base + page, timeout=WAIT) as resp:
            status = resp.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    assert status == 200, f"GET {page}: HTTP {status}"
    driver.get(base + page)
    _wait(driver, lambda d: d.execute_script("return document.readyState") == "complete",
          f"{page} to finish loading")
    status = driver.execute_script(
        "const n = performance.getEntriesByType('navigation')[0];"
        "return n && n.responseStatus !== undefined ? n.responseStatus : 200;")
    assert status == 200, f"the browser got HTTP {status} for {page}"
    # Images load eagerly here, so those below the fold are checked too.
    driver.execute_script("for (const i of document.images) i.loading = 'eager';")
    _wait(driver, lambda d: d.execute_script(
        "return Array.from(document.images).every(i => i.complete);"),
        f"the images of {page} to load")
    return driver.get_log("browser"), list(log)


def _check_page(driver, server, page: str, heading: str, min_images: int,
                shots: list[Path], name: str) -> None:
    console, requests = _open(driver, server, page)
    _screenshot(driver, shots, name)  # first, so that a failing page is seen too
    if driver.execute_script(
            "const o = document.querySelector('.cell_output img');"
            "if (o) o.scrollIntoView({block: 'center', behavior: 'instant'}); return !!o;"):
        _screenshot(driver, shots, f"{name}-output")
        driver.execute_script("window.scrollTo({top: 0, behavior: 'instant'});")
    severe = [f"{m.get('source', '')}: {m['message']}" for m in console
              if m.get("level") == "SEVERE"]
    assert not severe, f"{page}: the browser console has errors:\n" + "\n".join(severe)
    failed = [f"{code} {path}" for path, code in requests
              if code >= 400 and path.split("?")[0] != "/favicon.ico"]
    assert not failed, f"{page}: the server answered errors:\n" + "\n".join(failed)

    article = driver.execute_script(
        "const a = document.querySelector('article[role=main]') ||"
        " document.querySelector('main') || document.body;"
        "const h = a.querySelector('h1');"
        "return [a.innerText, h ? h.textContent : null];")
    text, h1 = article
    assert h1 is not None, f"{page}: the main article has no h1"
    assert h1.replace("¶", "").strip() == heading, f"{page}: h1 is {h1!r}, not {heading!r}"
    assert len(text.strip()) > 500, f"{page}: the main article has only {len(text)} chars"

    broken = driver.execute_script(
        "return Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0))"
        ".map(i => i.currentSrc || i.src);")
    assert not broken, f"{page}: images that did not load: {broken}"
    n_images = driver.execute_script("return document.images.length;")
    assert n_images >= min_images, f"{page}: {n_images} images, expected >= {min_images}"

    sheets = driver.execute_script(
        "return Array.from(document.styleSheets).map(s => {"
        " let n = -1; try { n = s.cssRules.length; } catch (e) {}"
        " return [s.href || '(inline)', n]; });")
    empty = [href for href, n in sheets if href != "(inline)" and n <= 0]
    assert not empty, f"{page}: stylesheets that did not load: {empty}"
    assert any("furo" in href for href, _ in sheets), f"{page}: no furo stylesheet: {sheets}"
    assert driver.execute_script(
        "const s = document.querySelector('.sidebar-tree');"
        "return !!s && s.getBoundingClientRect().width > 0;"), (
        f"{page}: the navigation sidebar is not shown at {WINDOW[0]}px")

    foreign = driver.execute_script(
        "return performance.getEntriesByType('resource').map(r => r.name)"
        ".filter(n => !n.startsWith(location.origin));")
    assert not foreign, f"{page}: resources fetched from another origin (no network in CI): " \
                        f"{foreign}"
    _check_math(driver, page)


def _check_math(driver, page: str) -> int:
    """Check that every formula of *page* is drawn; return how many there are.

    The site renders math to MathML at build time (docs/_ext), which the browser draws
    itself. Should a page load MathJax instead, it must be a local copy (CI has no network),
    and it must have typeset every formula."""
    mathjax = driver.execute_script(
        "return Array.from(document.scripts).map(s => s.src)"
        ".filter(s => /mathjax/i.test(s));")
    remote = [s for s in mathjax if not s.startswith(driver.execute_script(
        "return location.origin;"))]
    assert not remote, f"{page}: MathJax is loaded from another origin: {remote}"
    if mathjax:  # a local MathJax: wait until it has typeset the page
        _wait(driver, lambda d: d.execute_script(
            "if (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) return false;"
            "if (window.__mjxDone === undefined) { window.__mjxDone = false;"
            " MathJax.startup.promise.then(() => { window.__mjxDone = true; }); }"
            "return window.__mjxDone;"), f"MathJax to typeset {page}")
        counts = driver.execute_script(
            "return [document.querySelectorAll('.math').length,"
            " document.querySelectorAll('mjx-container').length,"
            " document.querySelectorAll('mjx-merror').length];")
        assert counts[1] >= counts[0] and counts[2] == 0, (
            f"{page}: {counts[0]} formulas, {counts[1]} typeset, {counts[2]} errors")
        return counts[0]
    drawn = driver.execute_script(
        "return Array.from(document.querySelectorAll('math')).map(m => {"
        " const r = m.getBoundingClientRect();"
        " return [m.textContent.slice(0, 60), r.width > 0 && r.height > 0,"
        "         getComputedStyle(m).display,"
        "         m.querySelectorAll('merror').length]; });")
    bad = [d for d in drawn if not d[1] or "math" not in d[2] or d[3]]
    assert not bad, (f"{page}: formulas not drawn as MathML "
                     f"(text, has a size, display, errors): {bad[:10]}")
    leftover = driver.execute_script(
        "const a = document.querySelector('article[role=main]') || document.body;"
        "return Array.from(a.querySelectorAll('code')).map(c => c.textContent)"
        ".filter(t => /\\\\(frac|sum|mathrm|varepsilon|left|right)\\b/.test(t));")
    assert not leftover, f"{page}: formulas left as raw TeX: {leftover[:5]}"
    return len(drawn)


def _screenshot(driver, dirs: list[Path], name: str) -> None:
    png = driver.get_screenshot_as_png()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000, f"{name}: a blank screenshot?"
    for d in dirs:
        (d / f"{name}.png").write_bytes(png)


# -------------------------------------------------------------------------------- tests
@pytest.mark.parametrize("name,page,heading,min_images", PAGES, ids=[p[0] for p in PAGES])
def test_page_loads_cleanly_in_a_browser(browser, server, shots, name, page, heading,
                                         min_images):
    _check_page(browser, server, page, heading, min_images, shots, name)


def test_math_is_drawn_without_a_network(browser, server, shots):
    console, _ = _open(browser, server, MATH_PAGE)
    _screenshot(browser, shots, "math")
    severe = [m["message"] for m in console if m.get("level") == "SEVERE"]
    assert not severe, f"{MATH_PAGE}: the browser console has errors:\n" + "\n".join(severe)
    n = _check_math(browser, MATH_PAGE)
    assert n >= 10, f"{MATH_PAGE}: only {n} formulas"


def test_search_finds_audit_mechanism_on_its_api_page(browser, server, shots):
    base, _ = server
    browser.get_log("browser")
    browser.get(base + "search.html?q=audit_mechanism")

    def hits(driver):
        links = driver.execute_script(
            "return Array.from(document.querySelectorAll('#search-results li a'))"
            ".map(a => a.getAttribute('href'));")
        done = driver.execute_script(
            "const p = document.querySelector('#search-results .search-summary');"
            "return !!p && p.textContent.trim().length > 0;")
        return links if links and done else False

    links = _wait(browser, hits, "search results for audit_mechanism")
    _screenshot(browser, shots, "search")
    assert any(h.split("#")[0].endswith("api/verification.audit.html") for h in links), (
        f"no search result links to api/verification.audit.html: {links}")
    assert any(h.endswith("#verification.audit.audit_mechanism") for h in links), (
        f"no search result links to the audit_mechanism entry: {links}")
    severe = [m["message"] for m in browser.get_log("browser") if m.get("level") == "SEVERE"]
    assert not severe, "search.html: the browser console has errors:\n" + "\n".join(severe)


def test_figure_markers_show_only_the_figure(site):
    """A page marks each figure it quotes for scripts/quoted_figures.py
    (``<!--fig name-->56<!--/fig-->``); the built page shows the figure, neither the marker
    nor the name."""
    marker = re.compile(r"<!--fig (?P<name>[^<>\s]+)-->(?P<value>.*?)<!--/fig-->")
    pages = [p for p in sorted((ROOT / "docs").glob("*.md"))
             if marker.search(p.read_text(encoding="utf-8"))]
    assert len(pages) >= 10
    for page in pages:
        html = (site / f"{page.stem}.html").read_text(encoding="utf-8")
        assert "<!--fig" not in html and "&lt;!--fig" not in html, page.name
        for m in marker.finditer(page.read_text(encoding="utf-8")):
            assert f"&lt;{m['name']}&gt;" not in html and f"<{m['name']}>" not in html, (
                page.name, m["name"])
