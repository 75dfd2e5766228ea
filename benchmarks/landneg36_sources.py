"""Where Landmine newcomers' false positives come from (issue 32, landneg36).

On fresh seeds 6-11, MOCHA's Landmine joins at ``k = 5, 10`` and
Perso-lin's at ``k = 5`` sit under pooled ``SVC()`` (growing.rst Limits,
"Fresh seeds").  This dumps, per fit (MOCHA / Perso-lin defaults,
``new_nodes.py``'s split) and ``k``, every newcomer's test rows: the join's
decision value, the join's with the feature-mean gate shut (Perso-lin's
posterior join, MOCHA's rehearsed centre), the truth and pooled ``SVC()``'s
decision value; per newcomer its ``k`` labels and the 5 fitted nodes the
hub names (fields 1-15 are foliated, 16-29 bare earth / desert: the
terrain, read from the id, is used only to diagnose, and by the oracle).
``--from-pickle`` then prints where the false positives come from, Perso-lin
joins rebuilt with other placements (the newcomer's model is the
mass-weighted mean of the 5 nodes' models, so any placement can be scored
from the fit: ``tests/test_landneg36_sources.py`` checks the rebuilt join
is the package's), and rules that move the join's decision.

    python benchmarks/landneg36_sources.py --families persolin,mocha \
        --seeds 6,7,8,9,10,11,0,1,2,3,4,5 --ks 5,10,20 --out all.pkl
    python benchmarks/landneg36_sources.py --from-pickle all.pkl

Results (2026-11-29, main bcda3b7, landneg36; one BLAS thread, nice)
--------------------------------------------------------------------

The joins reproduce the table (mean over seeds 6-11, k = 5 / 10 / 20):
Perso-lin 94.33 / 94.52 / 94.59, MOCHA 94.37 / 94.25 / 94.50, pooled
``SVC()`` 94.50 / 94.50 / 94.48, **all negative 94.45 / 94.46 / 94.43**:
on these seeds pooled ``SVC()`` is 0.05 above predicting every test
sample negative (seeds 0-5: 0.24), and under it on seeds 7 and 9.  Join
minus ``SVC()`` per seed (``against_svc``)::

    persolin k  5 seeds 6-11  +0.17 -0.54  0.00 -0.37 -0.32 +0.06  mean -0.17 t -1.46
    mocha    k  5 seeds 6-11  +0.23 -0.83 -0.03 -0.51 +0.03 +0.36  mean -0.12 t -0.67
    mocha    k 10 seeds 6-11  +0.40 -0.09 -0.72 -0.99 -0.03 -0.10  mean -0.25 t -1.23
    (the same rows on seeds 0-5: +0.22 t 1.91, +0.38 t 3.07, +0.25 t 2.52)

**Sources** (true / false positives summed over the 6 seeds' ~18,000 test
rows; "misplaced": 3 or more of the hub's 5 nodes of the other terrain)::

    family   seeds  k  join TP  FP  FP(misplaced) FP(has a positive)  misplaced  SVC TP FP
    persolin 6-11   5       56  81            71                 10      13/36       31 23
    persolin 6-11  10       55  43            26                  6       5/36       31 23
    persolin 6-11  20       64  35            26                 19       4/36       31 23
    mocha    6-11   5       86 104            91                 24      13/36       31 23
    mocha    6-11  10       85 123            28                 86       5/36       31 23
    mocha    6-11  20       88  77            17                 56       4/36       31 23
    persolin 0-5    5      112  33            15                  9       5/36       46  4
    mocha    0-5    5      145  38            11                  5       5/36       46  4

* At ``k = 5`` the false positives are misplacement: 13 of 36 newcomers
  (11 of them foliated, named bare-earth fields) hold 71 of Perso-lin's 81
  and 91 of MOCHA's 104; bare-earth models score such rows up to 8-14.
  Newcomers placed in their own terrain predict few positives, mostly
  true (bare earth: 5-8 true for 0-1 false each).  Pooled ``SVC()`` calls
  9 of Perso-lin's 81 false positives (10 of MOCHA's 104) positive, and 20
  of its 56 true ones (24 of 86).
* At ``k = 10, 20`` most of MOCHA's false positives (86 of 123, 56 of 77)
  are on newcomers whose samples hold a positive: its own solve at the
  rehearsed scale (seed 8 ``k = 10``: field 1, 2 positives of 10, 24
  false; field 25, 1 of 10, 12 false), not the placement.
* Placement is the gap: the 5 nearest fitted fields *of its own terrain*
  (an oracle) give Perso-lin 94.73 / 94.74 / 94.72 on seeds 6-11.  But
  the information is not in a 5-sample mean: against the true terrains'
  centroids of the fitted means (whitened), 23 of 36 newcomers' 5-sample
  means are nearer their own (31 / 32 of 36 at ``k = 10 / 20``; seeds
  0-5: 31 / 29 / 35).

**Placements** (Perso-lin; the newcomer's model the mass-weighted mean of
the 5 chosen nodes' models; accuracy on seeds 0-5, then 6-11, k = 5 / 10
/ 20; then the share of the chosen nodes in the newcomer's terrain, 6-11)::

    join (Mahalanobis mean)  93.86 93.77 93.92   94.33 94.52 94.59   0.68 0.80 0.88
    mean-shift (8) then 5    93.86 93.82 93.94   94.25 94.56 94.55   0.67 0.87 0.88
    coordinate medians       93.66 93.60 93.62   94.20 94.36 94.45   0.54 0.68 0.68
    asinh-feature means      93.84 93.80 93.94   94.20 94.50 94.56   0.59 0.77 0.83
    node Gaussians (QDA)     93.58 93.67 93.68   94.17 94.27 94.42   0.50 0.54 0.64
    mean + log spreads       93.66 93.70 93.75   93.91 94.12 94.29   0.42 0.53 0.62
    10 nearest, 5 by loss    93.77 93.69 93.90   94.41 94.52 94.57   0.72 0.82 0.89
    soft posterior, cov S/k  93.57 93.65 93.84   94.38 94.51 94.55
    0.5 join + 0.5 all-mean  93.57 93.52 93.59   94.37 94.49 94.49
    own-loss check           93.57 93.44 93.66   94.33 94.38 94.50
    all-node mean            93.33 93.30 93.28   94.22 94.23 94.20
    oracle terrain           94.00 93.98 93.97   94.73 94.74 94.72   1.00 1.00 1.00

(``mean-shift``: the mass-weighted centre of the 8 nearest, then its 5
nearest; medians: each node's and the newcomer's coordinate-wise median,
the hub's map; ``asinh``: means of ``asinh(x)``, whitened by their own
pooled scatter; ``QDA``: the ``k`` samples' likelihood under each node's
mean and own scatter; ``log spreads``: each feature's log standard
deviation added to the distance, scaled by its spread over nodes; ``by
loss``: the 5 of the 10 nearest whose models have the lowest logistic
loss on the newcomer's samples; ``soft posterior``: every node weighted by
its mass times ``exp(-k D / 2)``, ``D`` the per-row Mahalanobis distance;
``own-loss check``: the join's model unless the all-node mean model has
the lower loss on the newcomer's samples.)  The own-loss gain does lean
the right way (median +0.002 for placed newcomers, -0.010 for misplaced
ones) but overlaps too much, and its fallback, the all-node mean, is under
all negative.

**Decision rules** (seeds 0-5, then 6-11, k = 5 / 10 / 20)::

    persolin join                 93.86 93.77 93.92   94.33 94.52 94.59
    persolin gate shut            93.36 93.36 93.49   94.24 94.27 94.40
    persolin mean with gate shut  93.61 93.52 93.68   94.40 94.50 94.54
    persolin one-class: negative  93.48 93.50 93.72   94.39 94.48 94.53
    persolin margin 1             93.67 93.58 93.68   94.43 94.53 94.55
    persolin one-class margin 1   93.71 93.64 93.84   94.40 94.53 94.59
    mocha    join                 94.02 93.86 93.90   94.37 94.25 94.50
    mocha    gate shut            93.42 93.38 93.33   94.22 93.82 94.26
    mocha    mean with gate shut  93.57 93.47 93.49   94.43 94.13 94.43
    mocha    one-class: negative  93.54 93.53 93.70   94.37 94.16 94.44
    mocha    margin 1             93.83 93.71 93.80   94.44 94.37 94.55
    mocha    margin 2             93.65 93.56 93.61   94.42 94.41 94.51
    pooled SVC()                  93.64 93.61 93.60   94.50 94.50 94.48
    all negative                  93.40 93.37 93.36   94.45 94.46 94.43

(``margin c``: positive only where the decision value exceeds ``c``; 0.5
and 2 are printed too; ``one-class``: only for newcomers whose ``k``
labels are all negative; ``mean with gate shut``: the mean of the two
joins' models.)  A margin bounds what a threshold built from the fitted
nodes' class rates can do (a prior of 20 pseudo-samples at the
neighbours' rate, 0.03-0.09, and no positive in 5 samples move a logistic
intercept by 0.23-0.24): none reaches ``SVC()`` at
``k = 5`` on seeds 6-11 (best 94.43 / 94.44), and each costs seeds 0-5
0.06-0.4 at ``k = 5``.

Conclusion (negative): no rule lands, so nothing in the package changed
and no held-out family was run.  The fresh-seed misses at ``k = 5`` are
newcomers whose 5-sample feature mean lies nearer the other terrain's
fields (only 23 of 36 are on the right side even of the terrains' own
centroids), and on seeds 6-11 the target, pooled ``SVC()``, is 0.05 above
all negative: a rule that predicts fewer positives gains there and loses
on seeds 0-5.  MOCHA's ``k = 10`` miss is mostly its own solve on
newcomers holding 1-2 positives (``skfed/multitask/_join.py``'s scales,
not this benchmark's to change).
"""

