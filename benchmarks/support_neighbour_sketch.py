"""Features next to the support at d = 1,000: where the votes sit, and a second server stage.

Issue 29's open line: at ``d = 1000`` with 10,000 clients of 10 samples a
client's controls are the largest of 999 chance correlations in its 10
rows, so a feature outside the support that is correlated with a support
feature (its neighbour on a Toeplitz design) is tested nearly marginally
and selected above the null rate ``q0``; with enough clients it becomes
significant (Toeplitz ``s = 3``, seed 0: feature 637, next to 636).

This script fits :class:`skfed.FederatedSupportRecovery` at its defaults on
the designs of ``support_vs_pooled.py`` and prints, per problem, the vote
fractions of the support features, of their neighbours (features outside
the support correlated 0.25 or more with a support feature in the
population: ``|j - l| <= 2`` on Toeplitz 0.5, same block on ``block``,
``|j - l| = 1`` on heterogeneous) and of the other features, against the
server's reference rate.

It then evaluates, in NumPy on the same fit's bits, a candidate second
server stage that only *removes* features from the default's support (so
the default's family-wise error guarantee is kept):

* every client that runs the small-client rule (``n_i < d + 4``: public)
  also sends one more bit per feature, the signs of ``v_i = sum_t u_t (x_t
  - mean_i(x))`` over its rows (``u_t`` i.i.d. standard normal, the
  client's own randomness): a one-bit sketch of one random combination of
  its centred rows, ``v_i ~ N(0, c Sigma_i)``, from ``X`` alone (never
  ``y``).  Over ``g`` clients ``rho_jl = sin(pi / 2 mean_i(s_ij s_il))``
  estimates the features' correlation (Sheppard's formula) with standard
  error about ``1.6 / sqrt(g)``;
* the server converts every selected feature's vote fraction among the
  small clients into a noncentrality ``delta_j`` of the normal two-sided
  test at ``auto_z`` (``F(delta) = Phi(-z - delta) + Phi(-z + delta)``,
  ``F(0) = q0``), after removing the rogue margin;
* a selected feature ``j`` whose statistic could come from a selected
  ``l`` alone (``j`` outside the support, correlated ``rho_jl`` with
  ``l``: a nearly marginal test of ``j`` then has noncentrality ``rho_jl
  delta_l``) is kept only when its votes are significantly above
  ``(1 - beta) ((1 - f) F(max_l |rho_jl| delta_l) + f q0) + beta``
  (one-sided binomial test at ``fwer / d``; ``f`` the share of OLS
  clients, whose neighbour rate is ``q0``; the maximum over the selected
  ``l`` whose ``|mean(s_j s_l)|`` is significant at ``fwer / d^2``).

Usage::

    python benchmarks/support_neighbour_sketch.py --designs toeplitz --sizes 10000x10 \\
        --dims 1000:3 --seeds 0
    python benchmarks/support_neighbour_sketch.py   # the Done grid's d = 1000 cells, seeds 0 1

Every problem is printed as one JSON line as it is measured, then a table.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import optimize, stats

sys.path.insert(0, str(Path(__file__).parent))
from support_vs_pooled import f1, make_design  # noqa: E402

from skfed import FederatedSupportRecovery  # noqa: E402


def sketch_signs(X, groups, rng):
    """Each client's one-bit sketch: signs of one random combination of its centred rows."""
    order = np.argsort(groups, kind="stable")
    X, groups = X[order], groups[order]
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    u = rng.standard_normal(len(groups))
    counts = np.diff(np.r_[starts, len(groups)])
    usum = np.add.reduceat(u, starts)
    means = np.add.reduceat(X, starts, axis=0) / counts[:, None]
    v = np.add.reduceat(u[:, None] * X, starts, axis=0) - usum[:, None] * means
    return v > 0


def rate_of(delta, z):
    """Selection rate of a two-sided normal test at ``z`` with noncentrality ``delta``."""
    return stats.norm.sf(z + delta) + stats.norm.sf(z - delta)


def noncentrality(rate, z):
    """Inverse of :func:`rate_of` (0 at or below the null rate)."""
    rate = np.atleast_1d(np.asarray(rate, dtype=np.float64))
    q0 = rate_of(0.0, z)
    out = np.zeros(rate.shape)
    for i, r in enumerate(rate):
        if r > q0:
            r = min(r, 1.0 - 1e-12)
            out[i] = optimize.brentq(lambda t: rate_of(t, z) - r, 0.0, 60.0)
    return out


