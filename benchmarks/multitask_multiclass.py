"""Multiclass multi-task learning: the multinomial loss against one-vs-rest and the baselines.

Four multiclass families, none of which the defaults were tuned on:

- ``ordinal``: 20 nodes x 60 training rows (60 test rows each), 10
  features, 3 ordered classes cut at the tertiles of one linear score
  ``x . (w + 0.3 u_t)`` plus noise (a middle class that no single
  hyperplane separates from the other two);
- ``blobs``: 30 nodes x 50 rows, 8 features, 5 unordered classes, each a
  Gaussian blob whose centre is shared plus a per-node shift;
- ``har``: HAR activity, 6 activities, the 21 people as nodes (561
  features), 70/30 per person;
- ``small``: 300 nodes x 15 rows, 10 features, 4 classes drawn from a
  softmax of ``x . (W + 0.3 U_t)`` (most nodes miss a class or two);
- ``noisy``: ``ordinal`` with 40 uninformative features added.

Per family and seed: mean per-node accuracy of the defaults
(``multi_class="auto"``, i.e. multinomial) and of ``multi_class="ovr"``,
against Global and Local (each the best of ``LinearSVC()``, ``SVC()`` and
``LogisticRegression()``, the last multinomial), whether each fit met
its stopping rule, bytes against the raw upload, and the fit's CPU
seconds as a ratio to one-vs-rest's (the two fits interleaved in one
process, one BLAS thread).  The last line printed is one JSON object.

    cd benchmarks && python multitask_multiclass.py [--seeds 0 1 2] [--families ...]

The raw upload's byte ceiling of ``omega="auto"`` (``--seeds 0 1 2 3 4 5 6 7
8 9 10 25 --families small``, against main before it): the defaults
(multinomial) bind on seeds 8 and 25 (1.074 and 1.163 -> 0.985 of the raw
upload; certified gap 1.7e-3 and 3.3e-3 of the objective at tol 1e-3;
accuracy .7382 -> .7387 and .7816 -> .7820), the other 10 seeds unchanged
(accuracy, bytes, rounds); mean .7426 against best Global .7405, 12/12 met.
One-vs-rest (``multi_class="ovr"``, the same fit over 4 binary problems)
binds on 11 of 12 seeds: 0.956-1.326 -> 0.956 of the raw upload, 8 rounds,
accuracy within -0.0011 / +0.0006 of main's (gap 1.6e-2 to 1.8e-2 of the
objective on seeds 8 and 25).  The ceiling then became conditional (it
binds only once the certified gap is within 10 tol; lead, same day):
``--seeds 8 25 --families small`` gives multinomial 0.985 / 0.985 (the
same), one-vs-rest 1.079 / 1.079 of the raw upload (9 rounds, stopped
within 10 tol past it).

History of the small family's bytes (moved from the user guide, 28 November 2026)::

    On the ``small`` family (nodes of 15
    rows, 4 classes) the ``K - 1`` rows took the multinomial fit from
    1.78-1.93 times the raw upload to 1.12-1.21 (the same accuracy, within
    0.1 point on each split), and the shared model's leaner messages (float32
    scales, the residual's norm in one byte, int32 indices) to 1.01-1.10
    (``python multitask_multiclass.py --seeds 0 1 2 --families small``;
    accuracy .7591 / .7251 / .7371, one-vs-rest 1.10-1.23; the other rows of
    the table predate these message changes); what remains above 1 is
    the shared model's round count on nodes of a few rows.  Per phase on
    seeds 0 / 1 / 2: the learned-share fit 0.448 of the raw upload (5 rounds
    of 0.09 each; it then stopped after the round that crossed its 0.4 budget), the
    personal selection's reports 0.033, the refit at the selected weight
    0.605 / 0.516 / 0.516 (6-7 rounds), the final indices 0.015.  In the
    refit of seed 0 one round is a rejected trial point (its first step,
    from the learned fit's curvature pairs, overshoots) and two more wait
    for the certificate: the fixed-share problem is ill-conditioned in
    ``w_0`` (curvature from ``lambda m / b_w`` to ``lambda m / b_w + m mu``,
    about 870 times apart at the selected weight), so the dual bound of the
    nodes' dual variables lags the objective, which is within 1e-4 of its
    optimum two rounds before the gap reaches ``tol``.  Measured and not
    kept: a learned-share budget of 0.25 or 0.15 moves rounds into the refit
    (1.09 / 0.91 / 0.91 and 0.90 / 1.08 / 0.90); starting the refit at the
    nodes' mean model costs its first round a vector (1.04 on every seed).
    In the fits certified to ``tol`` the certificate now also bounds the dual at the best convex combination
    of the evaluated points' dual variables (a combination of dual-feasible
    variables is dual-feasible; the server bounds its conjugate sum by the
    combined reports, its norms by the combined copies plus their residual
    bounds and Cauchy-Schwarz; nothing travels): seed 0's refit certifies
    one round earlier, the small row's bytes went from 1.01-1.10 to
    1.011 on every seed (accuracy .7584 / .7251 / .7371; the binary and
    regression rows of ``multitask_bytes_small.py --no-baselines --seeds 0 1
    2`` unchanged, round for round; ordinal 0.18-0.19 -> 0.16-0.19, blobs and
    noisy unchanged, ``--families ordinal blobs noisy``).  The small row is now
    under the raw upload on every seed, 0.985 / 0.896 / 0.896 (accuracy .7584
    / .7256 / .7378, every fit certified), from three changes: the learned-share
    fit's budget is a ceiling (it stops before the round that would cross it,
    a round costing its dearest so far: 4 rounds, 0.34, instead of 5, 0.448);
    the learned share's ``mu``, which changes every round, travels in float32
    when the reports do (the share is the one of the float32 ``mu``); and the
    refit's first message names the learned fit's kept round and the selected
    candidate in bits (one byte; a node forms ``mu`` from its kept point's and
    the grid) instead of an int32 and a float64.  Seed 0's refit takes 7
    rounds (6 on seeds 1 and 2).  On seeds 3-10 (``--families small --seeds 3
    4 5 6 7 8 9 10``) the mean is .7384 against Global's .7359 (8 of 8 splits
    met, all certified) and 7 of 8 seeds send 0.90-0.985 of the raw upload;
    seed 8 sends 1.074 (1.189 before these changes): its selection picks the
    shared model alone (``mu`` times 10^6), and the refit at that weight takes
    8 rounds, the certificate lagging the objective (within 1e-4 of its
    optimum three rounds before the gap reaches ``tol``).  With ``omega="auto"`` a fit whose certified gap is within 10 times ``tol``
    stops before the round that would take it past the raw upload (what must
    still travel counted) and returns its best evaluated model, with that
    model's ``joint_objective_`` and certified gap and a ConvergenceWarning
    naming the ceiling.  It binds on 2 of 12 seeds of the small family (seeds
    8 and 25: 0.985 of the raw upload, certified gap 1.7e-3 and 3.3e-3 of the
    objective against ``tol=1e-3``, accuracy .7387 / .7820, ``python
    multitask_multiclass.py --seeds 0 1 2 3 4 5 6 7 8 9 10 25 --families
    small``) and on 2 of 60 rows of ``python multitask_bytes_small.py
    --no-baselines --seeds 0 1 2 3 4 5 6 7 8 9`` (binary 400 nodes seed 9 and
    1,600 nodes seed 7: 1.135 and 1.037 -> 0.942 and 0.940, gap 4.9e-3 and
    1.0e-3; the other 58 rows unchanged, round for round).  A fit further
    from its optimum continues past the raw upload: on nodes of a few rows
    certifying costs more than the rows, and stopping there returned models
    far under pooling (200 binary nodes of 4 rows and 5 features, seeds 0-2:
    0.858 / 0.765 / 0.871 against pooled LogisticRegression's 0.854 / 0.738 /
    0.847 for 2.1-2.7 times the raw upload; stopped at it, 0.718 on seed 0;
    ``tests/test_review3_mtl_ceiling.py``).  Measured and not kept: the ceiling alone
    gives 1.005 / 0.916 / 0.916 (the same as a budget of 0.35); scaling the
    inherited pairs' node curvature by the ratio of personal weights (or its
    square root) removes the rejected point but not a round; the refit
    without the inherited pairs takes 6 rounds on every seed here but 1-2
    more on the binary rows of ``multitask_bytes_small.py`` (up to 1.06);
    the learned fit's vectors at 4 or 6 bits instead of 8 (budgets 0.3 and
    0.4) 0.90-0.99 here but up to 1.03-1.13 there.  Where the messages got cheaper the share selection,
    whose budget is in bytes, runs more candidates and folds: HAR activity
    and noisy now spend 0.36-0.37 and 0.23-0.30 of the raw upload (0.24 and
    0.17-0.20 before).  A
    multinomial round costs 1.1-1.8 times a one-vs-rest round in CPU (the
    joint step's Newton iterations on the multiplier, and on HAR more rounds);
    the CPU column is process time under a load of 15-20 on 2 cores.
    The defaults table above (:ref:`mocha-results`) measured HAR activity
    one-vs-rest, before this loss existed.

History
-------

The multiclass table's re-measurements and the former personal rule (moved from doc/user_guide/multitask.rst, 28 November 2026)::

    Every fit converged (both strategies, every split).  The multinomial
    loss scores 0.03 (HAR activity) to 3.4 points above one-vs-rest on every family, which is
    why it is the default.  The ordinal, blobs and small rows are re-measured
    with the personal selection's plain-minimum rule (:ref:`mocha-small-nodes`;
    ``python multitask_multiclass.py --seeds 0 1 2 --families ordinal blobs
    small``, CPU ratios on a loaded machine); the HAR and noisy rows run the
    share selection, which did not change.  The ordinal, blobs, noisy and small
    rows were re-measured again once the learned share's ``mu`` travelled in
    float32 (``--families ordinal blobs noisy`` and ``--families small``: the
    same means within 0.0008, 0.01-0.02 less of the raw upload; the HAR row
    predates it).  On four families the mean meets
    the target (the better baseline minus 0.1 point); noisy falls 0.5 point
    short, from one split (seed 2, .6458 against .6733).  Under the former
    rule (another weight than the learned one only when better by one
    standard error) ordinal was .6758, 2 of 3 splits (seed 0: .6433 against
    Global ``LogisticRegression``'s .6775).  Over more seeds, replaying both
    rules on the same fits (``python benchmarks/multitask_personal_rule.py``,
    the table of :ref:`mocha-small-nodes`; points against the better
    baseline): ordinal -0.79 +- 0.39 -> -0.23 +- 0.25 on seeds 0-12 and
    +0.11 -> +0.11 on the held-out seeds 13-20 (the same picks), blobs +0.50
    -> +0.51 and +0.39 -> +0.56, small unchanged.  Seeds 0-12 of noisy
    (``python multitask_multiclass.py --seeds 3 4 5 6 7 8 9 10 11 12
    --families noisy``, before this change, which does not touch it): .6679
    against .6716, -0.37 +- 0.31.

Moved from doc/user_guide/multitask.rst on 29 November 2026 (guide16): the
guide's sentence on when its multiclass rows were measured::

    The rows were measured at different commits (HAR before the last message
    changes); their history, phase by phase, is in the docstrings of
    ``benchmarks/multitask_multiclass.py`` and
    ``benchmarks/multitask_refit_first_step.py``.

The HAR row re-measured on 2026-11-29 (guide16, main at 510fb8a,
``python multitask_multiclass.py --seeds 0 1 2 --families har``, one BLAS
thread, loaded machine) with the shared model's present messages: multinomial
.9935 (.9931 / .9936 / .9938), one-vs-rest .9930, best Global .9831, best
Local .9918, 3 / 3 met, all converged, 0.35-0.39 of the raw upload, 35-39
rounds, CPU / OvR 1.39-1.54.  The row it replaced in the guide::

    har      6        **.9935**    .9932        .9831        .9918        3 / 3        0.36-0.37    1.19-1.29

(and the sentence "scores 0.03 (HAR activity) to 3.4 points above
one-vs-rest"; now 0.05).
"""

