"""Per newcomer: which federated model would have served MOCHA's HAR newcomers on fresh seeds.

Results section below.  On ``benchmarks/new_nodes.py``'s splits (MOCHA at
its defaults, HAR sitting), for every newcomer at ``k`` this scores on the
newcomer's test rows:

* ``join``: the package's join;
* ``s<x>``: the join with every newcomer's scale of ``c_n`` forced to
  ``x`` (the rehearsed centre kept; ``s0`` is the centre alone);
* ``c<i>``: centre ``i`` alone (scale 0, centre forced; ``c0`` is the
  fit's ``w_0``, the others the share selection's larger shares), and
  ``j<i>`` the join toward centre ``i`` at the rehearsed scale;
* ``w0``: the fitted estimator's prediction for an unseen node;
* ``node*``: the fitted nodes' own models (the server holds them):
  ``node-best`` the best one on the newcomer's test rows (an oracle),
  ``node-fit`` the one of lowest mean logistic loss on the newcomer's ``k``
  samples (what the newcomer could pick by downloading all ``m`` models),
  ``node-mean`` the mean of their decision values;
* references: ``LinSVC`` / ``LogReg``, pooled ``LinearSVC()`` /
  ``LogisticRegression(max_iter=1000)`` on the fitted rows and every
  newcomer's ``k`` rows (Global's candidates), ``LinSVC-fit`` the same
  without the newcomers' rows.

What a newcomer knows: its ``k`` samples, so its positives among them
(``pos``) and each candidate's loss on them (``loss`` of ``join`` and
``w0`` printed).  ``fed-oracle`` takes, per newcomer, the best of every
federated candidate above (join, scales, centres, joins toward centres,
fitted models): the ceiling of any newcomer-local choice among them.

    python benchmarks/harfresh36_har_oracle.py --seeds 3,4,5,6,7,8 --ks 5 --out o.jsonl
    python benchmarks/harfresh36_har_oracle.py --summary o.jsonl

Results
-------
(filled in below)
"""

import argparse
import copy
import glob
import json
import re
import warnings
from collections import defaultdict

import new_nodes as nn
import numpy as np
from new_nodes_mocha_seeds import forced_join
from scipy.stats import spearmanr
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

SCALES = (0.0, 0.0625, 0.25, 1.0, 4.0, 16.0)


def logloss(f, y01):
    """Mean logistic loss of decision values ``f`` on labels in {0, 1}."""
    s = 2.0 * y01 - 1.0
    return float(np.mean(np.logaddexp(0.0, -s * f)))


