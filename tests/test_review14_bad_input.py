"""Bad input that ``tests/test_bad_input.py`` does not try (review14).

Every public estimator, from the same table of builds and data:

* a regressor (or the support selector) given string labels as ``y``, in
  ``fit``, ``add_nodes`` and ``partial_fit``: refused with an error naming
  ``y`` and the estimator (it said "could not convert string to float:
  np.str_('a')" before, naming neither); numbers written as strings fit as
  the numbers;
* ``add_nodes`` given a node it already has, a class ``fit`` did not see,
  or another number of features; ``partial_fit`` given a new class;
* sparse ``X`` where only dense is supported, in ``fit`` and ``predict``;
* node ids of object dtype, and a pandas ``Categorical`` whose categories
  include a node left with no row after a mask: the same fit as plain ids,
  the empty node absent from ``nodes_`` and from the byte log;
* a class absent from one node: the class stays in ``classes_`` and that
  node's predictions are classes of ``classes_``;
* all sample weights zero.

The MPI engine's per-node check gives the same string-target message, with
the node's label in front.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import is_classifier

import skfed

from .test_bad_input import DATA, N_NODES, build, kind_of, public_estimators

X, GROUPS = DATA["X"], DATA["groups"]
SUPERVISED = [n for n in public_estimators() if kind_of(build(n)) != "models"]
NUMERIC = [n for n in SUPERVISED if kind_of(build(n)) == "reg"]
CLASSIFIERS = [n for n in SUPERVISED if kind_of(build(n)) == "class"]
JOINABLE = [n for n in SUPERVISED if hasattr(build(n), "add_nodes")]
OLD = GROUPS < 6


def _fit(est, X_=X, y=None, groups=GROUPS, **kw):
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    y = DATA[kind_of(est)] if y is None else y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X_, y, groups=groups, **kw)


def _out(est, X_=X, groups=GROUPS):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if hasattr(est, "predict"):
            return np.asarray(est.predict(X_, groups=groups))
        out = est.transform(X_)
        return out.toarray() if sp.issparse(out) else np.asarray(out)


def _fitted_on_old(name):
    est = build(name)
    return _fit(est, X[OLD], DATA[kind_of(est)][OLD], GROUPS[OLD])


def _string_y(name):
    return np.where(DATA["reg"] > 0, "up", "down")


STRING_Y = r"y must hold numbers: {} fits a numeric target.*could not convert string"


@pytest.mark.parametrize("name", NUMERIC)
def test_string_targets_of_a_numeric_fit_name_y(name):
    with pytest.raises(ValueError, match=STRING_Y.format(name)):
        _fit(build(name), y=_string_y(name))
    est = _fitted_on_old(name)
    with pytest.raises(ValueError, match=STRING_Y.format(name)):
        est.add_nodes(X[~OLD], _string_y(name)[~OLD], groups=GROUPS[~OLD])
    if hasattr(est, "partial_fit"):
        with pytest.raises(ValueError, match=STRING_Y.format(name)):
            est.partial_fit(X, _string_y(name), groups=GROUPS)
    # object dtype (as read from a DataFrame) too
    with pytest.raises(ValueError, match=STRING_Y.format(name)):
        _fit(build(name), y=_string_y(name).astype(object))


@pytest.mark.parametrize("name", NUMERIC)
def test_numbers_written_as_strings_fit_as_the_numbers(name):
    y = np.round(DATA["reg"], 3)
    np.testing.assert_array_equal(_out(_fit(build(name), y=y.astype(str))),
                                  _out(_fit(build(name), y=y)))


def test_mpi_node_check_names_the_node_and_y():
    pytest.importorskip("mpi4py")
    from skfed.engines.mpi import _validate_node

    est = build("DecentralizedKernelSGDRegressor")
    with pytest.raises(ValueError, match=r"^Node 3: " + STRING_Y.format(
            "DecentralizedKernelSGDRegressor")):
        _validate_node(np.int64(3), X[:5], np.array(["a"] * 5), None, regressor=True,
                       estimator=est)


@pytest.mark.parametrize("name", JOINABLE)
def test_add_nodes_refuses_a_node_it_has_a_new_class_and_other_features(name):
    est = _fitted_on_old(name)
    y = DATA[kind_of(est)]
    five = GROUPS == 5
    with pytest.raises(ValueError, match=r"add_nodes got samples of 1 node\(s\) already in "
                                         r"nodes_ \(5\)"):
        est.add_nodes(X[five], y[five], groups=GROUPS[five])
    with pytest.raises(ValueError, match=r"X has 4 features, but \w+ is expecting 5"):
        est.add_nodes(X[~OLD][:, :4], y[~OLD], groups=GROUPS[~OLD])
    if is_classifier(est):
        new = np.full((~OLD).sum(), 7)
        with pytest.raises(ValueError, match=r"y of the new nodes contains class\(es\) \[7\] "
                                             r"that are not in classes_ \[0, 1\]"):
            est.add_nodes(X[~OLD], new, groups=GROUPS[~OLD])
    # the refused calls left the fit as it was
    assert list(est.nodes_) == list(range(6))


def test_partial_fit_refuses_a_new_class():
    est = _fit(build("DecentralizedKernelSGDClassifier"))
    y = DATA["class"].copy()
    y[:10] = 5
    with pytest.raises(ValueError, match=r"y contains labels .*5.* not in classes_"):
        est.partial_fit(X, y, groups=GROUPS)


@pytest.mark.parametrize("name", SUPERVISED)
def test_sparse_X_is_refused_by_name_where_dense_is_needed(name):
    # LocalEstimator and the support estimators take sparse X; the others
    # must say that X is sparse, at fit and at predict.
    est = build(name)
    try:
        fitted = _fit(est, X_=sp.csr_matrix(X))
    except TypeError as exc:
        assert "Sparse data was passed for X, but dense data is required" in str(exc)
        fitted = _fit(build(name))
        if hasattr(fitted, "predict"):
            with pytest.raises(TypeError, match=r"Sparse data was passed for X"):
                fitted.predict(sp.csr_matrix(X), groups=GROUPS)
        return
    assert name in {"LocalEstimator", "FederatedSupportRecovery",
                    "FederatedSparseLinearRegression"}
    # sparse and dense fits agree
    np.testing.assert_allclose(_out(fitted, sp.csr_matrix(X)), _out(_fit(build(name))))


@pytest.mark.parametrize("name", SUPERVISED)
def test_object_and_categorical_node_ids_with_an_emptied_node(name):
    pd = pytest.importorskip("pandas")
    plain = _fit(build(name))
    as_object = _fit(build(name), groups=GROUPS.astype(object))
    assert list(as_object.nodes_) == list(plain.nodes_)
    np.testing.assert_array_equal(_out(as_object), _out(plain))
    # node 3's rows masked out; the categories still list it
    keep = GROUPS != 3
    y = DATA[kind_of(plain)]
    categorical = pd.Categorical(GROUPS[keep], categories=range(N_NODES))
    masked = _fit(build(name), X[keep], y[keep], categorical)
    reference = _fit(build(name), X[keep], y[keep], GROUPS[keep])
    assert list(masked.nodes_) == [0, 1, 2, 4, 5, 6, 7]
    if hasattr(reference, "communication_"):
        assert masked.communication_.node_labels.tolist() == [0, 1, 2, 4, 5, 6, 7]
        assert masked.n_bytes_sent_ == reference.n_bytes_sent_ > 0
    np.testing.assert_array_equal(_out(masked, X[keep], GROUPS[keep]),
                                  _out(reference, X[keep], GROUPS[keep]))


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_a_class_absent_from_one_node(name):
    y = DATA["class"].copy()
    y[GROUPS == 2] = 0
    est = _fit(build(name), y=y)
    assert est.classes_.tolist() == [0, 1]
    assert set(_out(est)[GROUPS == 2]) <= {0, 1}
    assert set(_out(est)) == {0, 1}


@pytest.mark.parametrize("name", SUPERVISED)
def test_all_sample_weights_zero_is_refused(name):
    with pytest.raises(ValueError, match=r"[Ss]ample weights must contain at least one "
                                         r"non-zero number"):
        _fit(build(name), sample_weight=np.zeros(len(GROUPS)))


def test_every_supervised_estimator_is_probed():
    assert len(SUPERVISED) == len(public_estimators()) - 1  # the graph learner has no y
    assert "FederatedMultiTaskRegressor" in NUMERIC and "FederatedSupportRecovery" in NUMERIC
    assert skfed.FederatedSparseLinearRegression.__name__ in NUMERIC