import argparse
import json
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from skfed import FederatedMultiTaskClassifier
from skfed.baselines import pooled_data_bytes
from skfed.datasets import load_har, train_test_split_per_node

from bench_multitask import baselines, fit_checked, per_node_error

FAMILIES = ("ordinal", "blobs", "har", "small", "noisy")


def _ordinal(seed, n_noise=0, n_nodes=20, per_node=60, d=10):
    rng = np.random.RandomState(seed)
    n = 2 * n_nodes * per_node
    groups = np.repeat(np.arange(n_nodes), 2 * per_node)
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    U = rng.normal(size=(n_nodes, d)) * np.linalg.norm(w) / np.sqrt(d)
    score = np.einsum("ij,ij->i", X, w + 0.3 * U[groups])
    score += 0.5 * np.std(score) * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
    if n_noise:
        X = np.column_stack([X, rng.normal(size=(n, n_noise))])
    train = np.tile(np.r_[np.ones(per_node, bool), np.zeros(per_node, bool)], n_nodes)
    return X[train], X[~train], y[train], y[~train], groups[train], groups[~train]


def _blobs(seed, n_nodes=30, per_node=50, d=8, n_classes=5):
    rng = np.random.RandomState(seed)
    centres = 1.2 * rng.normal(size=(n_classes, d))
    shifts = 0.5 * rng.normal(size=(n_nodes, n_classes, d))
    groups = np.repeat(np.arange(n_nodes), 2 * per_node)
    y = rng.randint(n_classes, size=len(groups))
    X = centres[y] + shifts[groups, y] + rng.normal(size=(len(groups), d))
    train = rng.uniform(size=len(groups)) < 0.5
    return X[train], X[~train], y[train], y[~train], groups[train], groups[~train]


