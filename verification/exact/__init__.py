"""The exact engine as the judge reads it: the public names of :mod:`privtools.exact`
(certified PMFs of summed noise, shift, wrap, total variation)."""

from privtools.exact import (
           ExactPMF,
           closed_form_sum,
           convolve,
           shift,
           sum_pmf,
           total_variation,
           wrap,
)

__all__ = ["ExactPMF", "sum_pmf", "convolve", "closed_form_sum", "shift", "wrap",
           "total_variation"]
