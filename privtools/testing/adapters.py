"""Third-party DP objects in the form privtools' black-box auditor uses.

:func:`verification.audit.audit_mechanism` (and :func:`privtools.testing.assert_private`)
audits a *mechanism* ``mechanism(dataset, size, rng)`` that returns ``size`` independent
outputs on ``dataset``. The two adapters here wrap what other libraries build::

    from privtools.testing import adapters

    m = adapters.opendp(measurement)       # an OpenDP Measurement
    m = adapters.diffprivlib(mechanism)    # a diffprivlib mechanism instance
    outs = m(dataset, 1000, np.random.default_rng(0))
    audit_mechanism(m, d, d_prime, m.epsilon, 200_000, delta=m.delta)

Both return an :class:`AdaptedMechanism`, which also carries the library's own **privacy
claim** ``(m.epsilon, m.delta)``, read from the library object, never restated by hand —
OpenDP: the privacy map at the input distance ``d_in``, turned into (ε, δ) by the output
measure (see :func:`opendp`); diffprivlib: the mechanism's ``epsilon`` and ``delta``.
Auditing ``m`` against that claim checks the library's claim about itself.

Randomness: diffprivlib (>= 0.6) mechanisms keep their generator in ``_rng``; the adapter
draws each call from a copy seeded by ``rng``, so audits repeat bit for bit
(``seedable = True``). OpenDP draws from its own OS-seeded CSPRNG in Rust and cannot be
seeded: ``rng`` is accepted and ignored (``seedable = False``), so an audit of an OpenDP
measurement repeats only up to its false-alarm rate ``alpha``.

Under a grey-box trace the additive mechanisms release ``value + noise`` through the
tracing generator (:mod:`privtools.testing._traced`). Neither library is imported here:
diffprivlib's objects are duck-typed (``randomise``, ``epsilon``, ``delta``; ``import
diffprivlib`` fails with a newer scikit-learn) and OpenDP is imported where needed."""

from __future__ import annotations

import copy
import math
import numbers
import pickle
import re
import sys

import numpy as np

from privtools.accounting import zcdp_to_dp
from privtools.errors import ParameterError
from privtools.validation import check_int, check_probability

from ._traced import dpl_draw, opendp_draw

__all__ = ["AdaptedMechanism", "opendp", "diffprivlib", "zcdp_epsilon"]

_INT_TYPES = frozenset({"i8", "i16", "i32", "i64", "i128", "isize",
                        "u8", "u16", "u32", "u64", "u128", "usize"})
_FLOAT_TYPES = frozenset({"f32", "f64"})
# input metrics whose unit distance is the usual neighbouring relation: |x - x'| <= 1 on
# atoms, ||x - x'|| <= 1 on vectors, one record added or removed (symmetric,
# insert-delete), one record changed (change-one, Hamming), any change (discrete)
_UNIT_METRICS = frozenset({"absolutedistance", "l1distance", "l2distance",
                           "symmetricdistance", "insertdeletedistance", "changeonedistance",
                           "hammingdistance", "discretedistance"})
# diffprivlib mechanisms that release integers (subclasses are found through the MRO)
_DPL_INTEGER = frozenset({"Geometric", "GaussianDiscrete"})
_DEFAULT_RANGE = (-100, 100)
_DEFAULT_MAX_RECORDS = 32
_NAME_LIMIT = 200


