"""Digests of fits and joins of every family: are two versions bit-identical?

For Local, the sparse linear model, the support selector, MOCHA (classifier
and regressor), Dada, Perso-lin and the online learner (classifier and
regressor), each on a perfect network, a faulty one (drops, stragglers,
rogue nodes) and one with drops only, with integer and string node ids:
fit 12 nodes, add 2 nodes, then 2 more with sample weights, and hash every
fitted attribute (public and private, the communication logs' per-pair
and per-round counts included; MOCHA's rehearsal only by type, it holds
CPU timings) and the predictions.  A family that refuses a network's
faults prints its error instead, which must also match.  Run it with each
version on ``PYTHONPATH`` and diff the outputs::

    PYTHONPATH=. OPENBLAS_NUM_THREADS=1 python benchmarks/join_digests.py > after.txt
    PYTHONPATH=/path/to/main OPENBLAS_NUM_THREADS=1 python benchmarks/join_digests.py > before.txt
    diff before.txt after.txt

``python benchmarks/join_digests.py sparse mocha_c`` runs some families
only.  Used by joinsp8 (2026-11-28) for the cheaper shared ``add_nodes``
checks: 54 digests and 12 refusals equal to main (45a6774, the lead's
merge after ff339c8).  Used by support14 (2026-11-28): ``sparse_exact``
(``per_node_intercept=True``, the former default), ``sparse_shared`` and
``recovery``: 18 digests equal to main 44b841d after shrunk intercepts
became the default.
"""

import hashlib
import sys
import warnings

import numpy as np
from scipy import sparse
from sklearn.linear_model import Ridge
from sklearn.svm import SVC

from skfed.baselines import LocalEstimator
from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.multitask import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from skfed.network import SimulatedNetwork
from skfed.online import (
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
)
from skfed.support import FederatedSparseLinearRegression, FederatedSupportRecovery

MAX_DEPTH = 6


def feed(h, obj, depth=0, seen=None):
    """Add ``obj`` to the hash ``h``: arrays by bytes, containers and
    objects' attributes recursively (``MAX_DEPTH`` levels)."""
    seen = set() if seen is None else seen
    if depth > MAX_DEPTH:
        return
    if isinstance(obj, np.ndarray):
        h.update(str((obj.dtype, obj.shape)).encode())
        if obj.dtype.kind == "O":
            for value in obj.ravel():
                feed(h, value, depth + 1, seen)
        else:
            h.update(np.ascontiguousarray(obj).tobytes())
    elif sparse.issparse(obj):
        coo = obj.tocoo()
        h.update(str(("sparse", obj.shape)).encode())
        for part in (coo.row, coo.col, coo.data):
            feed(h, part, depth + 1, seen)
    elif isinstance(obj, (str, bytes, int, float, bool, np.generic, type(None))):
        h.update(repr(obj).encode())
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            feed(h, value, depth + 1, seen)
    elif isinstance(obj, dict):
        for key in sorted(obj, key=repr):
            h.update(repr(key).encode())
            feed(h, obj[key], depth + 1, seen)
    elif isinstance(obj, np.random.RandomState):
        feed(h, obj.get_state(legacy=False), depth + 1, seen)
    elif hasattr(obj, "__dict__") and id(obj) not in seen and not callable(obj):
        seen.add(id(obj))
        h.update(type(obj).__name__.encode())
        feed(h, dict(vars(obj)), depth + 1, seen)
    else:
        h.update(type(obj).__name__.encode())


def digest(est, X, groups):
    """16 hex digits over the fitted attributes and the predictions."""
    h = hashlib.sha256()
    state = {k: v for k, v in vars(est).items() if k.endswith("_") or k.startswith("_")}
    for key in sorted(state):
        h.update(key.encode())
        if key == "_join_rehearsal":  # (holds CPU timings)
            h.update(type(state[key]).__name__.encode())
            continue
        feed(h, state[key])
    for name in ("predict", "decision_function", "predict_proba"):
        if hasattr(est, name):
            try:
                feed(h, getattr(est, name)(X, groups=groups))
            except (ValueError, AttributeError) as exc:
                h.update(type(exc).__name__.encode())
    return h.hexdigest()[:16]


def data(seed, n_nodes=16, n=12, d=6, classification=False):
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, d))
    y = X[:, 0] - 2 * X[:, 2] + 0.3 * (groups % 3) + 0.3 * rng.normal(size=len(groups))
    if classification:
        y = (y > 0).astype(int)
    return X, y, groups


NETWORKS = {
    "none": lambda: None,
    "faults": lambda: SimulatedNetwork(drop_rate=0.2, straggler_rate=0.1, rogue_fraction=0.1,
                                       random_state=3),
    "drops": lambda: SimulatedNetwork(drop_rate=0.3, random_state=5),
}
# name: (estimator maker (network, random_state), classification)
FAMILIES = {
    "local_ridge": (lambda net, rs: LocalEstimator(Ridge()), False),
    "local_svc": (lambda net, rs: LocalEstimator(SVC()), True),
    "sparse": (lambda net, rs: FederatedSparseLinearRegression(
        network=net, random_state=rs, rogue_tolerance=0.2 if net else "auto"), False),
    "sparse_exact": (lambda net, rs: FederatedSparseLinearRegression(
        network=net, per_node_intercept=True, random_state=rs,
        rogue_tolerance=0.2 if net else "auto"), False),
    "sparse_shared": (lambda net, rs: FederatedSparseLinearRegression(
        network=net, per_node_intercept=False, random_state=rs), False),
    "recovery": (lambda net, rs: FederatedSupportRecovery(network=net, random_state=rs), False),
    "mocha_c": (lambda net, rs: FederatedMultiTaskClassifier(network=net, random_state=rs), True),
    "mocha_r": (lambda net, rs: FederatedMultiTaskRegressor(network=net, random_state=rs), False),
    "dada": (lambda net, rs: DecentralizedBoostingClassifier(
        network=net, random_state=rs, max_iter=30), True),
    "persolin": (lambda net, rs: PersonalizedLinearClassifier(network=net, random_state=rs), True),
    "online_c": (lambda net, rs: DecentralizedKernelSGDClassifier(network=net, random_state=rs),
                 True),
    "online_r": (lambda net, rs: DecentralizedKernelSGDRegressor(network=net, random_state=rs),
                 False),
}


def main(only=()):
    warnings.filterwarnings("ignore")
    for name, (make, classification) in FAMILIES.items():
        if only and name not in only:
            continue
        for net_name, network in NETWORKS.items():
            for seed, labels in ((0, "int"), (1, "str")):
                X, y, g = data(seed, classification=classification)
                ids = g if labels == "int" else np.array([f"n{v:02d}" for v in g])
                old, first = g < 12, (g >= 12) & (g < 14)
                w = np.random.RandomState(seed).uniform(0.5, 2, len(y))
                try:
                    est = make(network(), seed).fit(X[old], y[old], groups=ids[old])
                    est.add_nodes(X[first], y[first], groups=ids[first])
                    last = g >= 14
                    est.add_nodes(X[last], y[last], groups=ids[last], sample_weight=w[last])
                    out = digest(est, X, ids)
                except (ValueError, TypeError) as exc:
                    out = "ERR " + type(exc).__name__ + ": " + str(exc)[:80]
                print(name, net_name, labels, out, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
