"""Run helpers shared by every bandit family (paper 000's successive elimination in
:mod:`~privtools.bandits.se`, paper 001's zCDP algorithms in :mod:`~privtools.bandits.zcdp`):
the argument checks of one simulated run and the checkpoint grid its regret is read at.

    default_checkpoints(T, count, start)   about ``count`` log-spaced times in [start, T]
    check_checkpoints(checkpoints, T)      checked checkpoint times, always ending at T
    check_run(env, horizon, checkpoints)   (K, T, checkpoints) of a finite-armed run
"""

from __future__ import annotations

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import check_int

from .envs.finite import Environment

__all__ = ["default_checkpoints", "check_checkpoints", "check_run"]


def default_checkpoints(horizon: int, count: int = 100, start: int = 1) -> np.ndarray:
    """About ``count`` log-spaced integer times in [start, T], always ending at T."""
    T = check_int("horizon", horizon, minimum=1)
    lo = min(check_int("start", start, minimum=1), T)
    pts = np.unique(np.round(np.geomspace(lo, T, count)).astype(np.int64))
    if pts[-1] != T:
        pts = np.append(pts, np.int64(T))
    return pts


def check_run(env, horizon, checkpoints) -> tuple[int, int, np.ndarray]:
    """(K, T, checkpoint times) for one run of a finite-armed policy on ``env``: an
    :class:`Environment` with K >= 2 arms and an integer horizon T >= K (every arm is
    pulled at least once); :class:`ParameterError` naming the parameter otherwise."""
    if not isinstance(env, Environment):
        raise ParameterError(f"env must be an Environment, got {type(env).__name__}")
    K = env.K
    if K < 2:
        raise ParameterError(f"the environment must have K >= 2 arms, got K = {K}")
    T = check_int("horizon", horizon, minimum=2)
    if T < K:
        raise ParameterError(f"horizon must be >= K = {K} (every arm is pulled at least "
                             f"once), got {T}")
    return K, T, check_checkpoints(checkpoints, T)


def check_checkpoints(checkpoints, T: int) -> np.ndarray:
    """Checkpoint times for a run of horizon ``T``: the default grid for None, else the
    sorted unique integers of ``checkpoints`` in [1, T] with T appended."""
    if checkpoints is None:
        return default_checkpoints(T)
    arr = np.asarray(checkpoints)
    if arr.dtype == bool or arr.dtype.kind not in "iu" or arr.ndim != 1:
        raise ParameterError("checkpoints must be a 1-D array of integers in [1, horizon]")
    if arr.size and (arr.min() < 1 or arr.max() > T):
        raise ParameterError(f"checkpoints must lie in [1, {T}], got "
                             f"[{arr.min()}, {arr.max()}]")
    arr = np.unique(arr.astype(np.int64))
    if arr.size == 0 or arr[-1] != T:
        arr = np.append(arr, np.int64(T))
    return arr
