"""What a fitted estimator carries: its pickled size and the attributes holding training rows.

A federation exists because the nodes' rows cannot be pooled; a fitted
estimator that keeps them ships every node's data with the model.  For
every public estimator at its defaults (``random_state=0``) on a few
families, this pickles the fitted estimator and walks its state (every
array reachable from ``__dict__``, through dicts, lists, tuples and
objects) for arrays holding training rows: an array whose last axis has
``n_features`` (or ``n_features + 1``, an intercept column) entries and at
least one row equal to a training row (compared after rounding to float32,
so a float32 copy counts).  Columns: pickled KB, raw data KB (X as
float64), and each attribute path holding rows with its number of matching
rows.  Families: HAR (``load_har``, 21 training subjects, 561 features),
Landmine (``load_landmine``, 29 fields, 9 features), a ``make_classification``
federation (``benchmarks/user32_own_federation.py``, seed 0, 30 nodes, 20
features) and, for the regressors, ``make_federated_sparse_regression``
(20 nodes, 100 features)::

    python benchmarks/fitted_state_size.py
    python benchmarks/fitted_state_size.py --families mkclass,landmine

Measured 2026-11-29 (store33, one BLAS thread; "before" is main at
7b72d78, "after" this branch, "dropped" after ``drop_node_data()``);
pickled KB (raw X KB) and the attributes holding training rows::

    Landmine (14820 x 9, 29 nodes, raw 1042 KB), before
      MOCHA       4965  support_vectors_ (14820), _join_rehearsal.Z (14820)
      MOCHA-CV    4734  support_vectors_ (14820), _join_rehearsal.Z (14820)
      online      8207  dictionaries_ (100 a node), _points (2900),
                        _pub_points (2900), network dictionaries
      Dada 167, Perso-lin 101, Local (LogisticRegression) 10: no row
    make_classification (3307 x 20, 30 nodes, raw 517 KB), before
      MOCHA       2070  support_vectors_ (3307), _join_rehearsal.Z (3307)
    after (this branch): MOCHA Landmine 2531 (_join_rehearsal.Z only),
      dropped 247, no row; make_classification 957, dropped 161, no row
    HAR (7352 x 561, 21 nodes, raw 32222 KB)
      MOCHA before 98045  support_vectors_ (7352), _join_rehearsal.Z (7352)
      MOCHA after  65822  _join_rehearsal.Z (7352; its per-node views were
                          pickled as copies: fixed after this row, see below)
      MOCHA dropped  326  no row
      MOCHA after, rehearsal pickled once: 33425 (_join_rehearsal.Z only)
    sparse regression (2059 x 100, 20 nodes, raw 1609 KB), after
      MOCHA-reg   1904  _join_rehearsal.Z (2059); dropped 73, no row
      online-reg  6476  dictionaries_ (1618), _points (1706), _pub_points (1696)
      sparse-linear 12, support 10: no row
    (MOCHA-CV on make_classification and online on HAR did not finish in
    25 minutes on the shared machine; not measured)

store34 (2026-11-29, main f35448b + branch store34; ``--families
mkclass,landmine,sparse --only MOCHA,MOCHA-reg``): the primal modes'
public ``dual_coef_`` / ``support_`` held ``y_i alpha_i`` of every support
vector (its sign is the label: 200 of 200 in
tests/test_review34_dropped_duals.py), and survived ``drop_node_data()``.
They are now empty; the simulation keeps the duals in ``_node_duals``
(column "duals in"), which the drop removes::

    Landmine  MOCHA     2531 KB  rows: _join_rehearsal.Z (14820)  duals: _node_duals (14820)
              dropped     15 KB  (was 247: the public dual_coef_ / support_)
    mkclass   MOCHA      957 KB  rows: _join_rehearsal.Z (3307)   duals: _node_duals (3307)
              dropped    109 KB  (was 161)
    sparse    MOCHA-reg 1904 KB  rows: _join_rehearsal.Z (2059)   duals: _node_duals (2059)
              dropped     41 KB  (was 73)

The exact kernel mode keeps its support vectors (its model); the online
learners' dictionaries are their kernel models (``_points`` and
``_pub_points`` are their working copies: twice the dictionaries, left to
the online owner).
"""
import argparse
import os
import pickle
import re
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def row_matches(arr, X):
    """Number of rows of ``arr`` (last axis d or d+1) equal to a row of X."""
    d = X.shape[1]
    if not isinstance(arr, np.ndarray) or arr.dtype.kind != "f" or arr.ndim < 1:
        return 0
    if arr.shape[-1] not in (d, d + 1) or arr.size == 0:
        return 0
    rows = arr.reshape(-1, arr.shape[-1])[:, :d].astype(np.float32)
    known = {r.tobytes() for r in X.astype(np.float32)}
    return int(sum(r.tobytes() in known for r in rows))


