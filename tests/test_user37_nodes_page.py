"""What doc/user_guide/nodes.rst now says about sparse X and named id columns (user37).

A first-time user with sparse per-site data found no word in the guide on
which estimators take a SciPy sparse ``X``; and one with a DataFrame
``site`` column found that ``group_column="site"`` behind a
``ColumnTransformer`` is refused (the transformer returns an array).  The
page's doctest (run by tests/test_doc_scaling.py) shows the DataFrame
route; here every public estimator is checked against the page's split
of dense-only and sparse-accepting ones, and the two refusals the page
describes.
"""

import warnings

import numpy as np
import pytest
from scipy import sparse
from sklearn.compose import make_column_transformer
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skfed import (
    DecentralizedBoostingClassifier,
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
    FederatedMultiTaskClassifier,
    FederatedMultiTaskClassifierCV,
    FederatedMultiTaskRegressor,
    FederatedMultiTaskRegressorCV,
    FederatedSparseLinearRegression,
    FederatedSupportRecovery,
    LocalEstimator,
    PersonalizedLinearClassifier,
)

# The page: "MOCHA, Dada, Perso-lin and the online kernel learner take dense X only".
DENSE_ONLY = [
    (FederatedMultiTaskClassifier, "c"), (FederatedMultiTaskClassifierCV, "c"),
    (FederatedMultiTaskRegressor, "r"), (FederatedMultiTaskRegressorCV, "r"),
    (DecentralizedBoostingClassifier, "c"), (PersonalizedLinearClassifier, "c"),
    (DecentralizedKernelSGDClassifier, "c"), (DecentralizedKernelSGDRegressor, "r"),
]
# "Support recovery, sparse linear regression and LocalEstimator ... accept CSR and CSC".
SPARSE_OK = [
    (lambda **kw: FederatedSupportRecovery(**kw), "r"),
    (lambda **kw: FederatedSparseLinearRegression(**kw), "r"),
    (lambda **kw: LocalEstimator(LogisticRegression(), **kw), "c"),
    # lsqr: the same solver on dense and sparse X (Ridge's "auto" picks another one per format)
    (lambda **kw: LocalEstimator(Ridge(solver="lsqr", tol=1e-12), **kw), "r"),
]


def _data():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(8), 40)
    X = rng.normal(size=(320, 10))
    X[np.abs(X) < 0.7] = 0.0
    yr = X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=320)
    yc = (yr > 0).astype(int)
    return X, {"c": yc, "r": yr}, groups


def test_every_public_estimator_is_in_one_list():
    import skfed

    public = {name for name in dir(skfed)
              if isinstance(getattr(skfed, name), type) and hasattr(getattr(skfed, name), "fit")
              and name != "CollaborationGraphLearner"}   # fits a graph, not on X
    listed = {cls.__name__ for cls, _ in DENSE_ONLY} | {
        type(make()).__name__ for make, _ in SPARSE_OK}
    assert public == listed


@pytest.mark.parametrize("cls,task", DENSE_ONLY, ids=lambda p: getattr(p, "__name__", p))
def test_dense_only_estimators_refuse_sparse_in_fit_predict_and_add_nodes(cls, task):
    X, y, groups = _data()
    with pytest.raises(TypeError, match="dense data is required"):
        cls().fit(sparse.csr_matrix(X), y[task], groups=groups)
    old = groups < 7
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = cls(random_state=0).fit(X[old], y[task][old], groups=groups[old])
    with pytest.raises(TypeError, match="dense data is required"):
        est.predict(sparse.csr_matrix(X[old]), groups=groups[old])
    with pytest.raises(TypeError, match="dense data is required"):
        est.add_nodes(sparse.csr_matrix(X[~old]), y[task][~old], groups=groups[~old])


@pytest.mark.parametrize("index", range(len(SPARSE_OK)))
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_estimators_fit_and_join_sparse_like_dense(index, fmt):
    make, task = SPARSE_OK[index]
    X, y, groups = _data()
    old = groups < 7
    as_sparse = getattr(sparse, f"{fmt}_matrix")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dense = make().fit(X[old], y[task][old], groups=groups[old])
        sp = make().fit(as_sparse(X[old]), y[task][old], groups=groups[old])
        # the id column inside a sparse X
        Xg = sparse.hstack([groups[:, None], as_sparse(X)], format=fmt)
        spg = make(group_column=0).fit(Xg[np.flatnonzero(old)], y[task][old])
        sp.add_nodes(as_sparse(X[~old]), y[task][~old], groups=groups[~old])
        dense.add_nodes(X[~old], y[task][~old], groups=groups[~old])
    if hasattr(dense, "support_"):
        np.testing.assert_array_equal(sp.support_, dense.support_)
    if hasattr(dense, "predict"):
        np.testing.assert_allclose(sp.predict(as_sparse(X), groups=groups),
                                   dense.predict(X, groups=groups), rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(spg.predict(Xg[np.flatnonzero(old)]),
                                   dense.predict(X[old], groups=groups[old]),
                                   rtol=1e-9, atol=1e-9)


def _site_frame():
    import pandas as pd

    X, y, groups = _data()
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    df.insert(0, "site", [f"site{k}" for k in groups])
    return df, y["c"]


def test_named_id_column_behind_a_numpy_transformer_is_refused_saying_why():
    pytest.importorskip("pandas")
    df, y = _site_frame()
    ct = make_column_transformer(("passthrough", ["site"]), remainder=StandardScaler())
    pipe = make_pipeline(ct, PersonalizedLinearClassifier(group_column="site"))
    with pytest.raises(ValueError, match="is a column name but X has no column names"):
        pipe.fit(df, y)
    # position 0 works, as the page says
    pipe = make_pipeline(ct, PersonalizedLinearClassifier(group_column=0, max_iter=50))
    assert pipe.fit(df, y)[-1].nodes_.tolist() == [f"site{k}" for k in range(8)]


def test_default_pandas_output_renames_the_id_column():
    pytest.importorskip("pandas")
    df, y = _site_frame()
    ct = make_column_transformer(("passthrough", ["site"]), remainder=StandardScaler())
    pipe = make_pipeline(ct.set_output(transform="pandas"),
                         PersonalizedLinearClassifier(group_column="site"))
    with pytest.raises(ValueError, match=r"not a column of X.*passthrough__site"):
        pipe.fit(df, y)
