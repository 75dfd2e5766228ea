"""Join bytes against a refit's on a small federation (8 sites, one joins).

growing.rst's "When to join" quoted the join's bytes as 0.1-9.3 % of a
refit's, from ``benchmarks/new_nodes.py``'s federations (HAR's 21 people,
Landmine's 29 fields, School's 139 schools, 100 moons nodes: 80 % fitted,
the rest joining).  A first-time user (user37) with 8 sites of their own
found MOCHA's regressor join costing a quarter to nearly half of a refit's
bytes.  This script measures it: 8 sites from scikit-learn's generators,
each with its own feature shift (and for the regression its own
coefficients and offset), 7 fitted, the 8th joining with ``k`` labelled
samples and scored on its other samples; the refit is the same estimator
fitted on the 7 sites plus the newcomer's ``k`` samples.  Features are
standardized on the pooled data first.

    python benchmarks/user37_small_federation_join.py --seeds 0 1 2 3 4 --ks 10

Results (2026-11-30, main 92a0d0d4, user37; one BLAS thread)
------------------------------------------------------------
Means over seeds 0-4, ``k = 10``, the newcomer the 8th site; score R^2
(regressors) or accuracy on the newcomer's held-out samples (70 regression,
80 classification rows); bytes: the join's over the refit's (min-max over
the seeds)::

    estimator                       k  unseen  join   refit  join bytes / refit bytes
    MOCHA regressor                10  0.879   0.960  0.956  0.34 (0.29-0.39)
    MOCHA classifier               10  0.832   0.835  0.790  0.089 (0.07-0.13)
    Perso-lin                      10  0.830   0.835  0.835  0.0014 (0.0013-0.0015)
    online kernel SGD regressor    10  0.851   0.920  0.588  0.016 (0.015-0.016)

Conclusion: each join scores on average at least its refit on the newcomer
(not on every seed: MOCHA's regressor, seed 0, .990 against .995), but on 8
sites MOCHA's join costs 29-39 % of a refit's bytes for the regressor and
7-13 % for the classifier (its rehearsal's cost against a refit of seven
small nodes that converges in a few rounds): growing.rst's 0.1-9.3 % holds
on the table's federations of 21 to 139 nodes, not on every size.
Perso-lin's join (0.13-0.15 %) and the online regressor's (1.5-1.6 %) stay
cheap here.

Results (2026-11-30, main 732136fa, bytes38; one BLAS thread, load 2-4)
-----------------------------------------------------------------------
Every family at 4, 8, 12 and 20 sites (the last site joins), seeds 0-4::

    python benchmarks/user37_small_federation_join.py --sites 4 8 12 20 \
        --ks 5 10 20 --seeds 0 1 2 3 4 --breakdown --scores --rows \
        "MOCHA regressor" "MOCHA classifier" Perso-lin Dada \
        "online kernel SGD regressor" "online kernel SGD classifier" \
        "sparse linear (support)" "LocalEstimator SVC" "LocalEstimator Ridge"

Join bytes over refit bytes, means over the seeds at k = 5 / 10 / 20 (the
largest seed's in brackets); the same run of main for the MOCHA rows
(``PYTHONPATH`` a copy of main, this script)::

    sites                      4                8                   12                 20
    MOCHA regressor, main  .50/.50/.70 (.93) .34/.34/.31 (.44)   .30/.30/.28 (.40)  .26/.31/.29 (.39)
    MOCHA regressor, now   .13/.13/.18 (.24) .075/.075/.067 (.097) .062/.062/.059 (.085) .054/.064/.061 (.084)
    MOCHA classifier       .18/.18/.20 (.22) .098/.089/.073 (.15) .070/.070/.081 (.11) .053/.051/.051 (.066)
    Perso-lin              .0025-.0028      .0014               .0013-.0014        .0013
    Dada                   .0081-.0082      .0053               .0045-.0046        .0036-.0037
    online SGD regressor   .020-.025        .015-.016           .013-.014          .0075-.0077
    online SGD classifier  .011-.036 (.08)  .0059-.019 (.04)    .0056-.0098        .0029-.0038
    sparse linear          .11              .017                .012               .0071
    LocalEstimator         0                0                   0                  0

Where a MOCHA join's bytes go (``--breakdown``; 8 sites, seed means): the
regressor's 4,878 B were 16 messages: the 7 fitted nodes' rehearsal
requests (119 B) and reports (4,599 B: 14 draws x 40 float64, the 4 share
selection centres x 5 scales x all / fold rows) and the newcomer's 32 B up
and 128 B down (``w_0`` and its prior weight); now its reports are 8-bit
(one float64 scale a draw: 686 B of payload in all) and the join is 1,070
B (``skfed/multitask/_rehearsal_bytes.py``).  The classifier's 614 B: the
newcomer's 320 B (``w_0``: 3 problems x 11 float64), 14 rehearsal
messages of which 224 B are headers and 70 B the bit-packed counts.  The
families whose newcomer exchanges with its neighbours (Dada, Perso-lin,
online) spend 0.1-3.6 % of a refit (means); support recovery's one
download of the shared model (146 B) is 1.7 % at 8 sites.  No gate, guard
or Omega byte in MOCHA's shared mode here: the feature-mean gate's
exchange costs more than its 5 % share of these fits, the guard is local,
Omega is not sent (``a = 0``).

Scores: the MOCHA regressor joins as on main on 53 of 60 seed-rows, the
other 7 within -0.007 / +0.029 R^2 (means -0.0014 to +0.006); rehearsed
around ``w_0`` alone instead (no centres, this branch's first rule,
commit 9a71fb38: 0.060-0.068 of a refit's bytes at 8 sites) it lost
0.003-0.026 R^2 at k = 5, 10 on every site count.  The MOCHA classifier
is unchanged (its nodes report counts; the same scores and bytes on every
row).  Table federations: ``new_nodes.py``'s MOCHA joins on moons,
Landmine, School and HAR, seeds 0-2, k = 5, 10, 20 have the same model
hashes, byte totals and per-pair bytes as main (their reports cost at
most 0.025 of their fits' bytes, or they have one centre, or the gate's);
so do the held-out related-* families by construction (seeds 0-2: one
centre, or related-wide's two at most 0.0026 of its fit's bytes).

Time (join over refit wall time, same process, 8 sites, k = 5 / 10 / 20):
MOCHA regressor 0.36 / 0.37 / 0.37 (main 0.31 / 0.42 / 0.35: the
rehearsal's 20 dual solves a draw against a 0.1 s refit), classifier 0.02
/ 0.04 / 0.05, Perso-lin 0.06-0.08, Dada 0.02-0.03, online regressor 0.09
/ 0.13 / 0.17, online classifier 0.02-0.03, support 0.11 / 0.28 / 0.17 (a
3 ms join against a 27 ms refit), LocalEstimator 0.28 (one SVC of eight; seed 0, k = 10).

Conclusion: at 8 sites every family's join is at most 0.10 of a refit's
bytes on seeds 0-4 at k = 5, 10, 20 but MOCHA's classifier (0.07-0.15 at
k = 5, 0.07-0.13 at 10): its newcomer's ``w_0`` (0.04-0.08 of the refit)
and one request and report per fitted node (16 B headers each) are the
floor; without the rehearsal (``_join_rehearsal`` removed from the fitted
estimator, same seeds) it is 0.035-0.047, but seed 2 then loses 3.5 /
3.75 points at k = 5 / 10.  At 4 sites MOCHA (0.11-0.24) and support
recovery (0.11) stay above a tenth: a refit of 4 sites costs 0.45 kB
(support) to 4.4 kB (MOCHA), and the newcomer's model download alone is
0.04-0.12 of it.  Time: MOCHA's regressor join takes a
third of a small refit's wall time (the rehearsal solves, not cut here),
support recovery and the online regressor 0.1-0.3 of refits that take
tens of milliseconds.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.datasets import make_classification, make_regression
from sklearn.linear_model import Ridge
from sklearn.metrics import accuracy_score, r2_score
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from skfed import DecentralizedKernelSGDRegressor, PersonalizedLinearClassifier
from skfed.baselines import LocalEstimator
from skfed.boosting import DecentralizedBoostingClassifier
from skfed.multitask import (
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
    _rehearsal,
)
from skfed.online import DecentralizedKernelSGDClassifier
from skfed.support import FederatedSparseLinearRegression

N_SITES = 8


def regression_sites(seed, n_per_site=80, n_sites=N_SITES):
    """Sites: shared coefficients plus 0.3 x their mean size per site, an offset, a shift."""
    rng = np.random.RandomState(seed)
    X, y, coef = make_regression(n_samples=n_per_site * n_sites, n_features=12,
                                 n_informative=8, noise=5.0, coef=True, random_state=seed)
    site = np.repeat(np.arange(n_sites), n_per_site)
    for k in range(n_sites):
        rows = site == k
        y[rows] += X[rows] @ (rng.randn(12) * 0.3 * np.abs(coef).mean()) + 20 * rng.randn()
        X[rows] += 0.5 * rng.randn(12)
    return StandardScaler().fit_transform(X), y, site


def classification_sites(seed, n_per_site=90, n_sites=N_SITES):
    """Sites of a 3-class problem, each with its own feature shift."""
    rng = np.random.RandomState(seed)
    X, y = make_classification(n_samples=n_per_site * n_sites, n_features=10,
                               n_informative=6, n_redundant=2, n_classes=3,
                               n_clusters_per_class=1, random_state=seed)
    site = np.repeat(np.arange(n_sites), n_per_site)
    for k in range(n_sites):
        X[site == k] += 0.6 * rng.randn(10)
    return StandardScaler().fit_transform(X), y, site


def binary_sites(seed, n_per_site=90, n_sites=N_SITES):
    """The 3-class sites' first class against the rest (Dada's and Perso-lin's
    binary task)."""
    X, y, site = classification_sites(seed, n_per_site, n_sites)
    return X, (y == 0).astype(int), site


ROWS = {
    "MOCHA regressor": (regression_sites, lambda: FederatedMultiTaskRegressor(random_state=0),
                        r2_score),
    "MOCHA classifier": (classification_sites,
                         lambda: FederatedMultiTaskClassifier(random_state=0), accuracy_score),
    "Perso-lin": (classification_sites, lambda: PersonalizedLinearClassifier(random_state=0),
                  accuracy_score),
    "online kernel SGD regressor": (regression_sites,
                                    lambda: DecentralizedKernelSGDRegressor(random_state=0),
                                    r2_score),
    # (bytes38) the families user37 left out
    "Dada": (binary_sites, lambda: DecentralizedBoostingClassifier(random_state=0),
             accuracy_score),
    "online kernel SGD classifier": (classification_sites,
                                     lambda: DecentralizedKernelSGDClassifier(random_state=0),
                                     accuracy_score),
    "sparse linear (support)": (regression_sites,
                                lambda: FederatedSparseLinearRegression(random_state=0),
                                r2_score),
    "LocalEstimator SVC": (classification_sites, lambda: LocalEstimator(SVC()),
                           accuracy_score),
    "LocalEstimator Ridge": (regression_sites, lambda: LocalEstimator(Ridge()), r2_score),
}


class _RehearsalBytes:
    """Wraps :meth:`Rehearsal.collect` to record the bytes of the rehearsal's
    requests and reports (a MOCHA join's fitted-node traffic besides the
    feature-mean gate's)."""

    def __init__(self):
        self.down = self.up = self.messages = 0
        self._orig = _rehearsal.Rehearsal.collect
        outer = self

        def collect(rehearsal, counter, asked, float_bytes):
            class Tap:
                def broadcast_from_server(self, receivers, payloads):
                    outer.down += int(np.sum(payloads))
                    outer.messages += len(payloads)
                    counter.broadcast_from_server(receivers, payloads)

                def gather_to_server(self, senders, payloads):
                    outer.up += int(np.sum(payloads))
                    outer.messages += len(payloads)
                    counter.gather_to_server(senders, payloads)

            return outer._orig(rehearsal, Tap(), asked, float_bytes)

        _rehearsal.Rehearsal.collect = collect

    def reset(self):
        self.down = self.up = self.messages = 0

    def restore(self):
        _rehearsal.Rehearsal.collect = self._orig


def run(name, seed, k, n_sites=N_SITES):
    """One join and its refit: the unseen, joined and refit scores and the
    join's over the refit's bytes."""
    return run_parts(name, seed, k, n_sites)[0]


def run_parts(name, seed, k, n_sites=N_SITES, tap=None):
    """:func:`run`'s four numbers and a breakdown of the join's bytes (see
    :func:`breakdown`) with the join's and the refit's wall times."""
    sites, make, metric = ROWS[name]
    X, y, g = sites(seed, n_sites=n_sites)
    new = g == n_sites - 1
    rows = np.flatnonzero(new)
    np.random.RandomState(seed).shuffle(rows)
    join, test = rows[:k], rows[k:]
    est = make().fit(X[~new], y[~new], groups=g[~new])
    unseen = metric(y[test], est.predict(X[test], groups=g[test]))
    if tap is not None:
        tap.reset()
    t0 = time.perf_counter()
    est.add_nodes(X[join], y[join], groups=g[join])
    join_time = time.perf_counter() - t0
    joined = metric(y[test], est.predict(X[test], groups=g[test]))
    keep = ~new
    keep[join] = True
    t0 = time.perf_counter()
    refit = make().fit(X[keep], y[keep], groups=g[keep])
    refit_time = time.perf_counter() - t0
    refit_score = metric(y[test], refit.predict(X[test], groups=g[test]))
    log = getattr(est, "join_communication_", None)  # (LocalEstimator sends nothing)
    parts = breakdown(log, n_sites - 1, tap)
    ratio = parts["total"] / refit.n_bytes_sent_ if refit.n_bytes_sent_ else 0.0
    return ([unseen, joined, refit_score, ratio],
            dict(parts, join_time=join_time, refit_time=refit_time,
                 refit_bytes=refit.n_bytes_sent_))


def breakdown(log, n_old, tap=None):
    """The join's bytes by who sends: ``fitted_up`` (the fitted nodes' sends),
    ``fitted_down`` (what they receive), ``new_up`` / ``new_down`` (the
    newcomers'), with their message counts; and, for MOCHA (``tap``), the
    rehearsal's share of the fitted nodes' bytes."""
    if log is None:
        return {"total": 0, "messages": 0}
    sent, received = np.asarray(log.bytes_sent), np.asarray(log.bytes_received)
    msent, mreceived = np.asarray(log.messages_sent), np.asarray(log.messages_received)
    n_nodes = log.n_nodes
    out = {"total": int(log.total_bytes), "messages": int(log.total_messages),
           "fitted_up": int(sent[:n_old].sum()), "fitted_down": int(received[:n_old].sum()),
           "new_up": int(sent[n_old:n_nodes].sum()), "new_down": int(received[n_old:n_nodes].sum()),
           "fitted_messages": int(msent[:n_old].sum() + mreceived[:n_old].sum()),
           "new_messages": int(msent[n_old:n_nodes].sum() + mreceived[n_old:n_nodes].sum())}
    if tap is not None:
        out["rehearsal"] = tap.up + tap.down
        out["rehearsal_messages"] = tap.messages
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--ks", type=int, nargs="+", default=[10])
    parser.add_argument("--sites", type=int, nargs="+", default=[N_SITES])
    parser.add_argument("--rows", nargs="+", default=list(ROWS)[:4], choices=list(ROWS))
    parser.add_argument("--breakdown", action="store_true",
                        help="also print where the join's bytes go (means over the seeds)")
    parser.add_argument("--scores", action="store_true",
                        help="print every seed's join score (for paired comparisons)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    tap = _RehearsalBytes()
    print(f"{'estimator':<30}{'sites':>5}{'k':>3}  unseen  join   refit  "
          "join bytes / refit bytes")
    for name in args.rows:
        for n_sites in args.sites:
            for k in args.ks:
                runs = [run_parts(name, seed, k, n_sites,
                                  tap if name.startswith("MOCHA") else None)
                        for seed in args.seeds]
                out = np.array([r[0] for r in runs])
                mean = out.mean(axis=0)
                print(f"{name:<30}{n_sites:>5}{k:>3}  {mean[0]:.3f}   {mean[1]:.3f}  "
                      f"{mean[2]:.3f}  {mean[3]:.2g} ({out[:, 3].min():.2g}-"
                      f"{out[:, 3].max():.2g})")
                if args.scores:
                    print("    join scores " + " ".join(f"{v:.4f}" for v in out[:, 1]))
                if args.breakdown:
                    parts = {key: np.mean([r[1][key] for r in runs]) for key in runs[0][1]}
                    print("    " + ", ".join(f"{key} {value:.4g}" for key, value in parts.items()))
    tap.restore()


if __name__ == "__main__":
    main()