def run(name, seed, ks, out, dump=None):
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, _, order = nn.split(X, y, groups, seed, extra)
    est = nn.make_estimator("mocha", task, seed)
    est.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    pos = est.classes_[-1]
    reh = est._join_rehearsal
    n_centres = 0 if reh is None else len(reh.centres)
    lin_fit = LinearSVC().fit(X[fit_rows], y[fit_rows])
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        Xk, yk, gk = X[train], y[train], groups[train]
        Xt, yt, gt = X[test], y[test], groups[test]
        Xp, yp = np.concatenate([X[fit_rows], Xk]), np.concatenate([y[fit_rows], yk])
        preds = {"LinSVC": LinearSVC().fit(Xp, yp).predict(Xt),
                 "LogReg": LogisticRegression(max_iter=1000).fit(Xp, yp).predict(Xt),
                 "LinSVC-fit": lin_fit.predict(Xt),
                 "w0": est.predict(Xt, groups=gt)}
        joined = copy.deepcopy(est)
        joined.add_nodes(Xk, yk, groups=gk)
        preds["join"] = joined.predict(Xt, groups=gt)
        federated = ["join"]
        for s in SCALES:
            preds[f"s{s:g}"], _ = forced_join(est, Xk, yk, gk, Xt, gt, scale=s)
            federated.append(f"s{s:g}")
        for c in range(n_centres):
            preds[f"c{c}"], _ = forced_join(est, Xk, yk, gk, Xt, gt, scale=0.0, centre=c)
            preds[f"j{c}"], _ = forced_join(est, Xk, yk, gk, Xt, gt, centre=c)
            federated += [f"c{c}", f"j{c}"]
        for node in np.unique(gt):
            m, mk = gt == node, gk == node
            yk01 = (yk[mk] == pos).astype(float)
            row = {"dataset": name, "seed": seed, "k": k, "node": int(node),
                   "pos": int(yk01.sum()), "n_test": int(m.sum()),
                   "test_pos": int(np.sum(yt[m] == pos))}
            correct = {key: int(np.sum(p[m] == yt[m])) for key, p in preds.items()}
            # the fitted nodes' own models on this newcomer
            node_correct, node_loss, node_f = [], [], []
            for t in est.nodes_:
                f_t = est.decision_function(Xt[m], groups=np.full(int(m.sum()), t))
                fk = est.decision_function(Xk[mk], groups=np.full(int(mk.sum()), t))
                node_f.append(f_t)
                node_correct.append(int(np.sum(np.where(f_t > 0, pos, est.classes_[0]) == yt[m])))
                node_loss.append(logloss(fk, yk01))
            if dump:
                np.savez(f"{dump}_{name}_s{seed}_k{k}_n{int(node)}.npz", F_test=np.array(node_f),
                         F_k=np.array([est.decision_function(Xk[mk], groups=np.full(int(mk.sum()), t))
                                       for t in est.nodes_]),
                         y_test=(yt[m] == pos), y_k=yk01.astype(bool), X_k=Xk[mk],
                         node_means=np.array([X[fit_rows][groups[fit_rows] == t].mean(axis=0)
                                              for t in est.nodes_]),
                         node_sizes=np.array([np.sum(groups[fit_rows] == t) for t in est.nodes_]),
                         join_test=joined.decision_function(Xt[m], groups=gt[m]),
                         w0_test=est.decision_function(Xt[m], groups=np.full(int(m.sum()), -1)),
                         s0_test=(preds["s0"][m] == pos))
            correct["node-best"] = max(node_correct)
            correct["node-fit"] = node_correct[int(np.argmin(node_loss))]
            fm = np.mean(node_f, axis=0)
            correct["node-mean"] = int(np.sum(np.where(fm > 0, pos, est.classes_[0]) == yt[m]))
            correct["fed-oracle"] = max([correct[key] for key in federated] + [correct["node-best"]])
            # what the newcomer sees: the join's and w0's loss on its k samples
            fj = joined.decision_function(Xk[mk], groups=gk[mk])
            row["loss_join"] = round(logloss(fj, yk01), 4)
            # false negatives / positives of the join and of pooled LinearSVC
            for key in ("join", "LinSVC"):
                p = preds[key][m]
                row[f"fn_{key}"] = int(np.sum((p != pos) & (yt[m] == pos)))
                row[f"fp_{key}"] = int(np.sum((p == pos) & (yt[m] != pos)))
            row["correct"] = correct
            print(f"{name} s{seed} k{k} node {node:2d} pos {row['pos']}/{int(mk.sum())} "
                  + " ".join(f"{key} {100 * v / row['n_test']:.1f}" for key, v in correct.items()
                             if key in ("join", "s0", "w0", "c0", "c3", "node-best", "node-fit",
                                        "fed-oracle", "LinSVC", "LogReg", "LinSVC-fit"))
                  + f"  fn/fp join {row['fn_join']}/{row['fp_join']} LinSVC "
                  f"{row['fn_LinSVC']}/{row['fp_LinSVC']}", flush=True)
            if out:
                with open(out, "a") as fh:
                    fh.write(json.dumps(row) + "\n")