# ====================================================================== the adapted form
class AdaptedMechanism:
    """A library's mechanism as ``mechanism(dataset, size, rng)`` with its privacy claim.

    All attributes are read-only.

    Attributes
    ----------
    library : str
        ``"opendp"`` or ``"diffprivlib"``.
    name : str
        A readable description (or the ``name`` given to the adapter).
    epsilon, delta : float
        The claim read from the library object: the mechanism is (ε, δ)-DP for datasets at
        input distance ``d_in``.
    d_in :
        The input distance the claim is for (OpenDP), or None (diffprivlib: its
        sensitivity is built into the mechanism).
    seedable : bool
        True when the outputs are a function of ``rng`` (diffprivlib), False when the
        library draws its own randomness and ``rng`` is ignored (OpenDP).
    claim_source : str
        How (ε, δ) was read (which map, which conversion).

    Notes
    -----
    Pickling: diffprivlib adapters pickle (each call seeds its own copy). OpenDP's pickle
    through ``opendp.serialize``/``deserialize`` (the same features enabled in the receiving
    process; measurements built from Python callbacks do not serialize). A derived
    ``datasets`` strategy is rebuilt after unpickling; a user's strategy does not pickle.
    """

    __slots__ = ("library", "name", "epsilon", "delta", "d_in", "seedable", "claim_source",
                 "_backend", "_user_datasets", "_spec", "_strategy")

    def __init__(self, library: str, name: str, epsilon: float, delta: float, *, backend,
                 seedable: bool, d_in=None, claim_source: str = "", datasets=None,
                 datasets_spec=None):
        values = {"library": library, "name": name, "epsilon": float(epsilon),
                  "delta": float(delta), "d_in": d_in, "seedable": bool(seedable),
                  "claim_source": claim_source, "_backend": backend,
                  "_user_datasets": datasets, "_spec": datasets_spec, "_strategy": None}
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def __setattr__(self, key, value):
        raise AttributeError(f"AdaptedMechanism is read-only (cannot set {key!r})")

    __delattr__ = __setattr__

    @property
    def datasets(self):
        """The accepted datasets: the strategy given, else one derived from the domain."""
        if self._user_datasets is not None:
            return self._user_datasets
        if self._strategy is None and self._spec is not None:
            object.__setattr__(self, "_strategy", _strategy_from_spec(self._spec))
        return self._strategy

    @property
    def target(self):
        """The wrapped library object (a copy, for diffprivlib)."""
        return self._backend.target

    def __call__(self, dataset, size, rng=None) -> np.ndarray:
        """``size`` independent outputs on ``dataset``: shape ``(size,)`` for scalar outputs,
        ``(size, k)`` for vectors; int64 for integers, float64 for floats (bool and
        object arrays for other outputs). ``rng``: None, an int seed, a SeedSequence or a
        numpy Generator; ignored when ``seedable`` is False."""
        size = check_int("size", size, minimum=1)
        return self._backend.draw(dataset, size, _generator(rng))

    def __repr__(self) -> str:
        extra = f", d_in={self.d_in!r}" if self.d_in is not None else ""
        return (f"AdaptedMechanism(library={self.library!r}, name={self.name!r}, "
                f"epsilon={self.epsilon!r}, delta={self.delta!r}{extra}, "
                f"seedable={self.seedable})")

    def __reduce__(self):
        keep = ("library", "name", "epsilon", "delta", "seedable", "d_in", "claim_source")
        return (_rebuild, ({k: getattr(self, k) for k in keep}, self._backend,
                           self._user_datasets, self._spec))


def _rebuild(fields: dict, backend, datasets, spec) -> AdaptedMechanism:
    return AdaptedMechanism(**fields, backend=backend, datasets=datasets, datasets_spec=spec)


def _generator(rng) -> np.random.Generator | None:
    if rng is None or isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.SeedSequence) or (
            isinstance(rng, numbers.Integral) and not isinstance(rng, bool) and rng >= 0):
        return np.random.default_rng(rng)
    raise ParameterError("rng must be None, a non-negative int seed, a SeedSequence or a numpy "
                         f"Generator, got {rng!r}")


def _to_array(outs: list, integer: bool = False) -> np.ndarray:
    """The outputs of ``size`` calls as one array (see :meth:`AdaptedMechanism.__call__`)."""
    if integer:
        return np.asarray(outs, dtype=np.int64)
    if all(isinstance(v, (bool, np.bool_)) for v in outs):
        return np.asarray(outs, dtype=bool)
    if all(isinstance(v, numbers.Integral) for v in outs):
        try:
            return np.asarray(outs, dtype=np.int64)
        except OverflowError:
            return _objects(outs)
    if all(isinstance(v, numbers.Real) for v in outs):
        return np.asarray(outs, dtype=np.float64)
    if all(isinstance(v, (list, tuple, np.ndarray)) for v in outs):
        try:
            arr = np.asarray(outs)
        except ValueError:              # ragged
            return _objects(outs)
        if arr.ndim == 2 and arr.dtype.kind in "biuf":
            return arr.astype({"b": bool, "i": np.int64, "u": np.int64}.get(arr.dtype.kind,
                                                                            np.float64))
        return _objects(outs)
    return _objects(outs)


