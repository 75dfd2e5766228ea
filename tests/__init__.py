"""skfed's test suite, a package so that its modules can share helpers.

pytest runs in ``--import-mode=importlib`` (pyproject.toml): it imports
every test module as ``tests.<name>`` without adding any directory to
``sys.path``, so the source tree never shadows an installed skfed.  A test
module takes what it shares with others by a relative import, e.g.
``from ._helpers.multitask import exact_kernel``.
"""
