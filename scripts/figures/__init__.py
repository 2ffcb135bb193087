"""Every figure the documentation quotes, recomputed now or read from the table it summarises.

The pages mark each figure they quote (``<!--fig name-->3.2<!--/fig-->``, :mod:`figures.core`); the
registry (:func:`figures.registry.registry`, one module per topic) says where each marked
figure comes from. ``scripts/quoted_figures.py`` is the command line.
"""