def _objects(outs: list) -> np.ndarray:
    arr = np.empty(len(outs), dtype=object)
    for i, v in enumerate(outs):        # element by element: numpy would unpack tuples
        arr[i] = tuple(v) if isinstance(v, (list, np.ndarray)) else v
    return arr


def _check_datasets(datasets):
    """None, a hypothesis strategy, or a non-empty list of datasets (as
    :mod:`privtools.testing.strategies` takes them)."""
    if datasets is None or (isinstance(datasets, (list, tuple)) and len(datasets) > 0):
        return datasets
    # a strategy exists only once hypothesis is imported: no import needed here
    strategy = getattr(sys.modules.get("hypothesis.strategies"), "SearchStrategy", None)
    if strategy is not None and isinstance(datasets, strategy):
        return datasets
    raise ParameterError("datasets must be a hypothesis strategy of datasets or a non-empty "
                         f"list of them, got {type(datasets).__name__}")


def _check_name(name) -> str | None:
    if name is not None and not isinstance(name, str):
        raise ParameterError(f"name must be a string or None, got {type(name).__name__}")
    return name


def zcdp_epsilon(rho, delta) -> float:
    """ε of the (ε, δ)-DP that ρ-zCDP implies: ε = ρ + 2 √(ρ ln(1/δ)), rounded up.

    Bun & Steinke, "Concentrated Differential Privacy: Simplifications, Extensions, and
    Lower Bounds" (TCC 2016), Proposition 1.3 — computed by the accountant's one conversion,
    :func:`privtools.accounting.zcdp_to_dp` (``method="standard"``). (OpenDP's
    ``make_zCDP_to_approxDP`` uses the tighter conversion of Canonne, Kamath & Steinke 2020;
    :func:`opendp` prefers it.)
    """

    if delta is None:
        raise ParameterError("delta must be a number in (0, 1), got None")
    return zcdp_to_dp(rho, delta, method="standard").epsilon


# ====================================================================== OpenDP
def _kind(text: str) -> str:
    """``'Approximate(MaxDivergence)'`` -> ``'approximate(maxdivergence)'`` (type
    parameters and spaces dropped), for measures and metrics of any OpenDP version."""
    text = re.sub(r"<[^<>]*>", "", str(text))
    text = re.sub(r"\((?:T=)?f(?:32|64)\)", "", text)     # older OpenDP: MaxDivergence(f64)
    return re.sub(r"[^a-z0-9()]", "", text.lower().split("::")[-1])


def _domain_shape(domain):
    """``("atom", carrier)``, ``("vector", carrier, size)`` or None, from the domain's type
    (``AtomDomain<i32>``, ``VectorDomain<AtomDomain<f64>>``)."""
    text = str(getattr(domain, "type", "")).replace(" ", "")
    m = re.fullmatch(r"AtomDomain<(\w+)>", text)
    if m:
        return ("atom", m.group(1))
    m = re.fullmatch(r"VectorDomain<AtomDomain<(\w+)>>", text)
    if m:
        size = getattr(domain, "size", None)
        return ("vector", m.group(1), None if size is None else int(size))
    return None


def _bounds(domain):
    try:
        lo, hi = domain.bounds
    except Exception:               # no bounds (None), or none readable in this version
        return None
    return lo, hi


