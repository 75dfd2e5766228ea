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
import json
import warnings

import new_nodes as nn
import numpy as np
from new_nodes_mocha_seeds import forced_join
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
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
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
    rows = [json.loads(line) for p in paths.split(",") for line in open(p)]
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="har")
    parser.add_argument("--seeds", default="3,4,5,6,7,8")
    parser.add_argument("--ks", default="5")
    parser.add_argument("--out", default=None)
    parser.add_argument("--summary", default=None)
    parser.add_argument("--dump", default=None,
                        help="prefix of one .npz per newcomer: every fitted model's decision values")
    args = parser.parse_args()
    if args.summary:
        summary(args.summary)
        return
    warnings.simplefilter("ignore", ConvergenceWarning)
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            for seed in map(int, args.seeds.split(",")):
                run(name, seed, [int(k) for k in args.ks.split(",")], args.out, args.dump)


if __name__ == "__main__":
    main()
