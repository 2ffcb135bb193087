"""Running a mechanism under the recording generator: record, replay, probe, centre.

Every run calls ``mechanism(dataset, 1, rng)`` — one release, the auditor's contract with
``size = 1`` — on a fresh :class:`~.recorder.TracingGenerator`, and returns a :class:`Run`:
the output read as a :class:`~.leaves.Tree`, the calls made, and whether the replay stayed
coupled to its recording.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privtools.errors import ParameterError, UserCodeError

from ...outputs import as_outputs
from .affine import MEMO, Lin
from .leaves import Tree, flatten
from .recorder import Call, Session, TracingGenerator
from .tracked import Tape, Tracked

__all__ = ["Run", "Runner"]

# the replay's bit generator is keyed apart from every recording's
_REPLAY_KEY = 0x5EED_7AC3


@dataclass(frozen=True)
class Run:
    """One run: ``tree`` (None when the mechanism raised, ``error`` then says what),
    ``calls``, ``diverged`` (why the replay lost its coupling, or None) and ``untraced``
    (notes of randomness taken around the catalogue)."""

    tree: Tree | None
    calls: tuple
    diverged: str | None = None
    untraced: tuple = ()
    error: str | None = None
    tape: Tape | None = None       # a tracked run's nodes, conditions and escapes


class Runner:
    """Runs of one guarded mechanism (a :class:`privtools.usercode.UserCode`)."""

    def __init__(self, mechanism):
        self.mechanism = mechanism
        self.count = 0

    def _run(self, data, session: Session, key: int, *, tolerate: bool) -> Run:
        self.count += 1
        gen = TracingGenerator(key, session)
        try:
            out = self.mechanism(data, 1, gen)
        except UserCodeError as exc:
            if not tolerate:
                raise
            return Run(None, tuple(session.calls), session.diverged, tuple(session.untraced),
                       exc.cause if hasattr(exc, "cause") else str(exc))
        _check_count(out, self.mechanism)
        if session.mode == "replay" and session.diverged is None and \
                len(session.calls) < len(session.recorded):
            k = len(session.calls)
            session.diverged = (f"call {k} ({session.recorded[k].method}) of the recorded run "
                                "was not made")
        try:
            tree = flatten(out)
        except ValueError as exc:          # an output too large to read
            if not tolerate:
                raise ParameterError(f"the mechanism's output: {exc}") from None
            return Run(None, tuple(session.calls), session.diverged, tuple(session.untraced),
                       str(exc))
        return Run(tree, tuple(session.calls), session.diverged, tuple(session.untraced),
                   tape=session.tape)

    def tracked(self, data, recorded: tuple[Call, ...]) -> Run:
        """A replay of ``recorded`` whose draws are handed out as tracked values
        (:mod:`.tracked`); a mechanism that fails under tracking gives a run with no tree
        and the error."""
        s = Session("replay", list(recorded), tape=Tape())
        try:
            return self._run(data, s, _REPLAY_KEY - 1, tolerate=True)
        except ParameterError as exc:
            return Run(None, tuple(s.calls), s.diverged, tuple(s.untraced), str(exc), s.tape)

    def steered(self, data, recorded: tuple[Call, ...], steering) -> Run:
        """A tracked run whose branches on the noise follow ``steering`` (a
        :class:`~.steered.Steered`): the recorded draws where the calls match them, fresh
        draws elsewhere; ``steering.calls`` is the run's list of calls as it is made."""
        s = Session("steer", list(recorded), tape=Tape(steering=steering))
        steering.calls = s.calls
        steering.data_nodes = s.tape.data_nodes
        if steering.symbolic:                    # the data as atoms ("q", i)
            data = symbolic_data(data, s.tape)
        try:
            return self._run(data, s, _REPLAY_KEY - 2, tolerate=True)
        except ParameterError as exc:
            return Run(None, tuple(s.calls), None, tuple(s.untraced), str(exc), s.tape)

    def record(self, data, seed: int) -> Run:
        """A fresh run whose draws are recorded (errors of the mechanism propagate)."""
        return self._run(data, Session("record"), seed, tolerate=False)

    def replay(self, data, recorded: tuple[Call, ...], *, probe=None, center=False,
               tolerate=True, key: int = 0) -> Run:
        """A run served the ``recorded`` draws (perturbed by ``probe``, or centred); ``key``
        picks the bit generator's key (all apart from any recording's)."""
        s = Session("replay", list(recorded), probe=probe, center=center)
        return self._run(data, s, _REPLAY_KEY + 7919 * key, tolerate=tolerate)


def symbolic_data(data, tape: Tape) -> Tracked:
    """A numeric dataset as a tracked array whose entries are atoms ``("q", i)``: what the
    mechanism computes from it is then an exact affine form in the data (a proof's run)."""
    val = np.asarray(data, dtype=np.float64)
    form = np.empty(val.shape, dtype=object)
    memo = MEMO.table
    for i in range(val.size):
        lin = None if memo is None else memo.get(("datum", i))
        if lin is None:
            lin = Lin(Fraction(0), {("q", i): Fraction(1)})
            if memo is not None:
                memo[("datum", i)] = lin
        form.reshape(-1)[i] = lin
    return Tracked(val, form, tape)


def _check_count(out, mechanism) -> None:
    """The contract: ``mechanism(dataset, 1, rng)`` returns one release — an array or a
    list/tuple of length 1 (a dict, a set or a scalar is one release)."""
    if out is None or isinstance(out, (str, bytes)):
        try:                             # refused as the sampled audit refuses it
            as_outputs(out, 1)
        except ParameterError as exc:
            name = getattr(mechanism, "name", None)
            raise ParameterError(f"{exc} (returned by {name})" if isinstance(name, str)
                                 else str(exc)) from None
    n = None
    if isinstance(out, Tracked):
        out = out.val
    if isinstance(out, np.ndarray) and out.ndim >= 1:
        n = out.shape[0]
    elif isinstance(out, (list, tuple)):
        n = len(out)
    if n is not None and n != 1:
        who = getattr(mechanism, "name", None) or "the mechanism"
        raise ParameterError(f"{who} returned {n} outputs, expected 1 (the trace calls "
                             "mechanism(dataset, size=1, rng))")
