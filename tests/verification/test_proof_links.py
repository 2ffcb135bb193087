"""Proof beside code, checked: every ``@proven(...)`` link in ``privtools`` names a sympy proof
of ``verification.proofs`` (:data:`~verification.proofs.PROOFS`), every proof is linked from
some code, every linked proof holds when run, and the link leaves the function as it was.

The links are found twice: by parsing the sources (a decorated function in a module nothing
imports is still checked) and through the registry the decorator fills on import; the two
must agree."""

from __future__ import annotations

import ast
import importlib
import inspect
from fractions import Fraction
from pathlib import Path

import pytest

import privtools.proven as proven_module
from privtools.proven import links, proofs_of, proven
from verification import proofs

ROOT = Path(__file__).resolve().parents[2]
PROOF_NAMES = tuple(p.__name__ for p in proofs.PROOFS)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _source_links() -> dict[str, tuple[str, ...]]:
    """``module.qualname`` to proof names, read from the ``@proven(...)`` decorators in the
    sources of ``privtools`` (functions, methods of classes, at any nesting of classes)."""
    found: dict[str, tuple[str, ...]] = {}

    def visit(node, module: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, module, f"{prefix}{child.name}.")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for deco in child.decorator_list:
                    if isinstance(deco, ast.Call) and getattr(deco.func, "id", "") == "proven":
                        assert all(isinstance(a, ast.Constant) for a in deco.args), (
                            f"{module}.{prefix}{child.name}: proof names must be literals")
                        found[f"{module}.{prefix}{child.name}"] = tuple(
                            a.value for a in deco.args)

    for path in sorted((ROOT / "privtools").rglob("*.py")):
        if path.name == "proven.py":
            continue
        visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), _module_name(path), "")
    return found


SOURCE_LINKS = _source_links()


@pytest.fixture(scope="module")
def registered() -> dict[str, tuple[str, ...]]:
    for module in sorted({name.rsplit(".", 1)[0] for name in SOURCE_LINKS}):
        while module:  # import the module of each link (a class's module: drop trailing names)
            try:
                importlib.import_module(module)
                break
            except ModuleNotFoundError:
                module = module.rpartition(".")[0]
    return {k: v for k, v in links().items() if k.startswith("privtools.")}


def _resolve(dotted: str):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise LookupError(dotted)


def test_there_are_links():
    assert len(SOURCE_LINKS) >= 5


def test_the_registry_is_what_the_sources_say(registered):
    assert registered == SOURCE_LINKS


@pytest.mark.parametrize("name", sorted(SOURCE_LINKS))
def test_every_link_resolves_to_a_proof(name):
    fn = _resolve(name)
    assert proofs_of(fn) == SOURCE_LINKS[name]
    assert inspect.unwrap(fn) is fn  # the link is an attribute, not a wrapper
    for proof in SOURCE_LINKS[name]:
        assert proof in PROOF_NAMES, f"{name} links to {proof!r}, not a proof of " \
                                     f"verification.proofs ({', '.join(PROOF_NAMES)})"
        assert getattr(proofs, proof) in proofs.PROOFS


def test_the_proofs_are_listed_once_and_exported():
    assert len(set(PROOF_NAMES)) == len(PROOF_NAMES)
    assert set(PROOF_NAMES) <= set(proofs.__all__)


def test_no_proof_is_an_orphan():
    linked = {p for names in SOURCE_LINKS.values() for p in names}
    assert set(PROOF_NAMES) - linked == set()


@pytest.mark.parametrize("proof", PROOF_NAMES)
def test_each_linked_proof_holds(proof):
    check = getattr(proofs, proof)()
    assert isinstance(check, proofs.SymbolicCheck)
    assert check.holds, check.detail


def test_the_link_leaves_function_and_signature_alone(monkeypatch):
    monkeypatch.setattr(proven_module, "_LINKS", {})

    def f(a: int, b: int = 2, *, c: str = "x") -> str:
        """Doc."""
        return f"{a + b}{c}"

    before = (inspect.signature(f), f.__doc__, f.__name__, f.__qualname__)
    g = proven("fact2_tail", "polya_pgf")(f)
    assert g is f
    assert (inspect.signature(g), g.__doc__, g.__name__, g.__qualname__) == before
    assert g(1, c="y") == "3y"
    assert g.__proofs__ == proofs_of(g) == ("fact2_tail", "polya_pgf")
    assert links() == {f"{__name__}.{f.__qualname__}": ("fact2_tail", "polya_pgf")}
    assert proofs_of(len) == ()


def test_linked_methods_keep_their_behaviour():
    from privtools.noise import DiscreteLaplace, PolyaDifference, Skellam

    shares = DiscreteLaplace.shares
    assert list(inspect.signature(shares).parameters) == ["self", "n"]
    assert DiscreteLaplace(2).shares(4) == PolyaDifference(Fraction(1, 4), scale=2)
    assert Skellam(8).shares(4) == Skellam(2)
    assert "fact1_infinite_divisibility" in proofs_of(shares)


@pytest.mark.parametrize("bad", [(), ("",), ("not a name",), (3,)])
def test_a_link_needs_proof_names(bad):
    with pytest.raises(TypeError):
        proven(*bad)