import argparse
import copy
import os
import pickle
import sys

import numpy as np
from sklearn.svm import SVC

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes as nn


def hub_neighbours(est, family, Xk, gk, sw=None):
    """The 5 fitted nodes the hub names for each newcomer (as the join does)."""
    from skfed._mean_neighbours import N_NEAREST, nearest_rows

    new = np.unique(gk)
    if family == "persolin":
        info = est._join_info
        means, L = info["feature_means"], info.get("feature_map")
        own = np.array([Xk[gk == g].mean(axis=0) for g in new])
    else:
        gate = est._join_rehearsal.neighbours
        means, L = gate.means, gate.whiten
        own = np.array([Xk[gk == g].mean(axis=0) for g in new])[:, :means.shape[1]]
    if L is not None:
        means, own = means @ L, own @ L
    return dict(zip(new.tolist(), nearest_rows(means, own, N_NEAREST)))


def close_gate(est, family):
    """The fit as if its feature-mean gate had closed: Perso-lin's posterior
    join (its rule where the gate runs and closes), MOCHA's rehearsed centre."""
    if family == "persolin":
        est.newcomer_rule_ = "posterior"
    else:
        gate = est._join_rehearsal.neighbours
        gate.open, gate.whiten = False, None
    return est


def run(family, seed, ks):
    X, y, groups, task = nn.load("landmine", seed)
    fit_rows, new, order = nn.split(X, y, groups, seed)
    base = nn.make_estimator(family, task, seed)
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    fitted = np.asarray(base.nodes_)
    rates = np.array([y[fit_rows][groups[fit_rows] == g].mean() for g in fitted])
    sizes = np.array([np.sum(groups[fit_rows] == g) for g in fitted])
    out = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        Xk, yk, gk = X[train], y[train], groups[train]
        Xt, yt, gt = X[test], y[test], groups[test]
        joined = copy.deepcopy(base)
        joined.add_nodes(Xk, yk, groups=gk)
        dec = joined.decision_function(Xt, groups=gt)
        shut = close_gate(copy.deepcopy(base), family)
        shut.add_nodes(Xk, yk, groups=gk)
        svc = SVC().fit(np.concatenate([X[fit_rows], Xk]), np.concatenate([y[fit_rows], yk]))
        near = hub_neighbours(base, family, Xk, gk)
        out.append({"family": family, "seed": seed, "k": k, "fitted": fitted, "rates": rates,
                    "sizes": sizes, "new": np.asarray(new), "gk": gk, "yk": yk, "gt": gt,
                    "yt": yt, "dec": np.asarray(dec),
                    "dec_shut": np.asarray(shut.decision_function(Xt, groups=gt)),
                    "pred": joined.predict(Xt, groups=gt), "svc": svc.decision_function(Xt),
                    "near": {g: fitted[c] for g, c in near.items()}, "Xt": Xt, "Xk": Xk,
                    "base": base if k == ks[0] else None})
        print(family, seed, k, f"acc join {np.mean(out[-1]['pred'] == yt):.4f} "
              f"svc {np.mean((out[-1]['svc'] > 0) == yt):.4f}", flush=True)
    return out


