"""The command line's error boundary itself: exit 2 naming the option for bad input, no
traceback without --debug, exit 3 only for an internal error."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import privtools
from privtools.cli import app

from .test_cli_bad_inputs import NOISE, PLAN, runner


# ------------------------------------------------------------------ the boundary itself
def test_internal_errors_are_one_line_with_exit_3_and_debug_shows_the_traceback(monkeypatch):
    import privtools.cli as cli

    def broken(*args, **kwargs):
        raise ZeroDivisionError("float division by zero")

    monkeypatch.setattr(cli, "build_law", broken)
    res = runner.invoke(app, NOISE["laplace"])
    assert res.exit_code == 3 and "Traceback" not in res.output
    assert res.stderr.strip() == ("internal error: ZeroDivisionError: float division by zero "
                                  "(run with --debug for the traceback)")
    for args in (["--debug", *NOISE["laplace"]], [*NOISE["laplace"], "--debug"]):
        res = runner.invoke(app, args)
        assert res.exit_code == 3 and "Traceback" in res.stderr
        assert res.stderr.strip().splitlines()[-1].startswith("internal error: ZeroDivision")


def test_debug_shows_the_traceback_of_a_bad_input_too():
    res = runner.invoke(app, ["--debug", "noise", "laplace", "--scale", "-1"])
    assert res.exit_code == 2 and "Traceback" in res.stderr
    assert res.stderr.strip().splitlines()[-1].startswith("error: --scale")


def test_version_and_help_epilogue():
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0 and res.stdout.strip() == f"privtools {privtools.__version__}"
    res = runner.invoke(app, ["--help"])
    assert res.exit_code == 0
    text = " ".join(res.stdout.replace("│", " ").split())
    for words in ("0 ok", "1 a check failed", "2 bad input", "3 internal error", "--debug"):
        assert words in text


def test_simulate_help_lists_every_preset_from_the_registry():
    from privtools.bandits.experiments import PRESETS

    res = runner.invoke(app, ["simulate", "--help"])
    assert res.exit_code == 0
    text = " ".join(res.stdout.replace("│", " ").split())
    for name, preset in PRESETS.items():
        assert f"{name}: {' '.join(preset.description.split())}" in text


def test_square_brackets_survive_rich_markup():
    res = runner.invoke(app, NOISE["laplace"])
    assert res.exit_code == 0 and "P(X outside [lo, hi]) <= p" in res.stdout


def test_plan_default_tail_is_the_api_default():
    import inspect

    from privtools.planning import plan

    default = inspect.signature(plan).parameters["tail"].default
    res = runner.invoke(app, [*PLAN, "--no-verify", "--no-compare", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    api = plan(epsilon=1, n=16, horizon=1000)
    assert out["plan"]["tail"] == default and out["plan"]["tau"] == api.tau
    res = runner.invoke(app, ["plan", "--help"])
    assert f"(default: {default})" in " ".join(res.stdout.replace("│", " ").split())


@pytest.mark.parametrize(("args", "option"), [
    (["noise", "laplace", "--scale", "-1"], "--scale"),
    (["plan", "--epsilon", "1e-300", "--n", "16", "--horizon", "100"], "--epsilon"),
    (["demo", "--seed", "-1"], "--seed"),
])
def test_python_m_privtools_cli(args, option):
    res = subprocess.run([sys.executable, "-m", "privtools.cli", *args], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 2 and "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and option in lines[0]


