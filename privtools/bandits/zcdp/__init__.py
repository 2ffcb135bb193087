"""zCDP bandits (paper 001): AdaC-UCB for finite arms (:mod:`.ucb`) and the linear /
contextual algorithms AdaC-GOPE (:mod:`.gope`) and AdaC-OFUL (:mod:`.oful`). Their
environments live in :mod:`privtools.bandits.envs` (the linear ones are re-exported here),
their experiment presets in :mod:`privtools.bandits.experiments.presets`."""

from .ucb import (  # noqa: F401
    ZCDP_NON_PRIVATE,
    ZCDP_POLICIES,
    PrivacyReport,
    Release,
    RhoCalibration,
    UcbResult,
    ZcdpSpec,
    calibrate_rho,
    discrete_release,
    discrete_sigma2,
    episode_statistic,
    gaussian_release,
    gaussian_sigma2,
    privacy_report,
    quantize,
    simulate_ucb,
    zcdp_policy,
)

# linear and contextual algorithms (AdaC-GOPE / GOPE, AdaC-OFUL / RS-OFUL)
# isort: off
from .gope import GopeSpec, g_optimal_design, gope_policy, simulate_gope  # noqa: E402,F401
from .gope import PrivacyReport as LinearPrivacyReport  # noqa: E402,F401
from .gope import privacy_report as linear_privacy_report  # noqa: E402,F401
from ..envs.linear import (  # noqa: E402,F401
    ContextualEnv,
    LinearEnv,
    contextual_instance,
    sphere_instance,
)
from .oful import OfulSpec, oful_policy, simulate_oful  # noqa: E402,F401
# isort: on

# the linear environments' home is privtools.bandits.envs and LinearPrivacyReport is the one
# PrivacyReport under an earlier name: importable here, not exported twice
__all__ = [
    "ZCDP_NON_PRIVATE", "ZCDP_POLICIES", "PrivacyReport", "Release", "RhoCalibration",
    "UcbResult", "ZcdpSpec", "calibrate_rho", "discrete_release", "discrete_sigma2",
    "episode_statistic", "gaussian_release", "gaussian_sigma2", "privacy_report", "quantize",
    "simulate_ucb", "zcdp_policy", "GopeSpec", "g_optimal_design", "gope_policy",
    "simulate_gope", "linear_privacy_report", "OfulSpec", "oful_policy", "simulate_oful",
]