# ------------------------------------------------------------------ analysis
def foliated(nodes):
    """Landmine's terrain of each field id: True for fields 1-15 (foliated)."""
    return np.asarray(nodes) <= 15


def block(seed):
    return "6-11" if seed >= 6 else "0-5"


def sources(rows):
    """Per family, seed block and ``k``: the join's and pooled ``SVC()``'s true
    and false positives, the false positives of newcomers whose 5 neighbours
    are mostly (3 or more) of the other terrain, and of newcomers whose ``k``
    samples hold a positive."""
    acc = {}
    for r in rows:
        pos, neg = r["dec"] > 0, r["yt"] == 0
        s = acc.setdefault((r["family"], block(r["seed"]), r["k"]), np.zeros(9))
        for g in r["new"]:
            m = r["gt"] == g
            wrong = np.mean(foliated(r["near"][g]) != foliated(g)) > 0.5
            two = r["yk"][r["gk"] == g].sum() > 0
            fp = np.sum(pos[m] & neg[m])
            s += [np.sum(pos[m] & ~neg[m]), fp, fp * wrong, fp * two, wrong, 1,
                  np.sum((r["svc"][m] > 0) & ~neg[m]), np.sum((r["svc"][m] > 0) & neg[m]),
                  wrong and foliated(g)]
    print("family   seeds  k  join TP  FP  FP(misplaced) FP(has a positive)  misplaced/newcomers"
          "  SVC TP  FP  misplaced foliated")
    for key in sorted(acc):
        s = acc[key].astype(int)
        print(f"{key[0]:8s} {key[1]:5s} {key[2]:2d}  {s[0]:7d} {s[1]:3d} {s[2]:13d} {s[3]:18d}"
              f"  {s[4]:9d}/{s[5]:<9d} {s[6]:6d} {s[7]:3d}  {s[8]:3d}")