def stage_two(support, bits, signs, small, n_positive_ok, z, beta, fwer):
    """The candidate second stage; returns the kept support and per-feature detail.

    ``bits`` (clients x d) what the answering clients sent, ``signs`` their
    sketches (rows of non-small clients are ignored), ``small`` the clients
    that ran the small-client rule.
    """
    g, d = bits.shape
    S1 = np.flatnonzero(support)
    q0 = rate_of(0.0, z)
    keep = support.copy()
    detail = {}
    ns = int(small.sum())
    if ns == 0 or len(S1) < 2:
        return keep, detail
    f_ols = 1.0 - ns / g
    rate_small = bits[small][:, S1].mean(axis=0)
    honest = np.clip((rate_small - beta) / (1.0 - beta), 0.0, 1.0)
    delta = noncentrality(honest, z)
    pm = 2.0 * signs[small][:, S1] - 1.0
    m = pm.T @ pm / ns
    rho = np.sin(np.pi / 2.0 * np.clip(m, -1.0, 1.0))
    sig = np.abs(m) > stats.norm.isf(fwer / d**2 / 2.0) / np.sqrt(ns)
    np.fill_diagonal(sig, False)
    votes = bits[:, S1].sum(axis=0)
    for a, j in enumerate(S1):
        cand = np.flatnonzero(sig[a])
        if not len(cand):
            continue
        b = cand[np.argmax(np.abs(rho[a, cand]) * delta[cand])]
        bound = abs(rho[a, b]) * delta[b]
        ref = (1.0 - beta) * ((1.0 - f_ols) * rate_of(bound, z) + f_ols * q0) + beta
        p = stats.binom.sf(votes[a] - 1, g, ref)
        keep[j] = p <= fwer / d
        detail[int(j)] = dict(by=int(S1[b]), rho=round(float(rho[a, b]), 3),
                              delta=round(float(delta[a]), 3), bound=round(float(bound), 3),
                              ref=round(float(ref), 4), kept=bool(keep[j]))
    return keep, detail


def neighbours_of(design, true, d):
    idx = np.flatnonzero(true)
    near = np.zeros(d, dtype=bool)
    width = {"toeplitz": 2, "heterogeneous": 1}.get(design, 0)
    for j in idx:
        if design == "block":
            near[(j // 5) * 5:(j // 5) * 5 + 5] = True
        elif width:
            near[max(0, j - width):j + width + 1] = True
    return near & ~true


def run(design, g, n, d, s, seed):
    X, y, groups, *_, true = make_design(design, g, n, d, s, seed)
    cpu = time.process_time()
    est = FederatedSupportRecovery().fit(X, y, groups=groups)
    cpu = time.process_time() - cpu
    row = dict(design=design, clients=g, samples=n, d=d, s=s, seed=seed, vote=est.vote_,
               cpu_s=round(cpu, 2), reference=round(float(est.reference_rate_), 4)
               if est.vote_ == "selection" else None)
    fr = est.debiased_fraction_
    near = neighbours_of(design, true, d)
    row.update(true_min=round(float(fr[true].min()), 4),
               near_max=round(float(fr[near].max()), 4) if near.any() else None,
               other_max=round(float(fr[~true & ~near].max()), 4),
               f1_default=round(f1(est.support_, true), 4),
               exact_default=bool(np.array_equal(est.support_, true)))
    if est.vote_ != "selection":
        row.update(f1_stage2=row["f1_default"], exact_stage2=row["exact_default"],
                   sketch_bytes=0)
        return row
    small = ~est.ols_clients_[est.answered_]
    bits = est.client_supports_[est.answered_]
    signs = sketch_signs(X, groups, np.random.default_rng(seed + 1000))[est.answered_]
    keep, detail = stage_two(est.support_, bits, signs, small, None,
                             1.0, est.rogue_tolerance_, 0.05)
    row.update(f1_stage2=round(f1(keep, true), 4),
               exact_stage2=bool(np.array_equal(keep, true)),
               removed=np.flatnonzero(est.support_ & ~keep).tolist(),
               removed_true=int((est.support_ & ~keep & true).sum()),
               sketch_bytes=int(small.sum()) * ((d + 7) // 8),
               stage2=detail)
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--designs", nargs="+",
                        default=["independent", "toeplitz", "heterogeneous"])
    parser.add_argument("--sizes", nargs="+", default=["10000x10", "1000x30"])
    parser.add_argument("--dims", nargs="+", default=["1000:3", "1000:10"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    args = parser.parse_args(argv)
    rows = []
    for size in args.sizes:
        g, n = map(int, size.split("x"))
        for dim in args.dims:
            d, s = map(int, dim.split(":"))
            for design in args.designs:
                for seed in args.seeds:
                    row = run(design, g, n, d, s, seed)
                    rows.append(row)
                    print(json.dumps(row), file=sys.stderr, flush=True)
    print("| design | clients x n | d/s | seed | ref | true min | neighbour max | other max "
          "| F1 default | F1 stage 2 | removed |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['design']} | {r['clients']}x{r['samples']} | {r['d']}/{r['s']} | {r['seed']} "
              f"| {r['reference']} | {r['true_min']} | {r['near_max']} | {r['other_max']} "
              f"| {r['f1_default']} | {r['f1_stage2']} | {r.get('removed', [])} |")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