def summary(paths):
    rows = []
    for p in paths.split(","):
        with open(p) as fh:
            rows += [json.loads(line) for line in fh]
    blocks = sorted({(r["k"], r["seed"] // 3) for r in rows})
    keys = sorted({key for r in rows for key in r["correct"]})
    for k, b in blocks:
        sel = [r for r in rows if r["k"] == k and r["seed"] // 3 == b]
        seeds = sorted({r["seed"] for r in sel})
        print(f"k = {k}, seeds {seeds}: accuracy over every newcomer's test rows, mean of the seeds")
        for key in keys:
            if any(key not in r["correct"] for r in sel):
                continue  # a centre some seeds' fits do not have
            acc = [100 * sum(r["correct"][key] for r in sel if r["seed"] == s)
                   / sum(r["n_test"] for r in sel if r["seed"] == s) for s in seeds]
            print(f"  {key:11s} {np.mean(acc):6.2f}  (" + " / ".join(f"{a:.2f}" for a in acc) + ")")


def _dumps(prefix):
    for fn in sorted(glob.glob(f"{prefix}_har_s*_k*_n*.npz")):
        seed, k, node = map(int, re.findall(r"_s(\d+)_k(\d+)_n(\d+)\.npz$", fn)[0])
        yield seed, k, node, np.load(fn)


def rules(prefix):
    """Newcomer-local rules scored from the dumps (no refit): each rule
    gives a newcomer's decision values on its test rows from what it holds
    (its ``k`` labels, their loss under each fitted model, its ``k``
    feature vectors) and the candidates' decision values."""
    res = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    rank = defaultdict(list)
    for seed, k, node, d in _dumps(prefix):
        yt, yk, Ft = d["y_test"], d["y_k"].astype(float), d["F_test"]
        sign = 2.0 * yk - 1.0
        loss = np.logaddexp(0.0, -sign * d["F_k"]).sum(axis=1)  # per fitted model
        order = np.argsort(loss, kind="stable")
        join, s0 = d["join_test"], np.where(d["s0_test"], 1.0, -1.0)
        minority = min(yk.sum(), len(yk) - yk.sum())
        acc = np.mean((Ft > 0) == yt[None], axis=1)
        rho = spearmanr(loss, -acc).correlation
        rank[k].append(0.0 if np.isnan(rho) else rho)
        margin = np.min(np.abs(d["F_k"].mean(axis=0)))
        spread = d["node_means"].std(axis=0) + 1e-12
        near = np.argsort((((d["node_means"] - d["X_k"].mean(axis=0)) / spread) ** 2).sum(axis=1))

        def add(rule, f, cell=(seed, k), yt=yt):
            r = res[rule][cell]
            r[0] += int(np.sum((f > 0) == yt))
            r[1] += len(yt)
        add("join", join)
        add("s0 (centre alone)", s0)
        add("node-fit (top1)", Ft[order[0]])
        add("top3", Ft[order[:3]].mean(axis=0))
        for tau in (1, 4):
            w = np.exp(-tau * (loss - loss.min()))
            add(f"post{tau}", (w / w.sum()) @ Ft)
        add("feat5", Ft[near[:5]].mean(axis=0))
        add("minority>=1: top1", Ft[order[0]] if minority >= 1 else join)
        add("minority>=1: top3", Ft[order[:3]].mean(axis=0) if minority >= 1 else join)
        add("minority<=1: s0", s0 if minority <= 1 else join)
        add("margin>1: s0", s0 if margin > 1 else join)
    ks = sorted({k for rule in res for _, k in res[rule]})
    for k in ks:
        print(f"k = {k}: seeds 0-2 | 3-5 | 6-8 (mean over the seeds of the accuracy on "
              "every newcomer's test rows)")
        for rule in res:
            cells = []
            for block in ((0, 1, 2), (3, 4, 5), (6, 7, 8)):
                acc = [100 * res[rule][(s, k)][0] / res[rule][(s, k)][1]
                       for s in block if (s, k) in res[rule]]
                cells.append(f"{np.mean(acc):6.2f}" if acc else "     -")
            print(f"  {rule:20s} " + " | ".join(cells))
        print(f"  rank correlation of the k-sample loss with the test error over the fitted "
              f"models: median {np.median(rank[k]):.2f}, mean {np.mean(rank[k]):.2f} "
              f"({len(rank[k])} newcomers)")


def activities(prefix, seeds, k):
    """Per newcomer: the HAR activities of its k samples and the join's and
    pooled LinearSVC()'s test errors by activity (3 is sitting)."""
    from skfed.datasets import load_har

    bunch = load_har(task="sitting")
    act = np.asarray(bunch.activity)
    X, y, groups, _ = nn.load("har", 0)
    for seed in seeds:
        fit_rows, _, order = nn.split(X, y, groups, seed, None)
        train, test = nn.new_node_rows(order, k)
        Xp = np.concatenate([X[fit_rows], X[train]])
        yp = np.concatenate([y[fit_rows], y[train]])
        lin = LinearSVC().fit(Xp, yp).predict(X[test])
        gt, gk = groups[test], groups[train]
        for node in np.unique(gt):
            m = gt == node
            d = np.load(f"{prefix}_har_s{seed}_k{k}_n{node}.npz")
            pj = np.where(d["join_test"] > 0, 1, -1)
            yt, at = y[test][m], act[test][m]
            ej = [int(np.sum((pj != yt) & (at == a))) for a in range(6)]
            el = [int(np.sum((lin[m] != yt) & (at == a))) for a in range(6)]
            print(f"seed {seed} k {k} node {node:2d}: k-sample activities "
                  f"{np.bincount(act[train][gk == node], minlength=6).tolist()}, test errors by "
                  f"activity: join {ej}, LinearSVC {el}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="har")
    parser.add_argument("--seeds", default="3,4,5,6,7,8")
    parser.add_argument("--ks", default="5")
    parser.add_argument("--out", default=None)
    parser.add_argument("--summary", default=None)
    parser.add_argument("--rules", default=None, metavar="PREFIX",
                        help="score newcomer-local rules from the dumps of --dump PREFIX")
    parser.add_argument("--activities", default=None, metavar="PREFIX",
                        help="errors by HAR activity, from the dumps (one k)")
    parser.add_argument("--dump", default=None,
                        help="prefix of one .npz per newcomer: every fitted model's decision values")
    args = parser.parse_args()
    if args.summary:
        summary(args.summary)
        return
    if args.rules:
        rules(args.rules)
        return
    if args.activities:
        with threadpool_limits(1):
            activities(args.activities, [int(s) for s in args.seeds.split(",")], int(args.ks))
        return
    warnings.simplefilter("ignore", ConvergenceWarning)
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            for seed in map(int, args.seeds.split(",")):
                run(name, seed, [int(k) for k in args.ks.split(",")], args.out, args.dump)


if __name__ == "__main__":
    main()
