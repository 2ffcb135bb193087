"""Noise laws from command-line options (shared by `noise` and `audit --sampler`)."""

from __future__ import annotations

from privtools.errors import ParameterError

KINDS = ("laplace", "polya", "polya-difference", "skellam", "gaussian")


def build_law(kind: str, scale, var, sigma2, r, beta, mu):
    from privtools.noise import DiscreteGaussian, DiscreteLaplace, Polya, PolyaDifference, Skellam

    def need(name, value):
        if value is None:
            raise ParameterError(f"--{name} is required for '{kind}'")
        return value

    if kind == "laplace":
        return DiscreteLaplace(need("scale", scale))
    if kind == "skellam":
        return Skellam(need("var", var), mu or 0)
    if kind == "gaussian":
        return DiscreteGaussian(sigma2=need("sigma2", sigma2), mu=mu or 0)
    if kind in ("polya", "polya-difference"):
        cls = Polya if kind == "polya" else PolyaDifference
        if beta is not None:
            return cls(need("r", r), beta)
        return cls(need("r", r), scale=need("scale", scale))
    raise ParameterError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
