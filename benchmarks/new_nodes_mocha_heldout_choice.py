"""A MOCHA newcomer choosing between its join and ``w_0`` with the rehearsal as prior.

(Docstring with the measured results: filled in below once measured.)

    python benchmarks/new_nodes_mocha_heldout_choice.py --datasets har,moons,landmine,related-clustered \
        --seeds 0,1,2,3,4,5 --ks 5,10,20 --out /tmp/choice.jsonl
"""

import argparse
import copy
import json
import os
import warnings

import new_nodes as nn
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

import skfed.multitask._rehearsal as _reh

ALPHAS = (0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0)  # weight of w_0


def _capture_solve(reh, a):
    """Per-draw held-out decision values of rehearsal draw set ``a`` at every
    scale, and their labels: ``[(f (S, n_held), y (n_held,), w (n_held,))]``
    per kept draw (binary problems), captured from the package's own solve."""
    k, owners, perms = reh.draws[a]
    kept = reh.kept[a]
    seen = {}
    original = _reh._errors

    def spy(loss_name, f, Y):
        seen["f"], seen["Y"] = np.array(f), np.array(Y)
        return original(loss_name, f, Y)

    _reh._errors = spy
    try:
        errors = reh._solve(k, owners, perms, kept, reh.seeds[a], reh.exact[a])
    finally:
        _reh._errors = original
    drawn = np.flatnonzero(kept)
    starts = [reh.start[t] for t in owners.tolist()]
    out = []
    lo = 0
    for j in drawn.tolist():
        rows = perms[j][k:]
        sl = slice(lo, lo + len(rows))
        out.append((seen["f"][:, 0, sl], seen["Y"][0, sl], reh.sw[starts[j] + rows], int(owners[j])))
        lo += len(rows)
    return errors, out


def _local_model(X, y):
    """The newcomer's own LinearSVC on its samples (one class: that class)."""
    classes = np.unique(y)
    if len(classes) < 2:
        return lambda Z: np.full(len(Z), 1.0 if classes[0] > 0 else -1.0)
    m = LinearSVC().fit(X, y)
    return m.decision_function


def local_rehearsal(reh, a):
    """Per kept draw of set ``a``: the decision values of a LinearSVC on the
    draw's k rows on the node's other rows (the rehearsal's Local), in the
    order of :func:`_capture_solve`'s draws."""
    k, owners, perms = reh.draws[a]
    out = []
    for j in np.flatnonzero(reh.kept[a]).tolist():
        Z, Y, sw = reh.data[int(owners[j])]
        tr, ho = perms[j][:k], perms[j][k:]
        out.append(_local_model(Z[tr], Y[0, tr])(Z[ho]))
    return out


def rehearsal_beta(draws, f_local, base, evidence=1.0):
    """The beta of ALPHAS (weight of the Local model) with the lowest mean
    rehearsal error of ``(1 - beta) f_join + beta f_local``, if it beats
    beta = 0 by ``evidence`` standard errors over the rehearsing nodes."""
    E = np.array([[_err((1 - b) * f[base] + b * fl, y, w) for (f, y, w, _), fl in zip(draws, f_local)]
                  for b in ALPHAS])
    owners = np.array([o for (_, _, _, o) in draws])
    mean, se = _reh.node_paired_difference(E, 0, owners)
    if mean is None:
        return 0.0
    best = int(np.argmin(mean))
    return ALPHAS[best] if best and mean[best] + evidence * se[best] < 0 else 0.0


def _err(f, y, w):
    return float(np.sum(w * (y * f <= 0)) / np.sum(w))


def rehearsal_alpha(draws, base, evidence=1.0):
    """The alpha of ALPHAS with the lowest mean rehearsal error of
    ``(1 - alpha) f_base + alpha f_0``, if it beats alpha = 0 by ``evidence``
    standard errors over the rehearsing nodes; also the per-draw table."""
    E = np.array([[_err((1 - al) * f[base] + al * f[-1], y, w) for (f, y, w, _) in draws]
                  for al in ALPHAS])
    owners = np.array([o for (_, _, _, o) in draws])
    mean, se = _reh.node_paired_difference(E, 0, owners)
    if mean is None:
        return 0.0, E
    best = int(np.argmin(mean))
    if best and mean[best] + evidence * se[best] < 0:
        return ALPHAS[best], E
    return 0.0, E


def run(name, seed, ks, baselines):
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    base = nn.make_estimator("mocha", task, seed).fit(
        X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    unseen = np.max(groups) + 1
    classes = base.classes_
    rows = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        Xk, yk, gk = X[train], y[train], groups[train]
        Xt, yt, gt = X[test], y[test], groups[test]
        sign_t = np.where(yt == classes[1], 1.0, -1.0)
        sign_k = np.where(yk == classes[1], 1.0, -1.0)
        joined = copy.deepcopy(base).add_nodes(Xk, yk, groups=gk)
        fJ = joined.decision_function(Xt, groups=gt)
        f0 = base.decision_function(Xt, groups=np.full(len(gt), unseen))
        # the rehearsal at the size this k uses (fresh copy: its per-draw errors)
        reh = copy.deepcopy(base._join_rehearsal)
        counts = np.array([np.sum(gk == n) for n in new])
        near, reach = _reh.nearest_size(counts, reh.sizes)
        a = reh.usable[int(near[0])]
        scales, _ = copy.deepcopy(base._join_rehearsal).scales(
            counts, np.array([len(np.unique(yk[gk == n])) == 1 for n in new]))
        f_local_reh = local_rehearsal(reh, a)
        errors, draws = _capture_solve(reh, a)
        kept = reh.kept[a]
        S = np.asarray(_reh.REHEARSAL_SCALES)
        mean_err = np.nanmean(errors[:, kept], axis=1)
        size_scale = float(S[int(np.argmin(np.where(np.isfinite(mean_err), mean_err, np.inf)))])
        # the scale the size's ordinary newcomers get (the rule of Rehearsal.scales)
        ordinary = reh._rehearse(a)
        m, se = ordinary
        best = int(np.argmin(m))
        base_idx = best if (best and m[best] - m[0] + _reh.REHEARSAL_EVIDENCE * se[best] < 0) else 0
        e_join = errors[base_idx, kept]
        e_w0 = errors[-1, kept]
        rate_w0 = float(np.mean(e_w0 < e_join))
        rate_tie = float(np.mean(e_w0 == e_join))
        e_local = np.array([_err(fl, y_, w_) for fl, (_, y_, w_, _) in zip(f_local_reh, draws)])
        beta = rehearsal_beta(draws, f_local_reh, base_idx)
        beta0 = rehearsal_beta(draws, f_local_reh, base_idx, evidence=0.0)
        alpha, _ = rehearsal_alpha(draws, base_idx)
        alpha1, _ = rehearsal_alpha(draws, base_idx, evidence=0.0)
        # leave-one-out on each newcomer's k samples (pseudo-nodes, row at weight 0)
        lx, ly, lg, lw, pairs = [], [], [], [], []
        pid = unseen + 1
        for node in new:
            idx = np.flatnonzero(gk == node)
            for j, i in enumerate(idx):
                w = np.ones(len(idx))
                w[j] = 0.0
                lx.append(Xk[idx]), ly.append(yk[idx]), lw.append(w)
                lg.append(np.full(len(idx), pid))
                pairs.append((node, pid, i))
                pid += 1
        loo = copy.deepcopy(base).add_nodes(np.concatenate(lx), np.concatenate(ly),
                                            groups=np.concatenate(lg),
                                            sample_weight=np.concatenate(lw))
        f_loo = np.array([loo.decision_function(Xk[i:i + 1], groups=[p])[0] for _, p, i in pairs])
        f0_k = base.decision_function(Xk, groups=np.full(len(gk), unseen))
        per = []
        for node in new:
            mt = gt == node
            sel = [q for q, (n_, _, _) in enumerate(pairs) if n_ == node]
            ii = np.array([pairs[q][2] for q in sel])
            loo_d = ((sign_k[ii] * f_loo[sel] <= 0).astype(float)
                     - (sign_k[ii] * f0_k[ii] <= 0).astype(float))  # join minus w0, LOO
            acc = {al: float(np.mean(sign_t[mt] * ((1 - al) * fJ[mt] + al * f0[mt]) > 0))
                   for al in ALPHAS}
            idx = np.flatnonzero(gk == node)
            f_loc = _local_model(Xk[idx], sign_k[idx])
            fl_t = f_loc(Xt[mt])
            acc_local = float(np.mean(sign_t[mt] * fl_t > 0))
            acc_mix = {b: float(np.mean(sign_t[mt] * ((1 - b) * fJ[mt] + b * fl_t) > 0)) for b in ALPHAS}
            loo_local = []
            for j in range(len(idx)):
                keep = np.delete(idx, j)
                loo_local.append(float(sign_k[idx[j]] * _local_model(Xk[keep], sign_k[keep])(Xk[idx[j]:idx[j] + 1])[0] <= 0))
            per.append(dict(acc_local=acc_local, acc_mix=acc_mix, loo_local=loo_local,
                            loo_join=[float(sign_k[pairs[q][2]] * f_loo[q] <= 0) for q in sel],node=int(node), n_test=int(mt.sum()), acc=acc,
                            loo_d=loo_d.tolist(), one_class=bool(len(np.unique(yk[gk == node])) == 1),
                            scale=float(scales[list(new).index(node)])))
        row = dict(dataset=name, seed=seed, k=k, n_new=len(new), size=int(reh.draws[a][0]),
                   size_scale=size_scale, ordinary_scale=float(S[base_idx]),
                   rate_w0=rate_w0, rate_tie=rate_tie, n_draws=int(kept.sum()),
                   reh_d=(e_join - e_w0).tolist(), reh_dl=(e_join - e_local).tolist(), reh_owner=reh.draws[a][1][kept].tolist(),
                   alpha=alpha, alpha0=alpha1, beta=beta, beta0=beta0,
                   join=nn.score(task, yt, joined.predict(Xt, groups=gt)),
                   w0=nn.score(task, yt, base.predict(Xt, groups=np.full(len(gt), unseen))),
                   per=per)
        if baselines:
            pooled, local = nn.baselines(task, X, y, groups, fit_rows, train, test, k)
            row.update(global_best=max(pooled.values()), local_best=max(local.values()),
                       pooled=pooled, locals=local)
        print(json.dumps({kk: v for kk, v in row.items() if not isinstance(v, (list, dict))}),
              flush=True)
        rows.append(row)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="har,moons,landmine,related-clustered")
    parser.add_argument("--seeds", default="0,1,2,3,4,5")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--baselines", action="store_true", help="also pooled and local baselines")
    parser.add_argument("--out", default=None, help="append rows as JSON lines here")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            for seed in (int(s) for s in args.seeds.split(",")):
                rows = run(name, seed, [int(k) for k in args.ks.split(",")], args.baselines)
                if args.out:
                    with open(args.out, "a") as fh:
                        fh.writelines(json.dumps(r) + "\n" for r in rows)


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    main()
