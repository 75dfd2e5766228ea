"""A regressor newcomer takes a solved network function at scale 1.

online26 (issue 32): the newcomer's least-squares factor over its
candidates' scale sums corrects a shrunk mean of functions; a network
function the fit's solve kept is the least-squares function of every
node's rows and is taken as it is.  The test joins the same newcomers to
copies of one fit with the solve's flag set and cleared, and checks each
newcomer's start at its samples against a NumPy reference: the network
function itself, or that times ``max(0, sum f y / sum f^2)`` over the
candidates that answered (of its component, ``sum f^2 > 0``), with the
prior's weight their mean ``sum w``.  Since split28 the candidates of a
solved component send ``sum w`` alone (tests/test_split28_join_bytes.py).
"""

import copy
import warnings

import numpy as np
import pytest

from skfed import DecentralizedKernelSGDRegressor
from skfed.online import _join as join_module
from skfed.online import _network_function as nf


def _fit():
    rng = np.random.RandomState(0)
    K, n, d = 24, 40, 6
    W = rng.normal(size=d) + 0.3 * rng.normal(size=(K, d))
    g = np.repeat(np.arange(K), n)
    X = rng.normal(size=(K * n, d))
    y = np.einsum("ij,ij->i", X, W[g]) + rng.normal(size=K * n)
    gn = np.repeat([100, 101, 102], 6)
    Xn = rng.normal(size=(len(gn), d))
    yn = np.einsum("ij,ij->i", Xn, W[gn - 100]) + rng.normal(size=len(gn))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DecentralizedKernelSGDRegressor(random_state=0).fit(X, y, groups=g)
    return est, X, y, g, Xn, yn, gn


def _join(est, Xn, yn, gn, monkeypatch):
    calls, starts = [], []
    scale, passes = nf._NetworkFunctionMixin._network_scale, type(est)._join_passes
    prior_of = join_module.solved_prior

    def record_scale(self, answered, sums, component):
        out = scale(self, answered, sums, component)
        calls.append((np.array(answered), np.array(sums), component, out))
        return out

    def record_prior(answered, sums, node_component, component):
        # (a solved component: no factor, its candidates sent sum w only)
        out = prior_of(answered, sums, node_component, component)
        calls.append((np.array(answered), np.array(sums), component, (None, out)))
        return out

    def record_passes(self, *args):
        starts.extend((rows, start.copy()) for rows, _, start in self._join_values)
        return passes(self, *args)

    monkeypatch.setattr(nf._NetworkFunctionMixin, "_network_scale", record_scale)
    monkeypatch.setattr(join_module, "solved_prior", record_prior)
    monkeypatch.setattr(type(est), "_join_passes", record_passes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        joined = copy.deepcopy(est).add_nodes(Xn, yn, groups=gn)
    monkeypatch.undo()
    return joined, calls, starts


@pytest.mark.parametrize("solved", [True, False])
def test_newcomer_start_scale_matches_numpy_reference(solved, monkeypatch):
    est, X, y, g, Xn, yn, gn = _fit()
    est._network_solved = np.full_like(est._network_solved, solved)
    joined, calls, starts = _join(est, Xn, yn, gn, monkeypatch)
    assert len(calls) == len(starts) == 3
    assert list(joined.join_start_) == ["network"] * 3
    # the candidates' sums are the fit's (sum w f0 y, sum w f0^2, sum w)
    # over the fitted nodes' own rows, recomputed here in NumPy
    f0 = est._network_values(X, 0)[:, 0]
    t = est._encode_targets(y)
    for (answered, sums, component, (factor, prior)), (rows, start) in zip(calls, starts):
        assert component == 0 and len(answered) >= 1
        ref = np.array([[np.sum(f0[g == j] * t[g == j]), np.sum(f0[g == j] ** 2),
                         np.sum(g == j)] for j in answered])
        use = ref[:, 1] > 0
        ref_factor = max(0.0, ref[use, 0].sum() / ref[use, 1].sum())
        if solved:
            # (split28) only sum w was sent: the two others never arrive
            assert np.isnan(sums[:, :2]).all()
            np.testing.assert_allclose(sums[:, 2], ref[:, 2], rtol=1e-12)
            assert factor is None
        else:
            np.testing.assert_allclose(sums, ref, rtol=1e-8, atol=1e-10)
            assert factor == pytest.approx(ref_factor, rel=1e-10)
        assert prior == pytest.approx(ref[use, 2].mean(), rel=1e-12)
        assert 0.5 < ref_factor < 2.0 and ref_factor != pytest.approx(1.0, abs=1e-6)
        # its start at its samples: f0 itself when solved, else rescaled
        want = est._network_values(Xn[rows], 0)[:, 0] * (1.0 if solved else ref_factor)
        np.testing.assert_allclose(start[:, 0] if start.ndim == 2 else start, want,
                                   rtol=1e-9, atol=1e-12)
