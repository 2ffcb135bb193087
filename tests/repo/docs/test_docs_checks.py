"""The strict checks of the documentation build (docs/_ext/privtools_docs.py) find what they
claim to find: dead internal links and anchors, public names without docstrings, and the
paper statements docstrings cite. They run without building the site."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest

from tests.optional import OPTIONAL

EXT = Path(__file__).resolve().parents[3] / "docs" / "_ext"

if os.environ.get("PRIVTOOLS_REQUIRE_DOCS") != "1":
    pytest.importorskip("sphinx", reason=f"{OPTIONAL}: sphinx (the docs extra)")
sys.path.insert(0, str(EXT))
import plain_refs  # noqa: E402
import privtools_docs as docs  # noqa: E402

sys.path.remove(str(EXT))


def _site(tmp_path: Path, pages: dict[str, str]) -> Path:
    for name, body in pages.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<html><body>{body}</body></html>")
    return tmp_path


def test_links_that_lead_somewhere_are_not_dead(tmp_path):
    site = _site(tmp_path, {
        "index.html": '<a href="guide/a.html#step">a</a><a href="#top">top</a><p id="top"/>'
                      '<a href="https://example.org/x">external</a><img src="img.png">',
        "guide/a.html": '<h2 id="step">s</h2><a href="../index.html">home</a>',
        "img.png": ""})
    assert docs.dead_links(site) == []


def test_a_missing_page_file_or_anchor_is_dead(tmp_path):
    site = _site(tmp_path, {
        "index.html": '<a href="nope.html">x</a><a href="a.html#missing">y</a>'
                      '<img src="_static/gone.png"><a href="a.html#here">ok</a>',
        "a.html": '<span id="here"></span>'})
    assert docs.dead_links(site) == [("index.html", "_static/gone.png"),
                                     ("index.html", "a.html#missing"),
                                     ("index.html", "nope.html")]


def test_every_public_module_has_its_docstrings():
    assert {m: docs.missing_docstrings(m) for m in docs.PUBLIC_MODULES} == {
        m: [] for m in docs.PUBLIC_MODULES}


def test_a_public_name_without_a_docstring_is_found(monkeypatch):
    module = types.ModuleType("fake_public")
    module.__doc__ = "A module."

    class Thing:
        """A class."""

        def documented(self):
            """Yes."""

        def bare(self):
            pass

        @property
        def prop(self):
            return 1

    def helper():
        pass

    Thing.__module__ = helper.__module__ = "fake_public"
    module.Thing, module.helper = Thing, helper
    module.__all__ = ["Thing", "helper"]
    monkeypatch.setitem(sys.modules, "fake_public", module)
    assert docs.missing_docstrings("fake_public") == ["Thing.bare", "Thing.prop", "helper"]


def test_cited_statements_are_indexed():
    found = docs.statements()
    assert "privtools.accounting.skellam_rdp_bound" in found[("000", "Lemma", "3")]
    assert "privtools.protocol.analyze" in found[("000", "Algorithm", "3")]
    assert all(key[0] in docs._PAPERS for key in found)


def test_every_proof_is_indexed_with_its_code():
    found = docs.proof_links()
    assert set(found) >= {"fact1_infinite_divisibility", "fact2_tail", "skellam_closure"}
    assert all(found.values())
    assert "privtools.noise.laplace.DiscreteLaplace.shares" in found[
        "fact1_infinite_divisibility"]


def test_the_site_links_only_names_that_exist():
    """docs/_ext/plain_refs.py: a code span naming the house links to its API entry; a name
    that does not exist is a build warning."""
    resolves, name = plain_refs.resolves, plain_refs.NAME
    assert resolves("privtools.planning.plan") and resolves("verification.audit.trace.record")
    assert resolves("privtools.noise.DiscreteLaplace.shares")
    assert not resolves("privtools.planning.plann") and not resolves("verification.exact")
    assert name.match("privtools.noise") and not name.match("numpy.random")
    assert not name.match("privtools") and not name.match("privtools.noise()")


def test_notebook_links_are_rewritten_to_the_sites_copies():
    page = ["[a](../notebooks/01_x.ipynb) [b](../../notebooks/02_y.ipynb)"]
    plain_refs.notebook_links(None, "index", page)
    assert page[0] == "[a](notebooks/01_x.ipynb) [b](../../notebooks/02_y.ipynb)"
    guide = ["[a](../../notebooks/01_x.ipynb)"]
    plain_refs.notebook_links(None, "guides/auditing", guide)
    assert guide[0] == "[a](../notebooks/01_x.ipynb)"