def against_svc(rows):
    """Per family, ``k`` and seed block: join minus pooled ``SVC()`` per seed
    (mean and t over seeds), all negative minus ``SVC()``, and how many of
    the join's false / true positives ``SVC()`` also calls positive."""
    keys = sorted({(r["family"], r["k"], block(r["seed"])) for r in rows})
    for fam, k, blk in keys:
        sel = sorted([r for r in rows if (r["family"], r["k"], block(r["seed"])) == (fam, k, blk)],
                     key=lambda r: r["seed"])
        svc = np.array([np.mean((r["svc"] > 0) == r["yt"]) for r in sel])
        diff = 100 * (np.array([np.mean((r["dec"] > 0) == r["yt"]) for r in sel]) - svc)
        neg = 100 * (np.array([np.mean(r["yt"] == 0) for r in sel]) - svc)
        both = np.sum([[np.sum((r["dec"] > 0) & (r["svc"] > 0) & (r["yt"] == 0)),
                        np.sum((r["dec"] > 0) & (r["yt"] == 0)),
                        np.sum((r["dec"] > 0) & (r["svc"] > 0) & (r["yt"] == 1)),
                        np.sum((r["dec"] > 0) & (r["yt"] == 1))] for r in sel], axis=0)
        t = diff.mean() / (diff.std(ddof=1) / np.sqrt(len(diff))) if len(diff) > 1 else np.nan
        print(f"{fam:8s} k {k:2d} seeds {blk:4s} join-SVC {np.round(diff, 2).tolist()} mean "
              f"{diff.mean():+.2f} t {t:+.2f} | all negative-SVC {neg.mean():+.2f} | SVC also "
              f"positive on the join's FP {both[0]}/{both[1]}, TP {both[2]}/{both[3]}")


def fitted_models(base, n_fit):
    """Perso-lin's fitted nodes' models ``(n_fit, d + 1)`` (intercept last)."""
    coef = np.asarray(base.coef_).reshape(len(base.nodes_), -1)[:n_fit]
    return np.column_stack([coef, np.asarray(base.intercept_).reshape(len(base.nodes_), -1)[:n_fit]])


