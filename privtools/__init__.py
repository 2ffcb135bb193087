"""privtools — discrete noise, distributed-DP protocols and private bandits that the
``verification`` package can check exactly.

Papers: 000 (Distributed DP in multi-armed bandits, full version), 001 (zCDP bandits),
002/003 (conference and short versions of 000).
"""

__version__ = "0.1.0"

from privtools.randomness import secure_rng

__all__ = ["secure_rng", "__version__"]
