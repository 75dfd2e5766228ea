"""consensus_penalty="auto"'s third candidate, no coupling (c = 0).

Checked against independent computations: on nodes whose tasks share
nothing the three candidates' held-out errors are re-derived from explicit
public fits on every node's training rows (every 4th sample held out),
scored in NumPy; the choice is their argmin and the final model a public
``consensus_penalty=0`` fit on all rows; the bytes are the coupled
candidates' fits plus the tree round's closed form (the uncoupled candidate
and the uncoupled fit send nothing).  Where ``c = 0`` is not chosen the fit
is the two-candidate selection's bit for bit, and its bytes exceed that
selection's by one float64 per tree edge (the extra report).
"""

import hashlib

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skfed.online import (
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
    _coupling,
)
from skfed.online._coupling import (
    NO_COUPLING,
    NONE_MARGIN,
    STRONG_COUPLING,
    WEAK_COUPLING,
)

from .test_online_coupling import candidate_errors

HEADER = 16
N_NODES, N_PER = 12, 24


def _nodes(kind, regression, seed=0):
    """``unrelated``: every node its own weight vector (and, a regression,
    its own intercept); ``alike``: one rule plus a small personal part."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(N_NODES * N_PER, 3))
    groups = np.repeat(np.arange(N_NODES), N_PER)
    if kind == "unrelated":
        coef = 2 * rng.normal(size=(N_NODES, 3))
        offset = 3 * rng.normal(size=N_NODES)
    else:
        coef = rng.normal(size=3) + 0.2 * rng.normal(size=(N_NODES, 3))
        offset = np.zeros(N_NODES)
    score = np.einsum("ij,ij->i", X, coef[groups]) + offset[groups]
    score = score + 0.3 * rng.normal(size=len(score))
    if regression:
        return X, score, groups
    # classes: above or below the node's median score (both on every node)
    median = np.array([np.median(score[groups == g]) for g in range(N_NODES)])
    return X, (score > median[groups]).astype(int), groups


COMMON = {"kernel": "rbf", "gamma": 0.3, "max_epochs": 4, "random_state": 3}


@pytest.mark.parametrize("regression", [False, True])
def test_unrelated_nodes_choose_no_coupling(regression, monkeypatch):
    X, y, groups = _nodes("unrelated", regression)
    Est = DecentralizedKernelSGDRegressor if regression else DecentralizedKernelSGDClassifier
    share = {"network_share": 0.0} if regression else {}
    common = COMMON if regression else {"kernel": "linear", "max_epochs": 4, "random_state": 3}
    est = Est(**common, **share).fit(X, y, groups=groups)
    sel = est.consensus_selection_
    assert sel["candidates"] == ["weak", "strong", "none"]
    assert sel["consensus_penalty"] == [WEAK_COUPLING, STRONG_COUPLING, NO_COUPLING]
    assert sel["epsilon"][2] == est.epsilon and sel["topology"][2] == "default"
    errors, refs = candidate_errors(est, Est, X, y, groups, common, monkeypatch, N_NODES)
    assert_allclose(sel["node_validation_error"], errors, rtol=1e-10, atol=1e-12)
    mean = errors.mean(axis=1)
    # No coupling wins, and clearly: every coupling pulls unrelated nodes
    # towards each other.
    assert np.argmin(mean) == 2 and mean[2] < 0.9 * mean[:2].min()
    assert sel["choice"] == "none"
    assert (est.consensus_penalty_, est.epsilon_) == (0.0, est.epsilon)
    # The final model: every node alone on all its rows.
    final = Est(consensus_penalty=0.0, **common, **share).fit(X, y, groups=groups)
    out = est.decision_function if not regression else est.predict
    ref_out = final.decision_function if not regression else final.predict
    assert_allclose(out(X, groups=groups), ref_out(X, groups=groups), rtol=1e-10, atol=1e-12)
    # Bytes: the coupled candidates' messages, none from the uncoupled one,
    # the tree round (3 errors + a count up, the choice down), none in the
    # uncoupled fit; the network function is counted apart.
    scale_round = (N_NODES - 1) * ((HEADER + 8 * 7) + (HEADER + 8 * 2)) if regression else 0
    cand = [ref.communication_.total_bytes - scale_round for ref in refs]
    assert cand[2] == 0 and min(cand[:2]) > 0
    assert final.communication_.total_bytes == scale_round
    tree = (N_NODES - 1) * ((HEADER + 8 * 4) + (HEADER + 4))
    first = [scale_round] if regression else []
    assert est.communication_.total_bytes == scale_round + sum(cand) + tree
    assert_array_equal(est.bytes_per_round_[:len(first) + 4], first + cand + [tree])
    assert not est.bytes_per_round_[len(first) + 4:].any()


def _two_candidates(self, n_nodes):
    return [c for c in _original(self, n_nodes) if c[0] != "none"]


_original = _coupling._CouplingSelectionMixin._coupling_candidates


def _fingerprint(est, X, groups):
    h = hashlib.sha256()
    for a in (est._weights, est._points, est._avg_weights, est.predict(X, groups=groups),
              *[np.asarray(v) for part in est.network_dictionary_ for v in part]):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


@pytest.mark.parametrize("kind, regression, choice", [
    ("alike", False, "strong"), ("alike", True, "weak"), ("blocks", False, "weak")])
def test_fits_not_choosing_zero_are_the_two_candidate_ones(kind, regression, choice,
                                                            monkeypatch):
    if kind == "alike":
        X, y, groups = _nodes("alike", regression)
    else:
        # two opposite rules, each on 6 consecutive nodes of the ring
        X, y, groups = _nodes("alike", regression)
        flip = np.where(groups < N_NODES // 2, 1, -1)
        y = y * flip if regression else np.where(flip > 0, y, 1 - y)
    Est = DecentralizedKernelSGDRegressor if regression else DecentralizedKernelSGDClassifier
    est = Est(**COMMON).fit(X, y, groups=groups)
    sel = est.consensus_selection_
    assert sel["choice"] == choice
    monkeypatch.setattr(_coupling._CouplingSelectionMixin, "_coupling_candidates",
                        _two_candidates)
    two = Est(**COMMON).fit(X, y, groups=groups)
    assert two.consensus_selection_["candidates"] == ["weak", "strong"]
    assert two.consensus_selection_["choice"] == sel["choice"]
    assert_array_equal(two.consensus_selection_["node_validation_error"],
                       sel["node_validation_error"][:2])
    assert _fingerprint(est, X, groups) == _fingerprint(two, X, groups)
    if regression:
        assert est.network_share_ == two.network_share_
    # Bytes: one more float64 up every tree edge, and the uncoupled
    # candidate's round (empty) before the selection's.
    extra = 8 * (N_NODES - 1)
    assert est.n_bytes_sent_ == two.n_bytes_sent_ + extra
    assert (est.communication_.messages_per_round.sum()
            == two.communication_.messages_per_round.sum())
    assert len(est.bytes_per_round_) == len(two.bytes_per_round_) + 1
    b, b2 = list(est.bytes_per_round_), list(two.bytes_per_round_)
    # (rounds: [scale] weak strong none tree ...; two: [scale] weak strong tree ...)
    first = 1 if regression else 0
    assert b[first + 2] == 0
    assert b[:first + 2] == b2[:first + 2]
    assert b[first + 3] == b2[first + 2] + extra
    assert b[first + 4:] == b2[first + 3:]


@pytest.mark.parametrize("none_error, expected", [
    (0.30, "none"),       # 0.30 < 0.95 * 0.40
    (0.385, "strong"),    # least, but within the margin: the best coupling
    (0.37, "none"),       # just under 0.95 * 0.40 = 0.38
    (0.45, "strong"),
])
def test_no_coupling_needs_the_margin(none_error, expected):
    est = DecentralizedKernelSGDClassifier()
    est.nodes_ = np.arange(4)
    cands = est._coupling_candidates(3)   # (at most 3 nodes: no graph drawn)
    # node errors whose means are 0.5 (weak), 0.4 (strong), none_error;
    # node 3 reported nothing (NaN) and is left out of the means
    errors = np.array([[0.4, 0.6, 0.5, np.nan], [0.3, 0.5, 0.4, np.nan],
                       [none_error - 0.1, none_error + 0.1, none_error, np.nan]])
    est._adopt_coupling(cands, errors, None)
    sel = est.consensus_selection_
    mean = np.nanmean(errors, axis=1)
    assert_allclose(sel["mean_validation_error"], mean)
    best = int(np.argmin(mean[:2]))
    want = "none" if mean[2] < NONE_MARGIN * mean[best] else ["weak", "strong"][best]
    assert sel["choice"] == want == expected
    assert est.consensus_penalty_ == {"weak": WEAK_COUPLING, "strong": STRONG_COUPLING,
                                      "none": NO_COUPLING}[expected]
