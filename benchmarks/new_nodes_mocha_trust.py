"""Does the coherence of the fitted models tell a MOCHA newcomer how far to trust ``w_0``?

Perso-lin's posterior join (``skfed/boosting/_perso_lin_posterior.py``,
``prior_coherence``) trusts a newcomer's own data by ``2 / rho^1.5``,
``rho = ||u||^2 / sum_r a_r ||theta_r||^2`` the coherence of the models its
prior mean ``u`` averages: near 1 when they agree, small when they cancel.
A MOCHA newcomer of the shared model (``omega_mode_ == "shared"``) solves
toward ``w_0`` with the prior variance ``c_n`` times the rehearsed scale
(:mod:`skfed.multitask._join`).  With ``Sigma = (1 - b) / m I + b_w 1
1^T / m`` the conditional prior mean of a new task weighs the fitted
tasks' models alike, so its coherence is the federation's::

    rho = ||mean_t w_t||^2 / mean_t ||w_t||^2

(every problem and coordinate, intercepts included; computed by the server,
which holds the models; a newcomer's prior weight ``lam / c_n`` already
comes from the server in the rehearsed path, so no byte moves).  This
script multiplies the rehearsed scale by ``rho^-p`` (``p<p>``) or ``t /
rho^p`` (``t<t>p<p>``), monkeypatching the fitted rehearsal's ``scales``
(no library switch), on the splits of ``benchmarks/new_nodes.py``, and
prints each seed's ``rho`` and the means over the seeds.  Baselines are
``new_nodes.py``'s (not recomputed here: see its docstring and
doc/user_guide/growing.rst).

    python benchmarks/new_nodes_mocha_trust.py --datasets moons --seeds 3,4,5 \\
        --ks 5,10,20 --variants default,p0.5,p1,p1.5,p2

Measured: see the end of this docstring (filled from the runs).
"""

import argparse
import copy
import re
import warnings

import new_nodes as nn
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits


def coherence(est):
    """``rho`` of the fitted tasks' models (uniform weights)."""
    n_fit = int(getattr(est, "_join_n_fit", len(est.nodes_)))
    W = getattr(est, "_released_W", None)
    W = np.asarray(est._W[:, :n_fit] if W is None else W[:, :n_fit], dtype=np.float64)
    W = np.transpose(W, (1, 0, 2)).reshape(n_fit, -1)
    u = W.mean(axis=0)
    second = float(np.mean(np.einsum("td,td->t", W, W)))
    return float(u @ u) / second if second > 0 else 1.0


def w0_no_better(est, X, y, groups):
    """Per newcomer (sorted labels, the join's order): whether the fit's mean
    loss of ``w_0`` on its samples is at least that of the zero model
    (computed by the newcomer from ``w_0``, which it downloads: no byte)."""
    from skfed.multitask._join import _sample_losses, _targets

    w0 = np.asarray(est._W[:, -1], dtype=np.float64)  # (P, d)
    out, counts = [], []
    for label in np.unique(groups):
        rows = groups == label
        Z, Y = est._features(X[rows]), _targets(est, y[rows])
        f = np.einsum("id,pd->pi", Z, w0)
        out.append(_sample_losses(est.loss, f, Y).mean() >= _sample_losses(est.loss, 0 * f, Y).mean())
        counts.append(int(rows.sum()))
    return np.array(out), np.array(counts)


def trust(variant, rho):
    found = re.fullmatch(r"(?:t([0-9.]+))?p([0-9.]+)", variant)
    t = float(found.group(1)) if found.group(1) else 1.0
    return t / max(rho, 1e-3) ** float(found.group(2))


class _Trusted:
    """The fitted rehearsal with its scales multiplied by a trust factor."""

    def __init__(self, inner, factor):
        self._inner, self._factor = inner, factor

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def scales(self, *args, **kwargs):
        scales, asked = self._inner.scales(*args, **kwargs)
        if isinstance(self._factor, tuple):  # (per newcomer: check the order)
            factor, counts = self._factor
            assert np.array_equal(np.asarray(args[0]), counts)
            return np.asarray(scales) * factor, asked
        return np.asarray(scales) * self._factor, asked


def run(name, seeds, ks, variants):
    scores, rhos = {}, {}
    for seed in seeds:
        data = nn.load(name, seed)
        X, y, groups, task = data[:4]
        extra = data[4] if len(data) > 4 else None
        fit_rows, _, order = nn.split(X, y, groups, seed, extra)
        fitted = nn.make_estimator("mocha", task, seed).fit(X[fit_rows], y[fit_rows],
                                                             groups=groups[fit_rows])
        rho = rhos[seed] = coherence(fitted)
        for k in ks:
            train, test = nn.new_node_rows(order, k)
            for v in variants:
                est = copy.deepcopy(fitted)
                if v != "default":
                    if getattr(est, "_join_rehearsal", None) is None:
                        scores[(v, seed, k)] = np.nan  # (no rehearsal: not this rule's path)
                        continue
                    if v.startswith("lik"):
                        flags, counts = w0_no_better(est, X[train], y[train], groups[train])
                        factor = (np.where(flags, float(v[3:]), 1.0), counts)
                    else:
                        factor = trust(v, rho)
                    est._join_rehearsal = _Trusted(est._join_rehearsal, factor)
                est.add_nodes(X[train], y[train], groups=groups[train])
                scores[(v, seed, k)] = nn.score(task, y[test], est.predict(X[test], groups=groups[test]))
            print(name, seed, k, f"rho={rho:.3f}",
                  {v: round(scores[(v, seed, k)], 2) for v in variants}, flush=True)
    print(f"\n{name}: means over seeds {seeds}; rho {[round(rhos[s], 3) for s in seeds]}")
    for v in variants:
        print(f"{v:10s} " + " / ".join(f"{np.mean([scores[(v, s, k)] for s in seeds]):.2f}"
                                       for k in ks))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="moons")
    parser.add_argument("--seeds", default="3,4,5")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--variants", default="default,p0.5,p1,p1.5,p2")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    seeds = [int(s) for s in args.seeds.split(",")]
    ks = [int(k) for k in args.ks.split(",")]
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            run(name, seeds, ks, args.variants.split(","))


if __name__ == "__main__":
    main()
