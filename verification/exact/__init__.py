"""Deprecated alias of :mod:`privtools.exact` (the exact engine has one import path)."""

import warnings

from privtools.exact import (
    ExactPMF,
    closed_form_sum,
    convolve,
    shift,
    sum_pmf,
    total_variation,
    wrap,
)

warnings.warn("verification.exact is privtools.exact: import it from there",
              DeprecationWarning, stacklevel=2)

__all__ = ["ExactPMF", "sum_pmf", "convolve", "closed_form_sum", "shift", "wrap",
           "total_variation"]
