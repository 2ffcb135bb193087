"""Noise laws from command-line options (shared by `noise` and `audit --sampler`), checked
before any work: options that the kind does not take are refused, values are parsed exactly,
and laws too wide for the float tail searches to finish in about a minute are refused with
the option and its limit."""

from __future__ import annotations

import math

from privtools.errors import ParameterError

from . import checks

KINDS = ("laplace", "polya", "polya-difference", "skellam", "gaussian")

#: the options each kind takes (``scale`` or ``beta`` for the Pólya kinds)
TAKES = {
    "laplace": ("scale",),
    "polya": ("r", "scale", "beta"),
    "polya-difference": ("r", "scale", "beta"),
    "skellam": ("var", "mu"),
    "gaussian": ("sigma2", "mu"),
}
LAW_OPTIONS = ("scale", "var", "sigma2", "r", "beta", "mu")

# Size limits (measured on 2 cores: describing a law at the limit — moments and certified
# ranges down to 1e-30 — takes at most ~40 s; beyond them the float tail searches take
# minutes to hours, or leave the int64 range).
MAX_LAPLACE_SCALE = 10**15       # closed-form tails: limited by the int64 range only
MAX_VARIANCE = 10**10            # Skellam var, discrete Gaussian sigma2 (Bessel / theta sums)
MAX_POLYA_SCALE = 10**15         # Pólya: b = -1/log(beta)
MAX_POLYA_DIFFERENCE_SCALE = 10**4  # Pólya difference: its float tail sums ~48 b terms
MAX_POLYA_R = 10**6


def build_law(kind: str, scale, var, sigma2, r, beta, mu, *, kind_option: str = "kind"):
    """The law of ``kind`` with the given options (None = not given); ParameterError naming
    the option for a bad value, an option the kind does not take, or a law beyond the size
    limits."""
    from privtools.noise import DiscreteGaussian, DiscreteLaplace, Polya, PolyaDifference, Skellam

    if kind not in KINDS:
        raise ParameterError(f"{kind_option} must be one of {', '.join(KINDS)}; got {kind!r}")
    values = dict(scale=scale, var=var, sigma2=sigma2, r=r, beta=beta, mu=mu)
    takes = TAKES[kind]
    checks.refuse([n for n in LAW_OPTIONS if values[n] is not None and n not in takes],
                  f"does not apply to {kind} (it takes {', '.join(checks.opt(n) for n in takes)})")
    if scale is not None and beta is not None:
        checks.refuse(["scale", "beta"], "contradict each other: give one of them "
                      "(beta = exp(-1/scale))")

    def need(name):
        if values[name] is None:
            raise ParameterError(f"{checks.opt(name)} is required for {kind}")
        return checks.number(name, values[name], positive=True)

    with checks.naming():
        if kind == "laplace":
            b = need("scale")
            checks.at_most("scale", b, MAX_LAPLACE_SCALE, "wider Lap_Z laws leave the int64 "
                           "range in their far tails")
            return DiscreteLaplace(b)
        if kind in ("skellam", "gaussian"):
            name = "var" if kind == "skellam" else "sigma2"
            v = need(name)
            checks.at_most(name, v, MAX_VARIANCE, "its certified ranges would take minutes "
                           "to hours")
            if kind == "skellam":
                return Skellam(v, mu or 0)
            return DiscreteGaussian(sigma2=v, mu=mu or 0)
        rr = need("r")
        checks.at_most("r", rr, MAX_POLYA_R, "its tail searches would take minutes to hours")
        cls = Polya if kind == "polya" else PolyaDifference
        most = MAX_POLYA_SCALE if kind == "polya" else MAX_POLYA_DIFFERENCE_SCALE
        if beta is not None:
            bt = checks.number("beta", beta, positive=True)
            if bt >= 1:
                raise ParameterError(f"--beta must be < 1, got {beta!r}")
            fb = float(bt)
            b_eff = math.inf if fb == 1.0 else 0.0 if fb == 0.0 else -1.0 / math.log(fb)
            checks.at_most("beta", b_eff, most, f"beta = exp(-1/b) with b = {b_eff:.3g}; b "
                           f"at most {most:.0e} keeps the tail sums within about a minute")
            return cls(rr, bt)
        b = need("scale")
        checks.at_most("scale", b, most, "the tail sums would take minutes to hours")
        return cls(rr, scale=b)