def _convert_atom(x, carrier: str, what: str):
    if isinstance(x, np.generic):
        x = x.item()
    if carrier in _INT_TYPES:
        if isinstance(x, bool) or not isinstance(x, numbers.Integral):
            raise ParameterError(f"{what} must be an integer for carrier type {carrier}, "
                                 f"got {x!r}")
        return int(x)
    if carrier in _FLOAT_TYPES:
        if isinstance(x, bool) or not isinstance(x, numbers.Real):
            raise ParameterError(f"{what} must be a number for carrier type {carrier}, "
                                 f"got {x!r}")
        return float(x)
    wanted = {"bool": bool, "String": str}.get(carrier)
    if wanted is not None and not isinstance(x, wanted):
        raise ParameterError(f"{what} must be a {wanted.__name__} for carrier type {carrier}, "
                             f"got {x!r}")
    return x


class _OpenDPBackend:
    """Calls an OpenDP measurement once per output, on ``dataset`` converted to the carrier
    type of its input domain."""

    def __init__(self, measurement, shape):
        self.target = measurement
        self.shape = shape

    def _value(self, dataset):
        shape = self.shape
        if shape is None:
            value = dataset
        elif shape[0] == "atom":
            value = _convert_atom(dataset, shape[1], "dataset")
        else:
            if isinstance(dataset, np.ndarray):
                dataset = dataset.tolist()
            if not isinstance(dataset, (list, tuple)):
                raise ParameterError(f"dataset must be a list of records for the vector "
                                     f"domain {self.target.input_domain}, got "
                                     f"{type(dataset).__name__}")
            value = [_convert_atom(x, shape[1], "each record of dataset") for x in dataset]
        try:
            member = self.target.input_domain.member(value)
        except Exception as exc:  # OpenDP raises its own exception types
            raise ParameterError(f"dataset {dataset!r} does not fit the measurement's input "
                                 f"domain {self.target.input_domain}: {exc}") from None
        if not member:
            raise ParameterError(f"dataset {dataset!r} is not a member of the measurement's "
                                 f"input domain {self.target.input_domain}")
        return value

    def draw(self, dataset, size: int, rng) -> np.ndarray:
        value = self._value(dataset)    # OpenDP draws its own (OS-seeded) randomness
        meas = self.target
        if getattr(rng, "trace_noise", None) is not None:     # under a trace: see _traced

            carrier = None if self.shape is None else self.shape[1]
            out = opendp_draw(meas, value, size, rng, carrier in _INT_TYPES,
                              carrier in _INT_TYPES | _FLOAT_TYPES)
            if out is not None:
                return out
        return _to_array([meas(value) for _ in range(size)])

    def __reduce__(self):
        try:
            import opendp.prelude as dp

            text = dp.serialize(self.target)
        except Exception as exc:
            raise pickle.PicklingError(
                f"cannot pickle this OpenDP measurement: OpenDP measurements hold pointers "
                f"into the Rust library and opendp.serialize failed ({exc})") from None
        return (_opendp_backend_from_json, (text, self.shape))


def _opendp_backend_from_json(text: str, shape) -> _OpenDPBackend:
    import opendp.prelude as dp

    return _OpenDPBackend(dp.deserialize(text), shape)


def _default_d_in(measurement):
    metric = measurement.input_metric
    kind = _kind(str(metric).split("(")[0])
    if kind not in _UNIT_METRICS:
        raise ParameterError(f"d_in: cannot choose a default input distance for the input "
                             f"metric {metric}; pass d_in (the distance between the "
                             "neighbouring datasets the claim is for)")
    return 1.0 if str(getattr(metric, "distance_type", "")) in _FLOAT_TYPES else 1


def _coerce_d_in(measurement, d_in):
    if isinstance(d_in, bool):
        raise ParameterError(f"d_in must be a distance, got {d_in!r}")
    dtype = str(getattr(measurement.input_metric, "distance_type", ""))
    if dtype in _FLOAT_TYPES and isinstance(d_in, numbers.Real):
        return float(d_in)
    if dtype in _INT_TYPES and isinstance(d_in, numbers.Integral):
        return int(d_in)
    return d_in


def _map(measurement, d_in, what: str = "d_in"):
    try:
        return measurement.map(d_in)
    except Exception as exc:  # OpenDPException, TypeError, ...
        raise ParameterError(f"{what}: OpenDP's privacy map rejected d_in = {d_in!r} "
                             f"({type(exc).__name__}: {str(exc).strip()})") from None


