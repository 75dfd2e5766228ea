"""The posterior join's trust seam (skfed.boosting._perso_lin_posterior.newcomer_trust).

By default every newcomer's block is solved at ``TRUST`` times its
confidence.  A per-newcomer multiplier returned by ``newcomer_trust`` (as
``benchmarks/persolin29_temperature.py`` does for the rules it measures)
must be the one each newcomer's block is solved at: checked against the
independent SciPy reference of ``test_persolin28_posterior`` run at that
multiplier, and the arrays the seam receives against their closed forms.
"""

import copy

import numpy as np

from skfed.boosting import PersonalizedLinearClassifier
from skfed.boosting import _perso_lin_posterior as post
from tests.test_persolin28_posterior import _clusters, _reference


def test_default_trust_is_the_constant():
    assert np.array_equal(post.newcomer_trust(None, np.zeros((3, 4, 2)), None, None, None,
                                              None, None, None), np.full(3, post.TRUST))


def test_per_newcomer_trust_enters_each_block(monkeypatch):
    X, y, g = _clusters(n_nodes=14)
    new = g >= 12
    clf = PersonalizedLinearClassifier(random_state=0, join_neighbours="posterior").fit(
        X[~new], y[~new], groups=g[~new])
    ref_clf = copy.deepcopy(clf)
    sw = np.random.RandomState(5).uniform(0.2, 1.5, size=new.sum())
    trusts = np.array([7.0, 0.5])
    seen = {}

    def rule(est, Z, Y, S, G, values, U, confidences):
        seen.update(Z=Z, Y=Y, S=S, G=G, values=values, U=U, c=confidences)
        return trusts

    monkeypatch.setattr(post, "newcomer_trust", rule)
    clf.add_nodes(X[new], y[new], groups=g[new], sample_weight=sw)
    q = 12  # min(n_nodes, 20 kappa): every fitted node is a candidate
    assert seen["Z"].shape == (2, 12, 5) and seen["G"].shape == (2, q, 1, 5)
    assert seen["values"].shape == (2, 1, 12, q) and seen["U"].shape == (2, 1, 5)
    for i, node in enumerate([12, 13]):
        rows = g[new] == node
        np.testing.assert_allclose(np.sort(seen["S"][i]), np.sort(sw[rows]))
        np.testing.assert_allclose(seen["c"][i], min(sw[rows].sum() / 12.0, 1.0))
        # values: each candidate's logistic loss on each sample (padding aside)
        Z, Y = seen["Z"][i], seen["Y"][i, 0]
        margins = Y[:, None] * (Z @ seen["G"][i, :, 0].T)
        np.testing.assert_allclose(seen["values"][i, 0], np.logaddexp(0.0, -margins), rtol=1e-10)
        monkeypatch.setattr(post, "TRUST", trusts[i])   # the reference reads TRUST
        a, model = _reference(ref_clf, X[new][rows], y[new][rows], sw[rows], 12.0)
        monkeypatch.setattr(post, "TRUST", 2.0)
        np.testing.assert_allclose(seen["U"][i], np.tensordot(a, seen["G"][i], axes=1), atol=1e-10)
        got = np.r_[clf.coef_[12 + i].ravel(), clf.intercept_[12 + i].ravel()]
        np.testing.assert_allclose(got, model.ravel(), atol=1e-6)
    # the two multipliers give different models than the default's
    default = copy.deepcopy(ref_clf)
    monkeypatch.undo()
    default.add_nodes(X[new], y[new], groups=g[new], sample_weight=sw)
    assert not np.allclose(default.coef_[12:], clf.coef_[12:], atol=1e-4)
