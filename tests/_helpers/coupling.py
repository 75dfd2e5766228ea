"""``consensus_penalty="auto"`` among the coupled candidates only.

Since coupling38 the selection also tries no coupling; fixtures of 2-3
passes, whose coupled candidates have not converged, now keep it.  Tests
measured on the coupled federation pin the weak / strong choice with these.
"""

import contextlib

from skfed.online import _coupling

_MIXIN = _coupling._CouplingSelectionMixin


def _coupled(candidates):
    return lambda self, n: [c for c in candidates(self, n) if c[0] != "none"]


@contextlib.contextmanager
def coupled_candidates():
    """Within the block, fits choose between the weak and strong couplings."""
    candidates = _MIXIN._coupling_candidates
    _MIXIN._coupling_candidates = _coupled(candidates)
    try:
        yield
    finally:
        _MIXIN._coupling_candidates = candidates


def pin_coupled_candidates(monkeypatch):
    """For the rest of the test (``monkeypatch`` undoes it)."""
    monkeypatch.setattr(_MIXIN, "_coupling_candidates", _coupled(_MIXIN._coupling_candidates))