def _via_fix_delta(measurement, d_in, delta: float, to_approx: bool):
    """(ε, δ) from OpenDP's own combinators: ``make_fix_delta`` (after
    ``make_zCDP_to_approxDP`` when ``to_approx``). Raises whatever OpenDP raises."""
    import opendp.prelude as dp

    meas = dp.c.make_zCDP_to_approxDP(measurement) if to_approx else measurement
    eps, d = dp.c.make_fix_delta(meas, delta).map(d_in)
    return float(eps), float(d)


def _opendp_claim(measurement, d_in, delta):
    """(ε, δ, how) for the output measure of ``measurement`` at ``d_in``."""
    measure = measurement.output_measure
    kind = _kind(str(measure))
    needs_delta = kind in ("zeroconcentrateddivergence", "smoothedmaxdivergence",
                           "approximate(zeroconcentrateddivergence)",
                           "approximate(smoothedmaxdivergence)")
    if needs_delta and delta is None:
        raise ParameterError(f"delta: the output measure {measure} gives (ε, δ) only for a "
                             "chosen δ; pass delta in (0, 1)")
    if not needs_delta and delta is not None and kind in (
            "maxdivergence", "approximate(maxdivergence)", "fixedsmoothedmaxdivergence"):
        raise ParameterError(f"delta: the output measure {measure} states its claim itself; "
                             "delta is only for zCDP and smoothed max-divergence measures")
    if kind == "maxdivergence":
        return float(_map(measurement, d_in)), 0.0, f"ε = map({d_in!r}) (MaxDivergence)"
    if kind in ("approximate(maxdivergence)", "fixedsmoothedmaxdivergence"):
        eps, d = _map(measurement, d_in)
        return float(eps), float(d), f"(ε, δ) = map({d_in!r}) ({measure})"
    if kind == "zeroconcentrateddivergence":
        rho = _map(measurement, d_in)
        try:
            eps, d = _via_fix_delta(measurement, d_in, delta, to_approx=True)
        except Exception:  # "contrib" not enabled, or an OpenDP without it
            return (zcdp_epsilon(float(rho), delta), delta,
                    f"ρ = map({d_in!r}) = {float(rho)!r} (zCDP), ε = ρ + 2√(ρ ln(1/δ)) "
                    "(Bun & Steinke 2016, Prop. 1.3)")
        return (eps, d, f"ρ = map({d_in!r}) = {float(rho)!r} (zCDP), converted by OpenDP's "
                        "make_zCDP_to_approxDP + make_fix_delta (Canonne, Kamath & Steinke "
                        "2020)")
    if kind == "smoothedmaxdivergence":
        profile = _map(measurement, d_in)
        try:
            eps = float(profile.epsilon(delta))
        except Exception as exc:
            raise ParameterError(f"delta: the privacy profile has no ε at δ = {delta!r} "
                                 f"({str(exc).strip()})") from None
        return eps, delta, f"ε = map({d_in!r}).epsilon({delta!r}) (SmoothedMaxDivergence)"
    if kind in ("approximate(zeroconcentrateddivergence)", "approximate(smoothedmaxdivergence)"):
        _map(measurement, d_in)
        try:
            eps, d = _via_fix_delta(measurement, d_in, delta,
                                    to_approx=kind.endswith("(zeroconcentrateddivergence)"))
        except Exception as exc:
            raise ParameterError(f"delta: OpenDP could not fix δ = {delta!r} for the measure "
                                 f"{measure} ({str(exc).strip()}); the \"contrib\" feature "
                                 "must be enabled") from None
        return eps, d, f"(ε, δ) by OpenDP's make_fix_delta at δ = {delta!r} ({measure})"
    raise ParameterError(f"measurement: output measure {measure} is not supported (supported: "
                         "MaxDivergence, Approximate(MaxDivergence), ZeroConcentratedDivergence, "
                         "SmoothedMaxDivergence and their Approximate forms)")


