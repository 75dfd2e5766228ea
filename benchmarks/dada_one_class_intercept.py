"""Dada's one-class newcomers: the constant base predictor refit on their
own rows (issue 32, dada34).  (RESULTS: end of this docstring.)

With the feature-mean gate open (Landmine), a newcomer whose k samples are
all of one class takes the mass-weighted mean of its 5 nearest-mean fitted
nodes' models (``skfed.boosting._dada_mean_join``) and nothing of its own.
Dada's fitted models carry their intercept in stumps thresholded in the
tail of skewed features, which flip on fields whose features are shifted
(dada33: bursts of false positives).  Here the newcomer moves only the
weight ``delta`` of the constant base predictor (the intercept column) of
that mean, on its block of eq. 1 with its neighbours fixed::

    min_delta  c L(mean + delta e) + (mu / 2) delta^2,

``c`` its confidence, ``L = log sum_i s_i exp(-y_i f_i)`` Dada's loss.  For
one class ``y`` the loss is linear in ``delta`` (``L(mean) - y delta``), so
``delta = y c / mu`` in closed form, clipped to the l1 ball's slack
``beta - ||mean||_1`` (per problem of a one-vs-rest fit).  Variants
(``_one_class_model`` patched for the run only):

``off``
    the library (the neighbours' mean);
``pen``
    the closed form above;
``ball``
    all the slack (``delta = y (beta - ||mean||_1)``: the block without
    the graph penalty, a newcomer that trusts its k labels fully);
``pen4``
    ``delta = 4 y c / mu`` (clipped alike), to see the slope.

Usage::

    python benchmarks/dada_one_class_intercept.py --variant pen -- --families dada \
        --datasets landmine --seeds 0,1,2,3,4,5 --ks 5,10,20 --out FILE
    python benchmarks/dada_one_class_intercept.py terrain 5 6,7,8,9,10,11
"""

import sys

import new_nodes as nn
import numpy as np

from skfed.boosting import _dada_mean_join as dmj

VARIANTS = {"off": None, "pen": 1.0, "pen4": 4.0, "ball": np.inf}
_STATE = {"variant": "off", "shifts": []}


def intercept_shift(est, node, mean, scale):
    """``delta`` of every problem (see the module) for a one-class newcomer."""
    y = node.Y[:, node.sw > 0][:, 0].astype(np.float64)      # (P,) its class, +-1
    slack = np.maximum(float(est.beta) - np.abs(np.asarray(mean, np.float64)).sum(axis=1), 0.0)
    step = y * scale * node.confidence / float(est.mu)
    return np.clip(step, -slack, slack)


def _patch():
    original = dmj._one_class_model

    def one_class_model(est, node, mean):
        scale = VARIANTS[_STATE["variant"]]
        if scale is None or not est.fit_intercept:
            return original(est, node, mean)
        delta = intercept_shift(est, node, mean, scale)
        model = np.array(mean, copy=True)
        model[:, -1] += delta.astype(model.dtype)
        _STATE["shifts"].append(float(delta[0]))
        return model, node.confidence * float(node.data_losses(model[None]).sum())

    dmj._one_class_model = one_class_model


def terrain(k, seeds):
    """Errors of the library's join and of pooled ``SVC()`` (new_nodes.py's
    Global) on the newcomers' test rows, summed by terrain (fields 1-15 /
    16-29), by whether the newcomer's k samples are of one class and by
    whether its graph row puts more than half its weight on fields of the
    other terrain ("misplaced")."""
    import copy
    import warnings

    from sklearn.svm import SVC

    warnings.simplefilter("ignore")
    sums = {}
    for seed in seeds:
        X, y, groups = nn.load("landmine", seed)[:3]
        fit_rows, new, order = nn.split(X, y, groups, seed, None)
        train, test = nn.new_node_rows(order, k)
        base = nn.make_estimator("dada", "classification", seed)
        base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
        joined = copy.deepcopy(base)
        joined.add_nodes(X[train], y[train], groups[train])
        pooled = np.concatenate([fit_rows, train])
        svc = SVC().fit(X[pooled], y[pooled])
        pos = joined.classes_[1]
        W = joined.collaboration_graph_
        W = W.toarray() if hasattr(W, "toarray") else np.asarray(W)
        nodes = np.asarray(joined.nodes_)
        for n in new:
            rows = test[groups[test] == n]
            pj, ps = joined.predict(X[rows], groups=groups[rows]), svc.predict(X[rows])
            w = W[np.flatnonzero(nodes == n)[0]]
            other = w[(nodes <= 15) != (n <= 15)].sum() > 0.5 * w.sum()
            key = ("fields 1-15" if n <= 15 else "fields 16-29",
                   ("one class" if len(np.unique(y[train[groups[train] == n]])) == 1
                    else "two classes") + (" misplaced" if other else ""))
            acc = sums.setdefault(key, np.zeros(6, dtype=np.int64))
            acc += [1, len(rows), int(np.sum(pj != y[rows])), int(np.sum(pj == pos)),
                    int(np.sum(ps != y[rows])), int(np.sum(ps == pos))]
    for key, v in sorted(sums.items()):
        print(f"k {k} {key[0]:12s} {key[1]:22s} newcomers {v[0]:2d} rows {v[1]:5d}  join errors "
              f"{v[2]:4d} (predicted positive {v[3]:4d})  SVC errors {v[4]:4d} ({v[5]:3d})",
              flush=True)


def main():
    argv = sys.argv[1:]
    if argv[:1] == ["terrain"]:
        return terrain(int(argv[1]), [int(s) for s in argv[2].split(",")])
    if argv[:1] == ["--variant"]:
        _STATE["variant"], argv = argv[1], argv[2:]
    if _STATE["variant"] not in VARIANTS:
        raise SystemExit(f"--variant must be one of {sorted(VARIANTS)}")
    _patch()
    sys.argv = ["new_nodes.py"] + [a for a in argv if a != "--"]
    out = nn.main()
    s = np.array(_STATE["shifts"])
    if len(s):
        print(f"one-class newcomers: {len(s)}, delta min / median / max "
              f"{s.min():.4g} / {np.median(s):.4g} / {s.max():.4g}", flush=True)
    return out


if __name__ == "__main__":
    sys.exit(main())