def walk(obj, path="", seen=None, depth=0):
    """(path, ndarray) of every array reachable from ``obj``."""
    seen = set() if seen is None else seen
    if id(obj) in seen or depth > 8:
        return
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        if obj.dtype == object:
            for i, v in enumerate(obj.ravel()[:1000]):
                yield from walk(v, f"{path}[{i}]", seen, depth + 1)
        else:
            yield path, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(v, f"{path}[{k!r}]", seen, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from walk(v, f"{path}[{i}]", seen, depth + 1)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type):
        for k, v in vars(obj).items():
            yield from walk(v, f"{path}.{k}", seen, depth + 1)


def rows_held(est, X):
    """{attribute path: matching rows} of the fitted state (parameters skipped)."""
    params = set(est.get_params(deep=False))
    out, counted = {}, set()
    for name, value in vars(est).items():
        if name in params:
            continue
        for path, arr in walk(value, name):
            if isinstance(arr.base, np.ndarray) and id(arr.base) in counted:
                continue  # a view of an array already counted
            n = row_matches(arr, X)
            if n:
                counted.add(id(arr))
                path = re.sub(r"\[[^]]*\]", "[*]", path)  # one entry per container
                out[path] = out.get(path, 0) + n
    return out


def duals_held(est):
    """{attribute: per-sample dual values} (``y_i alpha_i``: its sign is the label)."""
    out = {}
    dual = getattr(est, "dual_coef_", None)
    if isinstance(dual, np.ndarray) and dual.ndim == 2 and dual.shape[1]:
        out["dual_coef_"] = dual.shape[1]
    kept = getattr(est, "_node_duals", None)
    if kept is not None:
        out["_node_duals"] = kept[1].shape[1]
    return out


def families(names):
    from skfed.datasets import load_har, load_landmine, make_federated_sparse_regression

    out = {}
    if "har" in names:
        out["har"] = ("clf",) + tuple(load_har(return_X_y=True)[:3])
    if "landmine" in names:
        out["landmine"] = ("clf",) + tuple(load_landmine(return_X_y=True)[:3])
    if "mkclass" in names:
        from user32_own_federation import make_federation

        out["mkclass"] = ("clf",) + tuple(make_federation(0)[:3])
    if "sparse" in names:
        out["sparse"] = ("reg",) + tuple(make_federated_sparse_regression(random_state=0)[:3])
    return out


def estimators(kind):
    from sklearn.linear_model import LogisticRegression

    import skfed

    if kind == "clf":
        return {
            "MOCHA": skfed.FederatedMultiTaskClassifier(random_state=0),
            "MOCHA-CV": skfed.FederatedMultiTaskClassifierCV(random_state=0),
            "online": skfed.DecentralizedKernelSGDClassifier(random_state=0),
            "Dada": skfed.DecentralizedBoostingClassifier(random_state=0),
            "Perso-lin": skfed.PersonalizedLinearClassifier(random_state=0),
            "Local": skfed.LocalEstimator(LogisticRegression(max_iter=1000)),
        }
    return {
        "MOCHA-reg": skfed.FederatedMultiTaskRegressor(random_state=0),
        "MOCHA-reg-CV": skfed.FederatedMultiTaskRegressorCV(random_state=0),
        "online-reg": skfed.DecentralizedKernelSGDRegressor(random_state=0),
        "sparse-linear": skfed.FederatedSparseLinearRegression(random_state=0),
        "support": skfed.FederatedSupportRecovery(),
    }


def measure(name, est, X, y, groups):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=groups)
    size = len(pickle.dumps(est, protocol=pickle.HIGHEST_PROTOCOL))
    return size, rows_held(est, X)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--families", default="mkclass,landmine,har,sparse")
    parser.add_argument("--only", default="", help="comma-separated estimator names")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    for fam, (kind, X, y, groups) in families(args.families.split(",")).items():
        X = np.asarray(X, dtype=np.float64)
        print(f"== {fam}: {X.shape[0]} rows x {X.shape[1]} features, "
              f"{len(np.unique(groups))} nodes, raw X {X.nbytes / 1024:.0f} KB", flush=True)
        for name, est in estimators(kind).items():
            if only and name not in only:
                continue
            try:
                size, held = measure(name, est, X, y, groups)
            except Exception as exc:  # a family an estimator refuses: say so
                print(f"  {name:14s} refused: {type(exc).__name__}: {str(exc)[:80]}")
                continue
            where = ", ".join(f"{p} ({n})" for p, n in sorted(held.items())) or "-"
            duals = ", ".join(f"{p} ({n})" for p, n in duals_held(est).items()) or "-"
            print(f"  {name:14s} {size / 1024:8.0f} KB  rows in: {where}  duals in: {duals}",
                  flush=True)
            if hasattr(est, "drop_node_data"):  # the nodes' simulated storage removed
                est.drop_node_data()
                size = len(pickle.dumps(est, protocol=pickle.HIGHEST_PROTOCOL))
                held = rows_held(est, X)
                where = ", ".join(f"{p} ({n})" for p, n in sorted(held.items())) or "-"
                duals = ", ".join(f"{p} ({n})" for p, n in duals_held(est).items()) or "-"
                print(f"  {'  dropped':14s} {size / 1024:8.0f} KB  rows in: {where}  "
                      f"duals in: {duals}", flush=True)


if __name__ == "__main__":
    main()