def fit_tables(base, r):
    """What the placements below need from a Perso-lin fit: the fitted rows
    by node, the nodes' masses and models, the hub's table and map, and
    per-node statistics other placements would send instead of the mean."""
    from skfed._mean_scatter import hub_whitening

    fitted = r["fitted"]
    X, y, groups, _ = nn.load("landmine", r["seed"])
    fit_rows = nn.split(X, y, groups, r["seed"])[0]
    parts = [X[fit_rows][groups[fit_rows] == g] for g in fitted]
    info = base._join_info
    t = {"mass": r["sizes"].astype(float), "W": fitted_models(base, len(fitted)),
         "L": info["feature_map"], "means": info["feature_means"]}
    tmeans = np.array([np.arcsinh(x).mean(0) for x in parts])
    t["asinh"] = (tmeans, hub_whitening(sum((np.arcsinh(x) - m).T @ (np.arcsinh(x) - m)
                                            for x, m in zip(parts, tmeans))))
    t["median"] = np.array([np.median(x, 0) for x in parts])
    t["log_sd"] = np.array([np.log(x.std(0)) for x in parts])
    t["cov"] = [np.cov(x.T, bias=True) + 1e-6 * np.eye(x.shape[1]) for x in parts]
    return t


def logistic_loss(Z, y, w):
    return float(np.mean(np.logaddexp(0, -(2 * y - 1) * (Z @ w[:-1] + w[-1]))))


def placements(t, xk, yk, near, own):
    """Every rule's 5 nodes (or model) for one newcomer (``own``: the fitted
    nodes of its terrain, for the oracle)."""
    mass, W, L, means = t["mass"], t["W"], t["L"], t["means"]
    top = lambda dist: np.argsort(dist, kind="stable")[:5]
    P, q = means @ L, xk.mean(0) @ L
    D = ((P - q) ** 2).sum(1) * mass.sum()  # per-row Mahalanobis^2 (the pool sums rows)
    c8 = np.argsort(D, kind="stable")[:8]  # one mean-shift step: their centre, its 5 nearest
    ll = [-0.5 * (np.einsum("ia,ab,ib->", xk - mu, np.linalg.inv(C), xk - mu)
                  + len(xk) * np.linalg.slogdet(C)[1]) for mu, C in zip(means, t["cov"])]
    d_sd = ((t["log_sd"] - np.log(xk.std(0) + 1e-12)) / t["log_sd"].std(0)) ** 2
    tm, tL = t["asinh"]
    ten = np.argsort(D, kind="stable")[:10]
    ten_loss = [logistic_loss(xk, yk, W[j]) for j in ten]
    chosen = {"join (maha mean)": near,
              "mean-shift (8) then 5": top(((P - mass[c8] @ P[c8] / mass[c8].sum()) ** 2).sum(1)),
              "coordinate medians": top((((t["median"] - np.median(xk, 0)) @ L) ** 2).sum(1)),
              "asinh-feature means": top((((tm - np.arcsinh(xk).mean(0)) @ tL) ** 2).sum(1)),
              "node Gaussians (QDA)": top(-np.array(ll)),
              "mean + log spreads": top(D / np.median(D) + d_sd.sum(1) / np.median(d_sd.sum(1))),
              "10 nearest, 5 by loss": ten[top(ten_loss)],
              "oracle terrain": own[top(D[own])]}
    models = {name: mass[c] @ W[c] / mass[c].sum() for name, c in chosen.items()}
    z = -0.5 * len(xk) * D
    post = mass * np.exp(z - z.max())
    models["soft posterior S/k"] = post @ W / post.sum()
    all_mean = mass @ W / mass.sum()
    models["0.5 join + 0.5 all"] = 0.5 * (models["join (maha mean)"] + all_mean)
    gain = logistic_loss(xk, yk, all_mean) - logistic_loss(xk, yk, models["join (maha mean)"])
    models["own-loss check"] = models["join (maha mean)"] if gain >= 0 else all_mean
    models["all-node mean"] = all_mean
    return chosen, models, gain