def _describe_json(node) -> str:
    func = node.get("__function__", "?")
    kw = node.get("__kwargs__", {}) or {}
    if func.startswith("make_chain_"):
        parts = [v for k, v in kw.items() if isinstance(v, dict)]
        return " >> ".join(_describe_json(p) for p in reversed(parts))
    args = ", ".join(f"{k}={v!r}" for k, v in kw.items()
                     if not isinstance(v, (dict, list)) and v is not None
                     and k not in ("input_domain", "input_metric", "T", "TO", "MO"))
    return f"{func}({args})"


def _opendp_name(measurement) -> str:
    spaces = (f"{measurement.input_domain}, {measurement.input_metric} -> "
              f"{measurement.output_measure}")
    try:
        import json

        import opendp.prelude as dp

        head = _describe_json(json.loads(dp.serialize(measurement)))
    except Exception:  # e.g. measurements built from Python callbacks
        head = "OpenDP measurement"
    text = f"{head}: {spaces}"
    return text if len(text) <= _NAME_LIMIT else text[:_NAME_LIMIT - 1] + "…"


def _datasets_spec(domain):
    """A picklable description of a default dataset strategy, or None."""
    shape = _domain_shape(domain)
    if shape is None:
        return None
    if shape[0] == "atom":
        return _atom_spec(shape[1], _bounds(domain))
    element = _atom_spec(shape[1], _bounds(domain.element_domain))
    if element is None:
        return None
    return ("list", element, shape[2])


def _atom_spec(carrier: str, bounds):
    if carrier in _INT_TYPES:
        lo, hi = bounds if bounds is not None else _DEFAULT_RANGE
        if carrier.startswith("u"):
            lo = max(int(lo), 0)
        return ("int", int(lo), int(hi))
    if carrier in _FLOAT_TYPES:
        lo, hi = bounds if bounds is not None else _DEFAULT_RANGE
        return ("float", float(lo), float(hi), 32 if carrier == "f32" else 64)
    if carrier == "bool":
        return ("bool",)
    return None


def _strategy_from_spec(spec):
    try:
        from hypothesis import strategies as st
    except ImportError:
        return None
    kind = spec[0]
    if kind == "int":
        return st.integers(spec[1], spec[2])
    if kind == "float":
        return st.floats(spec[1], spec[2], allow_nan=False, allow_infinity=False,
                         width=spec[3])
    if kind == "bool":
        return st.booleans()
    element, size = _strategy_from_spec(spec[1]), spec[2]
    if size is not None:
        return st.lists(element, min_size=size, max_size=size)
    return st.lists(element, max_size=_DEFAULT_MAX_RECORDS)


