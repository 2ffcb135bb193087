"""A narrow public face: every public module declares its names in ``__all__``, each name
resolves and has one import path (a package may re-export its own submodule's names, never
another room's), and the engine's internals stay private."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))
import public_modules as docs  # noqa: E402

_VALUES = (int, float, str, tuple, dict, frozenset, bytes, type(None))


def _exports(name: str):
    module = importlib.import_module(name)
    return module, list(getattr(module, "__all__", None) or ())


@pytest.mark.parametrize("name", docs.PUBLIC_MODULES)
def test_all_is_declared_and_resolves(name):
    module = importlib.import_module(name)
    assert hasattr(module, "__all__"), f"{name} has no __all__"
    names = list(module.__all__)
    assert len(names) == len(set(names)), f"{name}.__all__ repeats a name"
    assert [n for n in names if not hasattr(module, n)] == []
    assert [n for n in names if n.startswith("_") and n != "__version__"] == []


def test_each_name_has_one_import_path():
    homes: dict[int, set[str]] = {}
    objects = {}
    for name in docs.PUBLIC_MODULES:
        module, names = _exports(name)
        for n in names:
            obj = getattr(module, n)
            if isinstance(obj, _VALUES):
                continue
            homes.setdefault(id(obj), set()).add(name)
            objects[id(obj)] = n

    def nested(a: str, b: str) -> bool:
        return a == b or a.startswith(b + ".") or b.startswith(a + ".")

    twice = sorted((objects[k], sorted(v)) for k, v in homes.items()
                   if any(not nested(a, b) for a in v for b in v))
    assert twice == [], f"exported by unrelated public modules: {twice}"


def test_the_engine_internals_are_private():
    import privtools.exact.tails as tails

    assert not {"PMFTails", "check_tail_law", "resolve_center", "check_probability"} & set(
        tails.__all__)
    assert {"tail_points", "TailPoint"} <= set(tails.__all__)


@pytest.mark.parametrize("old", ["verification.exact", "verification.divergence"])
def test_the_judges_old_engine_paths_are_gone(old):
    sys.modules.pop(old, None)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)
