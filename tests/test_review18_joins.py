"""review18: adversarial checks of this session's join mechanisms.

Each test states the defect it guards against; every one of them fails on
main at a66b95d (before the fixes named in its docstring).
"""

import pickle

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.linear_model import LogisticRegression

from skfed.baselines import LocalEstimator
from skfed.boosting import DecentralizedBoostingClassifier
from skfed.privacy import DifferentialPrivacy
from skfed.support import FederatedSupportRecovery


def _moons(K=6, n=60):
    X, y = make_moons(K * n, noise=0.25, random_state=0)
    return X, y, np.repeat(np.arange(K), n)


def _square(X):
    return X ** 2


def _support_data(K=12, n=200, d=20):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(K * n, d))
    y = X[:, 3] - 2 * X[:, 7] + 0.5 * rng.normal(size=K * n)
    return X, y, np.repeat(np.arange(K), n)


# --------------------------------------------------------------- node ids
@pytest.mark.parametrize("joined", [b"a", b"d"])
def test_bytes_ids_against_str_nodes_are_refused(joined):
    """Fitted with str node ids, ``add_nodes`` with bytes ids: ``b"a"`` was
    not found among ``nodes_`` (numpy compares str and bytes as unequal)
    and was appended converted to ``"a"``, so ``nodes_`` held ``"a"`` twice
    and the fitted node's model lookups went to the first one; ``b"d"``
    joined as ``"d"``, which a later ``predict(groups=[b"d"])`` does not find.
    The ids are of another type: refused, as str against int is (fix:
    skfed/_node_ids.py, str and bytes are two families)."""
    X, y, _ = _moons(K=4)
    g = np.repeat(np.array(["a", "b", "c", "d"]), 60)
    est = LocalEstimator(LogisticRegression()).fit(X[:180], y[:180], groups=g[:180])
    with pytest.raises(TypeError, match="dtype"):
        est.add_nodes(X[180:], y[180:], groups=np.array([joined] * 60))
    assert est.nodes_.tolist() == ["a", "b", "c"]
    # str ids of the same nodes still join
    est.add_nodes(X[180:], y[180:], groups=g[180:])
    assert est.nodes_.tolist() == ["a", "b", "c", "d"]


def test_bytes_ids_at_predict_are_refused_on_str_nodes():
    """``predict(groups=[b"a"])`` on str nodes: bytes and str were one kind,
    so ``b"a"`` passed the kind check, was not found (``b"a" != "a"``) and
    with ``handle_unknown="global"`` got the shared model where node "a"
    has its own, silently.  Now the kinds error names both (fix:
    skfed/_node_ids.py)."""
    X, y, _ = _moons(K=4)
    g = np.repeat(np.array(["a", "b", "c", "d"]), 60)
    est = DecentralizedBoostingClassifier(random_state=0, handle_unknown="global")
    est.fit(X, y, groups=g)
    with pytest.raises(ValueError, match="kind bytes"):
        est.predict(X[:5], groups=np.array([b"a"] * 5))
    with pytest.raises(ValueError, match="kind bytes"):
        est.predict(X[:5], groups=np.array([b"a"] * 5, dtype=object))
    # str ids as in fit, and an unseen str id (the shared model), still work
    assert est.predict(X[:5], groups=g[:5]).shape == (5,)
    assert est.predict(X[:5], groups=np.array(["zz"] * 5)).shape == (5,)


@pytest.mark.parametrize("fitted, given", [(np.uint64, np.int64), (np.int64, np.uint64)])
def test_large_ids_of_the_other_signedness_are_found(fitted, given):
    """Node ids above 2**53 (hashed device ids) fitted as uint64 and given
    as int64 (or the reverse): ``searchsorted`` compared them as float64,
    so the fitted node ``2**60 + 4`` was not found (predict: unseen, the
    shared model; add_nodes: appended twice) and ``2**60 + 1`` could match
    ``2**60``; a joined int64 id appended to uint64 ``nodes_`` made it
    float64 (``2**60 + 4`` became ``2**60``: two nodes of one id).  Now
    looked up and appended exactly (fixes: skfed/_node_ids.py,
    skfed/_base.py ``_append_nodes``)."""
    from skfed._node_ids import _lookup_labels

    X, y, _ = _moons(K=4)
    ids = np.array([2**60, 2**60 + 4, 2**60 + 8], dtype=fitted)
    g = np.repeat(ids, 60)
    est = LocalEstimator(LogisticRegression(), handle_unknown="error")
    est.fit(X[:180], y[:180], groups=g[:180])
    np.testing.assert_array_equal(
        _lookup_labels(est.nodes_, np.array([2**60 + 4, 2**60 + 1, 2**60], dtype=given)),
        [1, -1, 0])
    np.testing.assert_array_equal(est.predict(X[60:120], groups=g[60:120].astype(given)),
                                  est.predict(X[60:120], groups=g[60:120]))
    with pytest.raises(ValueError, match="already in nodes_"):
        est.add_nodes(X[180:], y[180:], groups=np.full(60, 2**60 + 4, dtype=given))
    est.add_nodes(X[180:], y[180:], groups=np.full(60, 2**60 + 1, dtype=given))
    assert est.nodes_.tolist() == [2**60, 2**60 + 4, 2**60 + 8, 2**60 + 1]


