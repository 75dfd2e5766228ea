"""consensus_penalty="auto" with c = 0 (no coupling) as a third candidate.

The online learner's coupling selection (``skfed/online/_coupling.py``)
fits a weak (``c = 0.1``) and a strong (``c = 1``) coupling on every node's
training rows and keeps the one of least held-out error; it never
considers ``c = 0`` (Local), which user38 found 5-7 R^2 points better on
sites whose tasks share nothing (``benchmarks/user38_first_user.py
--families unrelated``).  This benchmark adds a third candidate ``("none",
0.0, epsilon, default graph)`` after the two (a tie keeps the earlier one),
by patching ``_CouplingSelectionMixin._coupling_candidates`` (a wrapper
here, no library switch), and reports, per family and seed, the three mean
held-out errors, the choice, and where the choice is ``none`` the test score
of the defaults and of the variant.  Where ``none`` is not chosen the
variant's fit is the default's (the same candidates, the same adoption):
the model is identical, only the selection's reports carry one more
float64 per tree edge (checked here by hashing the dictionaries and the
predictions, and in ``tests/test_coupling38_zero_candidate.py``).

    python benchmarks/coupling38_zero_candidate.py unrelated --seeds 0 1 2
    python benchmarks/coupling38_zero_candidate.py held-out --families F ... --seeds 0 1 2
    python benchmarks/coupling38_zero_candidate.py joins --datasets moons,school --seeds 0,1,2 --ks 5,10,20

``unrelated`` is user38's regression family (20 sites x 40 rows, 5
features, every site its own weight vector and intercept) and its
classification twin (the sign of the same targets' deviation from the
site's median: balanced classes, unrelated rules).  ``joins`` runs
``benchmarks/new_nodes.py`` with the patch and prints the coupling choice of
every fit it makes.
"""

import argparse
import hashlib
import json
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from skfed.online import (
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
    _coupling,
)

_original_candidates = _coupling._CouplingSelectionMixin._coupling_candidates
_original_adopt = _coupling._CouplingSelectionMixin._adopt_coupling
CHOICES = []


def _two(self, n_nodes):
    """The weak and the strong candidates alone (main before coupling38)."""
    return [c for c in _original_candidates(self, n_nodes) if c[0] != "none"]


def _with_zero(self, n_nodes):
    return _two(self, n_nodes) + [("none", 0.0, float(self.epsilon), None, None)]


def _recording_adopt(self, candidates, errors, topology_adjacency):
    _original_adopt(self, candidates, errors, topology_adjacency)
    sel = self.consensus_selection_
    CHOICES.append({"n_nodes": len(self.nodes_), "choice": sel["choice"],
                    "mean": [float(v) for v in sel["mean_validation_error"]]})


def patch(on=True):
    cls = _coupling._CouplingSelectionMixin
    cls._coupling_candidates = _with_zero if on else _two
    cls._adopt_coupling = _recording_adopt


def fingerprint(est, X, groups):
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(est._weights).tobytes())
    h.update(np.ascontiguousarray(est._points).tobytes())
    h.update(np.ascontiguousarray(est.decision_function(X, groups=groups)
                                  if hasattr(est, "decision_function")
                                  else est.predict(X, groups=groups)).tobytes())
    return h.hexdigest()[:12]


def unrelated(seed, classify):
    from user38_first_user import unrelated as load
    Xtr, Xte, ytr, yte, gtr, gte = load(seed)
    if classify:
        med = np.array([np.median(ytr[gtr == k]) for k in range(int(gtr.max()) + 1)])
        ytr, yte = (ytr > med[gtr]).astype(int), (yte > med[gte]).astype(int)
    return ("classification" if classify else "regression"), Xtr, Xte, ytr, yte, gtr, gte


def score(task, est, Xte, yte, gte):
    from sklearn.metrics import r2_score
    pred = est.predict(Xte, groups=gte)
    if task == "regression" and FAMILY_METRIC == "r2":
        return float(np.mean([r2_score(yte[gte == k], pred[gte == k]) for k in np.unique(gte)]))
    from online_experiments import _node_score
    return _node_score(task, pred, yte, gte)


FAMILY_METRIC = "r2"


def run(name, seed, data, always_default=False):
    task, Xtr, Xte, ytr, yte, gtr, gte = data
    Est = DecentralizedKernelSGDRegressor if task == "regression" else DecentralizedKernelSGDClassifier
    row = {"family": name, "seed": seed}
    patch(True)
    t = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        var = Est(random_state=seed).fit(Xtr, ytr, groups=gtr)
    row["cpu_variant"] = round(time.process_time() - t, 1)
    sel = var.consensus_selection_
    row["mean"] = [round(float(v), 5) for v in sel["mean_validation_error"]]
    row["choice"] = sel["choice"]
    row["variant"] = score(task, var, Xte, yte, gte)
    row["variant_bytes"] = int(var.n_bytes_sent_)
    if sel["choice"] == "none" or always_default:
        patch(False)
        t = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dflt = Est(random_state=seed).fit(Xtr, ytr, groups=gtr)
        row["cpu_default"] = round(time.process_time() - t, 1)
        row["default"] = score(task, dflt, Xte, yte, gte)
        row["default_choice"] = dflt.consensus_selection_["choice"]
        row["default_bytes"] = int(dflt.n_bytes_sent_)
        if sel["choice"] != "none":
            row["identical_model"] = fingerprint(var, Xte, gte) == fingerprint(dflt, Xte, gte)
    print(json.dumps(row), flush=True)
    return row


def main():
    global FAMILY_METRIC
    if sys.argv[1:2] in (["joins"], ["joins-two"]):
        # benchmarks/new_nodes.py with the third candidate (joins-two: with the
        # weak and strong ones alone, main before coupling38); its own arguments
        import new_nodes
        patch(sys.argv[1] == "joins")
        sys.argv = ["new_nodes.py"] + sys.argv[2:]
        try:
            new_nodes.main()
        finally:
            print(json.dumps({"coupling_choices": CHOICES}))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("part", choices=["unrelated", "held-out"])
    parser.add_argument("--families", nargs="+", default=None)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--always-default", action="store_true")
    args = parser.parse_args()
    if args.part == "unrelated":
        for classify in (False, True):
            for seed in args.seeds:
                run("unrelated-class" if classify else "unrelated", seed,
                    unrelated(seed, classify), args.always_default)
    elif args.part == "held-out":
        from online_experiments import held_out_family
        FAMILY_METRIC = "rmse"
        for name in args.families:
            for seed in args.seeds:
                run(name, seed, held_out_family(name, seed), args.always_default)


if __name__ == "__main__":
    main()
