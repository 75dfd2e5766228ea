"""Private MOCHA as epsilon grows: which step keeps it from the non-private fit.

Command (seconds)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/private_mocha_continuity.py

The family of ``tests/test_review11_private_mocha_continuity.py``: 60
nearly-alike nodes of 6 training samples, one shared linear rule (5
features), scored on 50 fresh samples per node (``score``: the kept models;
``refit``: the collaborative refit in ``coef_``).  Each private step is
turned off in turn (monkeypatched, this script only):

* ``full``: the private fit as it is (since privacy13: with a task relation
  surviving the noise, the refit's reference candidate trusts the others'
  part, :func:`skfed.multitask._private.node_candidates`).
* ``alone-first``: the rule before it: the reference is the node alone.
* ``no-kept``: the server's model with each node's exact share (``W +
  own_correction``), no kept-model choice (``kept_node_models`` skipped).
* ``no-threshold``: ``no-kept`` with the Omega step's Gram debiased only
  (no per-pair Bonferroni test).

Result (privacy13, 28 Nov 2026, random_state=0, one secure-noise draw;
one number: refit = score)::

    reference                      accuracy
    off (omega_mode_ "shared")     0.954   (epsilon=inf gives the same fit)
    off, omega="learn" (MOCHA)     0.884
    off, omega="independent"       0.752
    Local (one class, every node)  LinearSVC 0.745, LogisticRegression 0.684,
                                   SVC 0.610

    (refit / score)  full         alone-first   no-kept  no-threshold
    epsilon 1e4      .678 / .689  .678 / .689   .752     .545
    epsilon 1e6      .752 / .704  .687 / .693   .771     .807
    epsilon 1e9      .843 / .744  .738 / .707   .883     .884
    epsilon 1e12     .840 / .743  .739 / .708   .885     .885

(other draws at 1e6: no-kept .770-.782, no-threshold .837-.867; at 300
and 30 the debiased Gram alone gave .587 and .614, below the nodes alone:
the per-pair test is what keeps moderate budgets from fitting noise)

Reading: the private training is continuous -- as the noise vanishes
(epsilon 1e9 and up) the server's model is non-private MOCHA's (.884).  At
epsilon 1e6 the noise is not negligible here: zCDP converted to (epsilon,
delta) gives rho about epsilon at large epsilon, so sigma falls only like
1 / sqrt(epsilon) (0.0064 per entry at 1e6 for clip_norm=1: noise of
norm 0.016 on each release of 6 entries, against a median update norm of
0.20 in round 1 and 0.003 or less from round 7 on), and the Omega step
keeps 505 of the 1,770 pairs at its first step and none after.  What keeps the private fit from MOCHA in
the limit is the kept-model choice on 6-sample nodes: the refit's
one-standard-error rule against the node alone (alone-first: .739; with
the trusting candidate as the reference, full: .840), and the Local models
listed before the collaborative one (SIMPLEST: 19-33 nodes keep a logistic
regression alone, score .708-.744).  The .954 of
epsilon=inf is the shared-component model, which no private fit runs.
At moderate budgets (1e4 and below) no relation survives and every node
keeps a model alone (.689), below Local's LinearSVC (.745): on this family
private MOCHA does not beat Local at epsilon 10 or 30.
"""
import sys
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_review11_private_mocha_continuity import _nodes, _refit_accuracy  # noqa: E402

from skfed import DifferentialPrivacy, FederatedMultiTaskClassifier  # noqa: E402
from skfed.multitask import _base, _private  # noqa: E402

ORIGINAL = (_private.node_candidates, _private._PrivateUpdates.denoised_gram,
            _base.kept_node_models)


def _server_models(est, state, sigma, lam, raw_X=None):
    W = state.weights(sigma, lam) + state.own_correction(sigma, lam)
    return W, np.full((W.shape[1], W.shape[0]), "server", dtype=object)


def _alone_first(loss, C, m_t, has_prior):
    """The candidates in the order before privacy13: every model alone, then
    the trusting ones (the first of which node_candidates now puts first)."""
    cands = ORIGINAL[0](loss, C, m_t, has_prior)
    if has_prior:
        k = len(cands) - (len(_private.NODE_C) - 1)
        cands = cands[1:k] + [cands[0]] + cands[k:]
    return cands


def _debiased_gram(self, V):
    dim = V.shape[0] * V.shape[2]
    gram = np.einsum("ktd,kud->tu", V, V)
    var = self.uses.astype(float) * self.sigma**2
    gram[np.diag_indices(len(gram))] = np.maximum(np.diag(gram) - dim * var, 0.0)
    return gram


def _variant(name):
    _private.node_candidates, _private._PrivateUpdates.denoised_gram, \
        _base.kept_node_models = ORIGINAL
    if name in ("no-kept", "no-threshold"):
        _base.kept_node_models = _server_models
    if name == "no-threshold":
        _private._PrivateUpdates.denoised_gram = _debiased_gram
    if name == "alone-first":
        _private.node_candidates = _alone_first


def _local(train, test):
    """Pooled test accuracy of each node alone, one class for every node."""
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import SVC, LinearSVC

    for model in (LinearSVC(), LogisticRegression(), SVC()):
        right = 0
        for g in np.unique(train[2]):
            a, b = train[2] == g, test[2] == g
            if np.unique(train[1][a]).size < 2:  # one class seen: predict it
                pred = np.full(b.sum(), train[1][a][0])
            else:
                pred = clone(model).fit(train[0][a], train[1][a]).predict(test[0][b])
            right += int((pred == test[1][b]).sum())
        print(f"Local {type(model).__name__}: {right / len(test[1]):.3f}")


def main():
    rng = np.random.RandomState(0)
    train, test = _nodes(6, rng), _nodes(50, rng)
    _local(train, test)

    def run(**kw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = FederatedMultiTaskClassifier(random_state=0, **kw).fit(
                train[0], train[1], groups=train[2])
        return (_refit_accuracy(est, *test), est.score(test[0], test[1], groups=test[2]),
                Counter(getattr(est, "refit_choice_", np.array([["-"]]))[:, 0]).most_common(2))

    for kw in (dict(), dict(omega="learn"), dict(omega="independent")):
        print("off", kw, "refit %.3f score %.3f" % run(**kw)[:2])
    for name in ("full", "alone-first", "no-kept", "no-threshold"):
        _variant(name)
        for eps in (1e4, 1e6, 1e9, 1e12):
            refit, score, choices = run(privacy=DifferentialPrivacy(epsilon=eps))
            print(f"{name:13s} eps={eps:g} refit {refit:.3f} score {score:.3f} {choices}",
                  flush=True)
    _variant("full")


if __name__ == "__main__":
    main()