# ---------------------------------------------- privacy changed since the fit
def _private_support(privacy):
    X, y, g = _support_data()
    old = g < 10
    est = FederatedSupportRecovery(privacy=privacy, random_state=0)
    est.fit(X[old], y[old], groups=g[old])
    return est, X[~old], y[~old], g[~old]


@pytest.mark.parametrize("same", [1, np.float64(1.0), np.int64(1)])
def test_equal_privacy_of_another_number_type_joins(same):
    """``privacy`` recreated with ``epsilon=1`` (or a NumPy number) after a
    fit at ``epsilon=1.0`` is the same specification (the module says "an
    equal new object is the same"; ``same_param`` takes 5 and 5.0 as one
    value), but the recorded key compared reprs ('1' != '1.0'): the join was
    refused as a changed privacy (fix: skfed/_join_params.py)."""
    est, X, y, g = _private_support(DifferentialPrivacy(epsilon=1.0))
    reference = pickle.loads(pickle.dumps(est))
    est.set_params(privacy=DifferentialPrivacy(epsilon=same))
    est.add_nodes(X, y, groups=g)
    reference.add_nodes(X, y, groups=g)
    assert est.n_answered_ == reference.n_answered_ == 12
    assert len(est.privacy_spent_) == 12
    # (the votes' noise is the secure source's: the supports may differ; the
    # accounting may not)
    np.testing.assert_array_equal(np.asarray(est.privacy_spent_),
                                  np.asarray(reference.privacy_spent_))
    assert np.isfinite(np.asarray(est.privacy_spent_, dtype=float)).all()


def test_changed_privacy_still_refused():
    """The fix keeps refusing real changes (epsilon, delta, the local
    estimator's parameters, a bool against a number)."""
    est, X, y, g = _private_support(DifferentialPrivacy(epsilon=1.0))
    for other in (DifferentialPrivacy(epsilon=2.0), DifferentialPrivacy(epsilon=1.0, delta=1e-5),
                  None):
        est.set_params(privacy=other)
        with pytest.raises(ValueError, match="privacy was changed"):
            est.add_nodes(X, y, groups=g)
    from skfed._join_params import _privacy_key

    a = DifferentialPrivacy(local_estimator=LogisticRegression(C=1.0))
    b = DifferentialPrivacy(local_estimator=LogisticRegression(C=0.5))
    assert _privacy_key(a) != _privacy_key(b)
    assert _privacy_key(a) == _privacy_key(pickle.loads(pickle.dumps(a)))
    assert (_privacy_key(DifferentialPrivacy(insecure_noise_seed=1))
            != _privacy_key(DifferentialPrivacy(insecure_noise_seed=True)))