def _small(seed, n_nodes=300, per_node=15, d=10, n_classes=4):
    rng = np.random.RandomState(seed)
    W = rng.normal(size=(n_classes, d))
    U = rng.normal(size=(n_nodes, n_classes, d))
    groups = np.repeat(np.arange(n_nodes), 2 * per_node)
    X = rng.normal(size=(len(groups), d))
    Z = np.einsum("ij,ikj->ik", X, W[None] + 0.3 * U[groups])
    P = np.exp(Z - Z.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    y = (rng.uniform(size=(len(groups), 1)) > np.cumsum(P, axis=1)).sum(axis=1)
    train = np.tile(np.r_[np.ones(per_node, bool), np.zeros(per_node, bool)], n_nodes)
    return X[train], X[~train], y[train], y[~train], groups[train], groups[~train]


def load_family(name, seed):
    """``Xtr, Xte, ytr, yte, gtr, gte`` of one family and seed."""
    if name == "ordinal":
        return _ordinal(seed)
    if name == "noisy":
        return _ordinal(seed, n_noise=40)
    if name == "blobs":
        return _blobs(seed)
    if name == "small":
        return _small(seed)
    X, y, g = load_har(task="activity", return_X_y=True)
    return train_test_split_per_node(X, y, g, test_size=0.3, random_state=seed)


def run(families, seeds):
    rows = []
    for name in families:
        for seed in seeds:
            Xtr, Xte, ytr, yte, gtr, gte = load_family(name, seed)
            raw = pooled_data_bytes(Xtr, ytr, gtr)
            fits = {}
            for label, mc in (("multinomial", "auto"), ("ovr", "ovr")):
                est = FederatedMultiTaskClassifier(multi_class=mc, random_state=0)
                cpu = []
                seconds, ok = fit_checked(est, Xtr, ytr, gtr, cpu)
                fits[label] = dict(
                    score=1.0 - per_node_error(yte, est.predict(Xte, groups=gte), gte),
                    converged=ok, bytes_ratio=est.n_bytes_sent_ / raw, rounds=est.n_iter_,
                    cpu=cpu[0], resolved=est.multi_class_, mode=est.omega_mode_)
            base = baselines(name, Xtr, Xte, ytr, yte, gtr, gte, "accuracy")
            best_global = max(v for k, v in base.items() if k.startswith("global_") and v)
            best_local = max(v for k, v in base.items() if k.startswith("local_") and v)
            best = max(best_global, best_local)
            mn, ovr = fits["multinomial"], fits["ovr"]
            rows.append(dict(
                family=name, seed=seed, n_nodes=len(np.unique(gtr)),
                n_classes=len(np.unique(ytr)), multinomial=round(mn["score"], 4),
                ovr=round(ovr["score"], 4), best_global=round(best_global, 4),
                best_local=round(best_local, 4),
                target_met=bool(mn["score"] >= best - 0.001),
                converged=[mn["converged"], ovr["converged"]],
                bytes_ratio=[round(mn["bytes_ratio"], 3), round(ovr["bytes_ratio"], 3)],
                rounds=[mn["rounds"], ovr["rounds"]],
                cpu_ratio=round(mn["cpu"] / ovr["cpu"], 2),
                cpu_s=[round(mn["cpu"], 2), round(ovr["cpu"], 2)],
                resolved=mn["resolved"], omega_mode=mn["mode"],
                baselines={k: (None if v is None else round(v, 4)) for k, v in base.items()},
            ))
            print(json.dumps(rows[-1]), flush=True)
    return rows


def markdown(rows):
    lines = ["| family | multinomial (default) | one-vs-rest | best Global | best Local | "
             "target met | converged | bytes / raw | CPU / OvR |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name in dict.fromkeys(r["family"] for r in rows):
        rs = [r for r in rows if r["family"] == name]

        def mean(key):
            return np.mean([r[key] for r in rs])

        def span(values):
            return f"{min(values):.2f}-{max(values):.2f}"

        lines.append(
            f"| {name} | {mean('multinomial'):.4f} | {mean('ovr'):.4f} | "
            f"{mean('best_global'):.4f} | {mean('best_local'):.4f} | "
            f"{sum(r['target_met'] for r in rs)}/{len(rs)} | "
            f"{all(all(r['converged']) for r in rs)} | "
            f"{span([r['bytes_ratio'][0] for r in rs])} | "
            f"{span([r['cpu_ratio'] for r in rs])} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--families", nargs="+", default=list(FAMILIES), choices=FAMILIES)
    args = parser.parse_args()
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        rows = run(args.families, args.seeds)
    print(markdown(rows))
    print(json.dumps(dict(benchmark="multitask_multiclass", rows=rows)))


if __name__ == "__main__":
    main()
