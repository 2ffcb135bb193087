"""Import a repository script (``studies/``, ``notebooks/``) in a test, as it runs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_script(relative: str, name: str):
    """The module of the script at ``ROOT / relative``, imported under ``name``: its folder
    goes on ``sys.path`` (its sibling modules import as when it runs) and the module into
    ``sys.modules`` (dataclasses resolve their module by name)."""
    path = ROOT / relative
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod
