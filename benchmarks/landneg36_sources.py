"""Where Landmine newcomers' false positives come from (issue 32, landneg36).

Dumps, per fit (MOCHA / Perso-lin default, Landmine, ``new_nodes.py``'s
split) and ``k``, every newcomer's test rows: the join's decision value,
the truth, pooled ``SVC()``'s decision value (the table's Global), and per
newcomer its ``k`` labels, its feature-mean neighbours (the hub's 5), their
training positive rates and terrains (fields 1-15 foliated, 16-29 bare).

    python benchmarks/landneg36_sources.py --families mocha,persolin --seeds 6,7,8 --ks 5,10 \
        --out /tmp/ln36/src678.npz
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


def fitted_models(base, n_fit):
    """Perso-lin's fitted nodes' models ``(n_fit, d + 1)`` (intercept last)."""
    coef = np.asarray(base.coef_).reshape(len(base.nodes_), -1)[:n_fit]
    return np.column_stack([coef, np.asarray(base.intercept_).reshape(len(base.nodes_), -1)[:n_fit]])


def persolin_placements(rows):
    """Perso-lin newcomers' accuracy when the 5 fitted nodes (their models'
    mass-weighted mean, as the join) are chosen by other statistics of the
    ``k`` samples, by a soft posterior, or by the terrain (an oracle)."""
    from skfed._mean_scatter import hub_whitening

    bases, out, centroid = {}, {}, {}
    for r in rows:
        if r["family"] != "persolin":
            continue
        if r["base"] is not None:
            bases[r["seed"]] = r["base"]
        base, fitted = bases[r["seed"]], r["fitted"]
        X, y, groups, _ = nn.load("landmine", r["seed"])
        fit_rows = nn.split(X, y, groups, r["seed"])[0]
        Xf, gf = X[fit_rows], groups[fit_rows]
        mass = r["sizes"].astype(float)
        W = fitted_models(base, len(fitted))
        d = W.shape[1] - 1
        info = base._join_info
        L, means = info["feature_map"], info["feature_means"]
        tmeans = np.array([np.arcsinh(Xf[gf == g]).mean(0) for g in fitted])
        tscatter = sum((np.arcsinh(Xf[gf == g]) - tmeans[i]).T
                       @ (np.arcsinh(Xf[gf == g]) - tmeans[i]) for i, g in enumerate(fitted))
        stats = {"median": (np.array([np.median(Xf[gf == g], 0) for g in fitted]),
                            lambda x: np.median(x, 0), L),
                 "asinh mean": (tmeans, lambda x: np.arcsinh(x).mean(0), hub_whitening(tscatter))}
        all_mean = mass @ W / mass.sum()
        for g in r["new"]:
            xk, m = r["Xk"][r["gk"] == g], r["gt"] == g
            xt, yt = r["Xt"][m], r["yt"][m]
            near = np.searchsorted(fitted, r["near"][g])
            D = (((means - xk.mean(0)) @ L) ** 2).sum(1) * mass.sum()  # per-row Mahalanobis^2
            z = -0.5 * len(xk) * D
            post = mass * np.exp(z - z.max())
            same = np.flatnonzero(foliated(fitted) == foliated(g))
            P, q = means @ L, xk.mean(0) @ L
            c8 = np.argsort(((P - q) ** 2).sum(1), kind="stable")[:8]  # one mean-shift step
            c = np.argsort(((P - mass[c8] @ P[c8] / mass[c8].sum()) ** 2).sum(1), kind="stable")[:5]
            models_shift = mass[c] @ W[c] / mass[c].sum()
            F = foliated(fitted)
            side = ((((q - P[F].mean(0)) ** 2).sum() < ((q - P[~F].mean(0)) ** 2).sum())
                    == foliated(g))
            right = centroid.setdefault((block(r["seed"]), r["k"]), [0, 0])
            right[0] += int(side)
            right[1] += 1
            models = {"join (maha mean)": mass[near] @ W[near] / mass[near].sum(),
                      "mean-shift (8) then 5": models_shift,
                      "soft posterior S/k": post @ W / post.sum(),
                      "0.5 join + 0.5 all": 0.5 * (mass[near] @ W[near] / mass[near].sum()
                                                   + all_mean)}
            for name, (tab, stat, M) in stats.items():
                c = np.argsort((((tab - stat(xk)) @ M) ** 2).sum(1), kind="stable")[:5]
                models[name] = mass[c] @ W[c] / mass[c].sum()
            c = same[np.argsort(D[same], kind="stable")[:5]]
            models["oracle terrain"] = mass[c] @ W[c] / mass[c].sum()
            for name, w in models.items():
                s = out.setdefault((name, block(r["seed"]), r["k"], r["seed"]), [0, 0])
                s[0] += np.sum(((xt @ w[:d] + w[d]) > 0) == yt)
                s[1] += len(yt)
    table(out)
    print("newcomers whose k-sample mean is nearer its own terrain's centroid of the fitted"
          " means (whitened):", {key: f"{v[0]}/{v[1]}" for key, v in sorted(centroid.items())})


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