def opendp(measurement, *, d_in=None, datasets=None, delta=None,
           name: str | None = None) -> AdaptedMechanism:
    """An OpenDP ``Measurement`` as ``mechanism(dataset, size, rng)``, with its claim.

    Parameters
    ----------
    measurement : opendp.mod.Measurement
        Built by the caller (who enables OpenDP's features, e.g. ``"contrib"``; this
        adapter never does).
    d_in : optional
        The input distance the claim is for. Default: one unit of the input metric —
        ``1`` (or ``1.0`` for float distances) for ``absolute_distance``, ``l1_distance``,
        ``l2_distance``, ``symmetric_distance`` and ``insert_delete_distance`` (one record
        added or removed; a *substituted* record is at symmetric distance 2),
        ``change_one_distance``, ``hamming_distance`` and ``discrete_distance``. Other
        metrics need it given.
    datasets : hypothesis strategy or list, optional
        Datasets the measurement accepts (kept as ``m.datasets``). Default: derived from
        the input domain when it is an atom or vector domain of integers, floats or
        booleans (its bounds, else [-100, 100]; vectors of the domain's size, else up to
        32 records), else None.
    delta : float in (0, 1), optional
        Required for measures that give (ε, δ) only at a chosen δ (below); refused for
        those that state their claim themselves.
    name : str, optional
        Default: the constructors (from ``opendp.serialize``) and the measurement's spaces.

    Notes
    -----
    The claim, from the output measure and ``r = measurement.map(d_in)``:

    * ``MaxDivergence``: ε = r, δ = 0;
    * ``Approximate(MaxDivergence)`` (``fixed_smoothed_max_divergence``): (ε, δ) = r;
    * ``ZeroConcentratedDivergence`` (r = ρ; ``delta`` required): (ε, δ) from OpenDP's own
      ``make_fix_delta(make_zCDP_to_approxDP(measurement), delta)`` — the conversion of
      Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy"
      (NeurIPS 2020) — or, where those combinators cannot be built (the "contrib" feature
      not enabled), ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke, TCC 2016, Proposition 1.3;
      :func:`zcdp_epsilon`), a looser but valid claim;
    * ``SmoothedMaxDivergence`` (``delta`` required): ε = ``r.epsilon(delta)``;
    * ``Approximate(ZeroConcentratedDivergence)`` / ``Approximate(SmoothedMaxDivergence)``
      (``delta`` required; needs "contrib"): (ε, δ) by ``make_fix_delta`` (after
      ``make_zCDP_to_approxDP`` for zCDP);
    * any other measure: :class:`~privtools.errors.ParameterError`.

    Each call evaluates ``measurement(dataset)`` ``size`` times; ``dataset`` is converted
    to the input domain's carrier (a Python int or float for atom domains, a list of them
    for vector domains) and checked for membership. OpenDP draws its own randomness from
    the OS: ``rng`` is accepted and ignored (``seedable = False``), so outputs do not
    repeat from a seed. Pickling: see :class:`AdaptedMechanism`.
    """
    try:
        from opendp.mod import Measurement
    except ImportError:             # then nothing is an OpenDP measurement
        Measurement = None
    if Measurement is None or not isinstance(measurement, Measurement):
        raise ParameterError(f"measurement must be an OpenDP Measurement, got "
                             f"{type(measurement).__name__}")
    delta = None if delta is None else float(check_probability("delta", delta))
    name = _check_name(name)
    datasets = _check_datasets(datasets)
    d_in = _default_d_in(measurement) if d_in is None else _coerce_d_in(measurement, d_in)
    eps, d, how = _opendp_claim(measurement, d_in, delta)
    domain = measurement.input_domain
    return AdaptedMechanism(
        "opendp", name or _opendp_name(measurement), eps, d,
        backend=_OpenDPBackend(measurement, _domain_shape(domain)), seedable=False,
        d_in=d_in, claim_source=how, datasets=datasets,
        datasets_spec=None if datasets is not None else _datasets_spec(domain))


# ====================================================================== diffprivlib
def _dpl_value(dataset):
    if isinstance(dataset, np.generic):
        dataset = dataset.item()
    if dataset is None or isinstance(dataset, bool):
        raise ParameterError(f"dataset must be the query answer (a number), got {dataset!r}")
    return dataset


class _DiffprivlibBackend:
    """``randomise`` once per output, on a copy of the mechanism seeded from ``rng`` when
    the mechanism keeps its generator in ``_rng`` (diffprivlib >= 0.6)."""

    def __init__(self, mechanism, integer: bool, seedable: bool):
        self.target = mechanism
        self.integer = integer
        self.seedable = seedable

    def _instance(self, rng):
        if not self.seedable:
            return self.target
        if rng is None:
            rng = np.random.default_rng()
        seed = int(rng.integers(2**32))
        mech = copy.copy(self.target)
        # what DPMechanism.__init__ does with random_state=seed: check_random_state(seed)
        # is np.random.RandomState(seed)
        mech.random_state = seed
        mech._rng = np.random.RandomState(seed)
        return mech

    def draw(self, dataset, size: int, rng) -> np.ndarray:
        value = _dpl_value(dataset)
        if self.seedable and getattr(rng, "trace_noise", None) is not None:

            out = dpl_draw(self, value, size, rng)     # under a trace: see _traced
            if out is not None:
                return out
        mech = self._instance(rng)
        randomise = mech.randomise
        try:
            first = randomise(value)
        except (TypeError, ValueError) as exc:
            raise ParameterError(f"dataset: the mechanism rejected the query answer "
                                 f"{value!r} ({exc})") from None
        outs = [first]
        outs.extend(randomise(value) for _ in range(size - 1))
        return _to_array(outs, integer=self.integer)

    def __getstate__(self):
        state = dict(self.__dict__)
        if self.seedable:               # each call installs its own seeded generator
            target = copy.copy(self.target)
            target._rng = None
            state["target"] = target
        return state