def test_privacy_key_survives_pickling_a_random_state():
    """A ``local_estimator`` holding a ``RandomState`` has a repr with the
    object's address, so the key recorded at the fit differed from the
    unpickled (or deep-copied) estimator's own ``privacy``: a saved private
    model could not take newcomers.  The key reads the generator's state
    (fix: skfed/_join_params.py)."""
    from skfed._join_params import _privacy_key

    spec = DifferentialPrivacy(
        epsilon=1.0, local_estimator=LogisticRegression(random_state=np.random.RandomState(0)))
    assert _privacy_key(spec) == _privacy_key(pickle.loads(pickle.dumps(spec)))
    other = DifferentialPrivacy(
        epsilon=1.0, local_estimator=LogisticRegression(random_state=np.random.RandomState(1)))
    assert _privacy_key(spec) != _privacy_key(other)
    # a Pipeline's steps, and an array parameter, by value too
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    def piped(C, seed=0):
        return DifferentialPrivacy(local_estimator=make_pipeline(
            StandardScaler(), LogisticRegression(C=C, random_state=np.random.RandomState(seed))))

    assert _privacy_key(piped(1.0)) == _privacy_key(pickle.loads(pickle.dumps(piped(1.0))))
    assert _privacy_key(piped(1.0)) != _privacy_key(piped(0.5))
    assert _privacy_key(piped(1.0)) != _privacy_key(piped(1.0, seed=1))
    big = np.zeros(5000)
    changed = big.copy()
    changed[2500] = 1.0  # (in the part a repr elides)
    assert repr(big) == repr(changed)
    assert _privacy_key(big) != _privacy_key(changed)
    assert _privacy_key(big) == _privacy_key(big.copy())
    # a class given for an instance is keyed by its name (fit names the error)
    assert _privacy_key(DifferentialPrivacy(local_estimator=LogisticRegression))[0] == (
        "DifferentialPrivacy")
    # a function by its module and name (its repr's address differs in
    # another process, where a pickled model is loaded)
    from sklearn.preprocessing import FunctionTransformer

    f = DifferentialPrivacy(local_estimator=make_pipeline(
        FunctionTransformer(_square), LogisticRegression()))
    key = _privacy_key(f)
    assert "0x" not in repr(key) and key == _privacy_key(pickle.loads(pickle.dumps(f)))
    assert key != _privacy_key(DifferentialPrivacy(local_estimator=make_pipeline(
        FunctionTransformer(_moons), LogisticRegression())))


# ------------------------------------------------------------ Dada beta="auto"
def test_auto_radius_reads_a_random_state_instance_like_a_numeric_fit():
    """A fit at a numeric radius draws from a ``RandomState`` instance given
    as ``random_state`` (scikit-learn's convention: repeated fits differ);
    ``beta="auto"`` fitted clones, which copy the instance, so the user's
    generator was never advanced and repeated fits were identical.  Now the
    final fit reads the user's instance: it ends where a fit at the chosen
    radius leaves it, and the model is unchanged (fix:
    skfed/boosting/_dada_radius.py)."""
    X, y, g = _moons()
    rs = np.random.RandomState(0)
    est = DecentralizedBoostingClassifier(beta="auto", random_state=rs).fit(X, y, groups=g)
    ref_rs = np.random.RandomState(0)
    ref = DecentralizedBoostingClassifier(beta=est.beta_, mu=est.mu_, random_state=ref_rs)
    ref.fit(X, y, groups=g)
    assert np.array_equal(est.coef_, ref.coef_)
    assert np.array_equal(rs.get_state()[1], ref_rs.get_state()[1])
    assert rs.get_state()[2] == ref_rs.get_state()[2]
    assert est.random_state is rs
    again = DecentralizedBoostingClassifier(beta="auto", random_state=rs).fit(X, y, groups=g)
    assert not np.array_equal(again.coef_, est.coef_)


@pytest.mark.parametrize("random_state", [None, 0, "instance"])
def test_auto_radius_candidates_share_one_public_stream(random_state, monkeypatch):
    """The radius is chosen on a paired comparison of the two candidate
    fits; with ``random_state=None`` each candidate drew its own seeds from
    NumPy's global generator, so their gains mixed the radius with two
    different runs (wake-up orders, node seeds).  Now both read one public
    stream (an int drawn once; an int or a copied instance as before), and
    the same as each other (fix: skfed/boosting/_dada_radius.py)."""
    seen = []
    fit = DecentralizedBoostingClassifier.fit

    def spy(self, X, y, groups=None, sample_weight=None):
        if self.beta != "auto":
            rs = self.random_state
            seen.append(rs.get_state()[1].tobytes() if isinstance(rs, np.random.RandomState)
                        else rs)
        return fit(self, X, y, groups=groups, sample_weight=sample_weight)

    monkeypatch.setattr(DecentralizedBoostingClassifier, "fit", spy)
    X, y, g = _moons(K=4, n=40)
    rs = np.random.RandomState(3) if random_state == "instance" else random_state
    DecentralizedBoostingClassifier(beta="auto", random_state=rs).fit(X, y, groups=g)
    assert len(seen) == 3  # the two candidates, then the final fit
    assert seen[0] is not None and seen[0] == seen[1]
    if random_state == 0:
        assert seen == [0, 0, 0]
