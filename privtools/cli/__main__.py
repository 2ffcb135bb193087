"""``python -m privtools.cli``: the same entry point as the ``privtools`` console script."""

from privtools.cli import main

main()