def diffprivlib(mechanism, *, name: str | None = None) -> AdaptedMechanism:
    """A diffprivlib mechanism instance as ``mechanism(dataset, size, rng)``, with its claim.

    Parameters
    ----------
    mechanism : diffprivlib mechanism
        A built instance (``Laplace(epsilon=1, sensitivity=1)``, ``Geometric``,
        ``Gaussian``, ``GaussianAnalytic``, ``GaussianDiscrete``, ``LaplaceTruncated``,
        ``LaplaceBoundedDomain``, ...): anything with ``randomise(value)`` and numeric
        ``epsilon`` and ``delta`` (diffprivlib is not imported). The adapter keeps a
        shallow copy, so later changes to ``mechanism`` do not reach it.
    name : str, optional
        Default: the mechanism's ``repr``.

    Notes
    -----
    The claim is ``(mechanism.epsilon, mechanism.delta)``, the parameters diffprivlib built
    the mechanism for (its sensitivity is built in: the claim is for query answers at most
    ``sensitivity`` apart).

    Each call runs ``randomise(dataset)`` ``size`` times on the query answer ``dataset``
    (a number; integer mechanisms — Geometric and its subclasses, GaussianDiscrete — need
    an int and return int64, the others float64). When the mechanism keeps its generator in
    ``_rng`` (diffprivlib >= 0.6) each call draws from a copy whose generator is
    ``np.random.RandomState(s)``, ``s`` drawn from ``rng`` — what the constructor's
    ``random_state=s`` sets up — so the outputs are a function of ``rng`` (``seedable``).
    Otherwise the mechanism's own generator is used and ``rng`` is ignored.
    """
    if isinstance(mechanism, type):
        raise ParameterError(f"mechanism must be a built diffprivlib mechanism, got the "
                             f"class {mechanism.__name__}; build it, e.g. "
                             f"{mechanism.__name__}(epsilon=1.0, sensitivity=1)")
    if not callable(getattr(mechanism, "randomise", None)):
        raise ParameterError(f"mechanism must be a diffprivlib mechanism (with a randomise "
                             f"method), got {type(mechanism).__name__}")
    claim = {}
    for attr in ("epsilon", "delta"):
        value = getattr(mechanism, attr, None)
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
            raise ParameterError(f"mechanism must carry a numeric {attr} (diffprivlib sets "
                                 f"it), got {value!r}")
        claim[attr] = float(value)
    if claim["epsilon"] < 0 or not 0.0 <= claim["delta"] <= 1.0:
        raise ParameterError(f"mechanism has an invalid claim: epsilon = {claim['epsilon']}, "
                             f"delta = {claim['delta']}")
    name = _check_name(name)
    integer = any(c.__name__ in _DPL_INTEGER for c in type(mechanism).__mro__)
    seedable = hasattr(mechanism, "_rng") and hasattr(mechanism, "random_state")
    return AdaptedMechanism(
        "diffprivlib", name or _dpl_name(mechanism), claim["epsilon"], claim["delta"],
        backend=_DiffprivlibBackend(copy.copy(mechanism), integer, seedable), seedable=seedable,
        claim_source="the mechanism's epsilon and delta attributes")


def _dpl_name(mechanism) -> str:
    cls = type(mechanism).__name__
    try:
        text = repr(mechanism)
    except Exception:  # noqa: BLE001 - any repr failure falls back to the class name
        text = cls
    start = text.find("(")          # diffprivlib: "diffprivlib.mechanisms.laplace.Laplace(...)"
    text = cls + text[start:] if start > 0 else cls
    return text if len(text) <= _NAME_LIMIT else text[:_NAME_LIMIT - 1] + "…"

