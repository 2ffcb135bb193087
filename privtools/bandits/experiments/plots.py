"""Figures in the style of 000 Fig. 1–4: time-average regret Reg(T)/T against T (log x),
one panel per ε, one line per policy (mean over instances × runs, shaded ± one standard
error). Non-private policies (ε = NaN) appear in every panel."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd


def curves(df: pd.DataFrame) -> pd.DataFrame:
    """Mean, standard error and count of ``avg_regret`` per (policy, ε, t)."""
    g = df.groupby(["policy", "epsilon", "t"], dropna=False, sort=False)["avg_regret"]
    out = g.agg(["mean", "std", "count"]).reset_index()
    out["se"] = (out["std"].fillna(0.0) / np.sqrt(out["count"])).astype(float)
    return out


def plot_regret(df: pd.DataFrame, path: str | Path, title: str | None = None,
                symbol: str = "ε") -> Path:
    """Draw the figure for results ``df`` (columns of
    :data:`privtools.bandits.experiments.runner.COLUMNS`) and save it as a PNG at ``path``;
    ``symbol`` names the privacy parameter in the panel titles (``"ρ"`` for zCDP)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    c = curves(df)
    eps_values = sorted(e for e in c["epsilon"].unique() if not math.isnan(e))
    panels = eps_values or [float("nan")]
    labels = list(dict.fromkeys(c["policy"]))
    colours = {lab: f"C{i % 10}" for i, lab in enumerate(labels)}
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 3.8), squeeze=False,
                             sharey=False)
    for ax, eps in zip(axes[0], panels):
        sel = c["epsilon"].isna() | (c["epsilon"] == eps)
        for lab in labels:
            d = c[sel & (c["policy"] == lab)].sort_values("t")
            if d.empty:
                continue
            t, m, se = d["t"].to_numpy(), d["mean"].to_numpy(), d["se"].to_numpy()
            ax.plot(t, m, color=colours[lab], label=lab, lw=1.6)
            ax.fill_between(t, m - se, m + se, color=colours[lab], alpha=0.2, lw=0)
        ax.set_xscale("log")
        ax.set_xlabel("T")
        ax.set_ylabel("Reg(T) / T")
        ax.grid(True, which="both", alpha=0.3)
        ax.set_title(f"{symbol} = {eps:g}" if not math.isnan(eps) else "non-private")
        ax.legend(fontsize=7)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


__all__ = ["curves", "plot_regret"]