def persolin_placements(rows):
    """Perso-lin newcomers' accuracy when the 5 fitted nodes (their models'
    mass-weighted mean, as the join) are chosen by other statistics of the
    ``k`` samples, by a soft posterior or by the terrain (an oracle), and the
    share of the chosen nodes in the newcomer's terrain."""
    bases, out, share, centroid, gains = {}, {}, {}, {}, {True: [], False: []}
    for r in rows:
        if r["family"] != "persolin":
            continue
        if r["base"] is not None:
            bases[r["seed"]] = r["base"]
        t = fit_tables(bases[r["seed"]], r)
        fitted, F = r["fitted"], foliated(r["fitted"])
        d = t["W"].shape[1] - 1
        P = t["means"] @ t["L"]
        for g in r["new"]:
            xk, yk, m = r["Xk"][r["gk"] == g], r["yk"][r["gk"] == g], r["gt"] == g
            xt, yt = r["Xt"][m], r["yt"][m]
            own = np.flatnonzero(F == foliated(g))
            chosen, models, gain = placements(t, xk, yk, np.searchsorted(fitted, r["near"][g]),
                                              own)
            key = (block(r["seed"]), r["k"])
            for name, c in chosen.items():
                share.setdefault((name,) + key, []).append(np.mean(F[c] == foliated(g)))
            gains[bool(np.mean(F[chosen["join (maha mean)"]] == foliated(g)) > 0.5)].append(gain)
            q = xk.mean(0) @ t["L"]
            right = centroid.setdefault(key, [0, 0])
            right[0] += int((((q - P[F].mean(0)) ** 2).sum() < ((q - P[~F].mean(0)) ** 2).sum())
                            == foliated(g))
            right[1] += 1
            for name, w in models.items():
                s = out.setdefault((name,) + key + (r["seed"],), [0, 0])
                s[0] += np.sum(((xt @ w[:d] + w[d]) > 0) == yt)
                s[1] += len(yt)
    table(out)
    print("share of the 5 nodes in the newcomer's terrain (seeds 0-5 / 6-11, k = 5 10 20):")
    for name in dict.fromkeys(k[0] for k in share):
        print(f"  {name:22s}" + "".join(
            f" {np.mean(share[(name, b, k)]):.2f}" for b in ("0-5", "6-11") for k in (5, 10, 20)))
    print("newcomers whose k-sample mean is nearer its own terrain's centroid of the fitted"
          " means (whitened):", {key: f"{v[0]}/{v[1]}" for key, v in sorted(centroid.items())})
    for placed, g in gains.items():
        print(f"own-loss gain, {'placed' if placed else 'misplaced'} newcomers: "
              f"{np.percentile(g, [0, 25, 50, 75, 100]).round(3).tolist()}")


def table(out):
    """Mean over seeds of the accuracies ``out[(name, block, k, seed)] = [right, n]``."""
    names = list(dict.fromkeys(k[0] for k in out))
    for blk in ("0-5", "6-11"):
        for name in names:
            vals = [[100 * v[0] / v[1] for key, v in out.items() if key[:3] == (name, blk, k)]
                    for k in (5, 10, 20)]
            if vals[0]:
                print(f"{blk:5s} {name:22s}" + "".join(f" {np.mean(v):6.2f}" for v in vals)
                      + f"   ({len(vals[0])} seeds)")


def decision_rules(rows):
    """Accuracy of rules that move the join's decision: all negative, a
    margin for every newcomer or for one-class ones, the gate-shut join, the
    mean of the join's and the gate-shut join's models, pooled ``SVC()``."""
    out = {}
    for r in rows:
        yt, dec, shut = r["yt"], r["dec"], r["dec_shut"]
        npos = {g: r["yk"][r["gk"] == g].sum() for g in r["new"]}
        one = np.array([npos[g] == 0 for g in r["gt"]])
        preds = {"join": dec > 0, "all negative": np.zeros(len(yt), bool),
                 "pooled SVC()": r["svc"] > 0, "gate shut": shut > 0,
                 "mean with gate shut": dec + shut > 0,
                 "one-class: negative": (dec > 0) & ~one}
        for c in (0.5, 1.0, 2.0):
            preds[f"margin {c:g}"] = dec > c
            preds[f"one-class margin {c:g}"] = np.where(one, dec > c, dec > 0)
        for name, p in preds.items():
            out[(f"{r['family']} {name}", block(r["seed"]), r["k"], r["seed"])] = [
                np.sum(p == yt), len(yt)]
    table(out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--families", default="mocha,persolin")
    p.add_argument("--seeds", default="6,7,8")
    p.add_argument("--ks", default="5,10")
    p.add_argument("--out", help="pickle the dumped rows here")
    p.add_argument("--from-pickle", nargs="+", help="analyse dumped rows instead of running")
    a = p.parse_args()
    if a.from_pickle:
        rows = []
        for f in a.from_pickle:
            with open(f, "rb") as fh:
                rows += pickle.load(fh)
        sources(rows)
        against_svc(rows)
        persolin_placements(rows)
        decision_rules(rows)
        return
    rows = []
    for seed in [int(s) for s in a.seeds.split(",")]:
        for fam in a.families.split(","):
            rows += run(fam, seed, [int(k) for k in a.ks.split(",")])
            if a.out:
                with open(a.out, "wb") as f:
                    pickle.dump(rows, f)


if __name__ == "__main__":
    main()
