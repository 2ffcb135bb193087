"""zCDP bandits (paper 001): AdaC-UCB for finite arms (:mod:`.ucb`, presets in
:mod:`.finite_presets`) and the linear/contextual algorithms."""

from .ucb import (  # noqa: F401
    ZCDP_NON_PRIVATE,
    ZCDP_POLICIES,
    PrivacyReport,
    Release,
    UcbResult,
    ZcdpSpec,
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
from .linear_envs import (  # noqa: E402,F401
    ContextualEnv,
    LinearEnv,
    contextual_instance,
    sphere_instance,
)
from .oful import OfulSpec, oful_policy, simulate_oful  # noqa: E402,F401
# isort: on
