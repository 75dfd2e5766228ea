"""MOCHA newcomers centred on the fitted models that fit their samples best (a lead, not built).

A newcomer of MOCHA's shared model solves toward the fitted ``w_0`` (or the
share candidate its size's rehearsal chose) at the rehearsed scale
(:mod:`skfed.multitask._join`).  Where the fitted tasks form groups that
``w_0`` averages away (rotated moons: four rotations, ``w_0`` at chance;
related-clustered) no scale toward ``w_0`` reaches Local
(``new_nodes_mocha_honest.py``: not even with an honest table).  This
script measures another centre, chosen by the newcomer on its own ``k``
samples as in clustered federated learning (a client picks the cluster
models of lowest loss on its data): the mean of the ``m`` fitted node
models ``w_t`` of lowest mean logistic loss on the newcomer's samples.

* ``centre<m>``: the package's join (its rehearsed scale) with that mean
  as the prior centre;
* ``near<m>``: that mean as the newcomer's model (scale 0).

Binary sets (one problem), one fit per data set and seed, the splits of
``new_nodes.py``; Global and Local the best pooled and per-node baselines
(``new_nodes.baselines``; the best per seed, then the mean: never under
``new_nodes.py``'s best mean).  Nothing here is counted: the newcomer would
download the ``m_fit`` fitted models (``m_fit P d'`` floats: rotated moons
80 x 3, HAR 17 x 562), and a rule choosing between this centre and
``w_0`` from the fitted nodes' rehearsal would need the models at every
rehearsing node too (up to 32 x ``m_fit P d'`` floats: rotated moons
about 30 kB in float32 against a join of 5.5 kB and a refit of about 60
kB).

    python benchmarks/new_nodes_mocha_loss_neighbours.py --datasets moons \
        --seeds 0,1,2,3,4,5,6,7,8,9,10,11
    python benchmarks/new_nodes_mocha_loss_neighbours.py --datasets \
        related-alike,related-clustered,related-wide,related-narrow,related-small,landmine \
        --seeds 0,1,2 --gated 20
    python benchmarks/new_nodes_mocha_loss_neighbours.py --datasets har --seeds 3,4,5

``--gated M`` adds the column ``gated``: the rehearsal's centre rule
(:func:`~skfed.multitask._rehearsal.choose_centre`, one standard error
over nodes, two nodes lowered) compares ``w_0`` with a loss centre at each
size, each draw taking the mean of the ``M`` models of lowest loss on its
``k`` rows among the *other* fitted nodes; a size that takes it centres
its newcomers on their own loss centres (its one-class draws still solve
toward ``w_0``).  Only for fits without a share selection (HAR and
Landmine keep the package's centres; Landmine's feature-mean gate
replaces any centre anyway, so its ``centre`` columns equal ``join``).

Measured (mocha28, 2026-11-29, main 3eb98bc, load 6-9; means over the
seeds, ``k = 5 / 10 / 20``)::

    rotated moons 0-11   join      53.41 / 56.13 / 59.90
                         centre5   55.34 / 57.35 / 60.89
                         centre10  55.01 / 57.37 / 61.18
                         centre20  54.69 / 57.29 / 61.16
                         near5     53.98 / 54.52 / 56.52
                         gated20   53.41 / 56.27 / 60.12
                         Local     55.25 / 58.00 / 61.44
      by block (join / centre5 / centre20):
        0-2   55.72 / 60.44 / 62.83   57.43 / 59.75 / 62.89   56.78 / 60.33 / 63.63
        3-5   54.99 / 55.55 / 61.66   55.09 / 56.52 / 62.21   55.46 / 56.61 / 62.55
        6-8   50.26 / 52.81 / 55.67   53.86 / 55.74 / 58.58   51.98 / 55.08 / 58.90
        9-11  52.66 / 55.70 / 59.42   54.96 / 57.37 / 59.87   54.55 / 57.12 / 59.56
    HAR 3-5              join      96.30 / 98.07 / 98.72
                         centre5   96.85 / 97.66 / 98.11
                         near5     96.88 / 97.77 / 97.95
                         centre20  96.07 / 97.23 / 97.87   (Global 97.07 / 97.24 / 97.39)
    related-clustered 0-2  join    68.33 / 71.00 / 77.08
                         centre5   76.98 / 79.14 / 84.86
                         near5     78.11 / 81.10 / 84.89
                         gated20   75.18 / 79.07 / 83.53
    related-alike 0-2    join      91.00 / 91.05 / 91.14
                         centre5   90.67 / 90.93 / 91.39
                         centre20  90.87 / 91.02 / 91.28
                         gated20   91.00 / 91.12 / 91.31
    related-narrow 0-2   join      91.76 / 91.88 / 91.89
                         centre5   91.20 / 91.45 / 91.83
                         centre20  91.78 / 91.83 / 92.25
    related-wide 0-2     join      89.69 / 89.62 / 89.50
                         centre5   89.38 / 89.33 / 89.36
                         centre20  89.62 / 89.52 / 89.44
    related-small 0-2    join      90.82 / 91.14 / 91.61
                         centre5   90.91 / 91.04 / 91.61
    Landmine 0-2         join      93.84 / 94.03 / 93.88   (near5 93.69 / 93.63 / 93.89)

``gated20`` (``M = 20``, the best ungated ``M`` on the choosing block,
moons seeds 3-5) opens on moons only at size 10 of seeds 6 (+3.26 /
+5.17 at ``k = 10 / 20``) and 9 (-1.59 / -2.50), never on seeds 0-5;
on related-clustered at every size and seed (+6.9 / +8.1 / +6.5), on
related-alike twice (+0.50, +0.21).

``gated5`` (``M = 5``; command as above with ``--gated 5``, moons seeds
0-11): moons identical on seeds 0-2 and 9-11, seeds 3-5 54.99 / 55.75 /
61.66 (+0.20 at ``k = 10``: seed 5), 6-8 50.26 / 56.56 / 58.74 (+3.75 /
+3.07: seeds 6 and 7), every opening a gain (+0.61..+6.34), still under
Local (58.31 / 61.25 on 6-8); held-out related-clustered 77.84 / 80.71 /
85.28 (+9.5 / +9.7 / +8.2), related-alike 91.00 / 90.98 / 91.25 (-0.07 at
``k = 10``), related-narrow 91.76 / 91.55 / 91.89 (-0.33 at ``k = 10``),
-wide and -small identical.  Chosen on moons seeds 3-5, ``M = 5`` beats
``M = 20`` there (+0.20 against 0) and on 6-8, but loses 0.33 on a
held-out family: not adoptable by the project's rule.

So the loss centre helps where the tasks form groups (related-clustered
+7..+9 ungated, moons +1.0..+1.9 over seeds 0-11 at ``k = 5``, HAR seeds
3-5 ``k = 5`` +0.55, which is still 0.2 under Global) and costs where they
do not (related-narrow / -wide ``M = 5``: -0.3..-0.56; HAR ``k = 10, 20``
-0.4..-0.6); gated by the rehearsal at ``M = 20`` it keeps the
related-clustered gain and loses at most 0.09 (related-narrow ``k = 10``),
but leaves the moons rows where they are (the table rarely opens it;
seeds 3-5 never); at ``M = 5`` it lifts moons seeds 6-8 by 3-4 points and
loses 0.33 on related-narrow.  Not built: no target row reaches its goal,
and its bytes (every fitted model to every
rehearsing node and newcomer) are over the moons join's budget.

**A centre the server ranks** (mocha32, 2026-11-29, main 8354eb6;
``--ranks loss,margin``, :func:`margin_centres`).  The bytes need not be
the obstacle: the newcomer uploads ``s = sum_i y_i z_i`` (``d'`` values in
the message it already sends: 3 floats on rotated moons, 24 bytes), the
server, which holds every fitted model, ranks them by ``w_t . s /
||w_t||`` and sends the mean of the top ``M`` in place of ``w_0`` (same
size).  Join accuracy, rotated moons ``k = 5``, means over each block
(``--datasets moons --seeds B --ks 5 --ms 5,20 --ranks loss,margin``)::

    seeds   join   centre20  margin20  centre5  margin5  Local
    0-2     55.72  56.78     57.04     57.43    57.36    56.05
    3-5     54.99  55.46     55.44     55.09    55.33    56.15
    6-8     50.26  51.98     51.67     53.86    53.88    55.66
    9-11    52.67  54.55     54.60     54.96    54.65    53.14

The server's ranking matches the newcomer's loss ranking to 0.3 (M = 20)
and lifts the row on seeds 0-2 above Local, but chosen on seeds 3-5
(M = 20) it stays under Local there and on 6-8 (by 4.0), and ungated it
loses on held-out families (``--datasets
related-alike,related-narrow,related-wide --seeds 0,1,2 --ks 5,10,20 --ms
20 --ranks loss,margin``; join -> margin20): related-alike 91.00 / 91.05 /
91.14 -> 90.80 / 90.98 / 91.31, related-narrow 91.76 / 91.88 / 91.89 ->
91.33 / 91.62 / 92.00, related-wide 89.69 / 89.62 / 89.50 -> 89.53 /
89.60 / 89.36 (losses up to 0.43), as the loss centre does on HAR (above).
A gate by the rehearsal meets the optimism of ``w_0`` on its own rows
(``new_nodes_mocha_honest.py``).  Not built.
"""

import argparse
import copy
import json
import time
import warnings

import new_nodes as nn
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from new_nodes_mocha_share import fit_binary_shared
from threadpoolctl import threadpool_limits

from skfed.multitask import _rehearsal

MS = (5, 10, 20)
RANKS = ("loss",)  # --ranks loss,margin: also the server-ranked margin centres
GATED = None  # --gated M: the rehearsal's centre rule compares w_0 and the loss centre

# The rehearsal's _solve with per-draw centres (new_nodes_mocha_grid's patch
# calls _rehearsal._m25_centres for the prior mean of every draw).
import new_nodes_mocha_grid  # noqa: E402,F401  (patches Rehearsal._solve)

_grid_centres = _rehearsal._m25_centres
_plain_init = _rehearsal.Rehearsal.__init__
_plain_rehearse = _rehearsal.Rehearsal._rehearse
_plain_centres_for = _rehearsal.Rehearsal.centres_for
_NEWCOMER_CENTRES = None  # set per join: (n_new, d') loss centres over all fitted models


def _draw_centres(self, w0, owners, n_new):
    held = getattr(self, "_m28_draws", None)
    if held is not None and w0 is held[0]:
        return held[1]
    return _grid_centres(self, w0, owners, n_new)


def _init(self, est, nodes, lam):
    _plain_init(self, est, nodes, lam)
    self._m28_W = np.asarray(est._W[:, :nodes.layout.n_nodes], dtype=np.float64)
    self._m28_choice = {}


def _rehearse(self, a):
    """With GATED: per draw, the mean of the GATED models of the *other*
    fitted nodes of lowest loss on its k rows is a second centre; the size
    takes it by choose_centre's rule (fits without a share selection only)."""
    if (GATED is None or len(self.centres) > 1 or self.loss_name != "logistic"
            or self.w0.shape[0] != 1 or a in self.results):
        return _plain_rehearse(self, a)
    start = time.process_time()
    k, owners, perms = self.draws[a]
    kept = self.kept[a]
    solve = (k, owners, perms, kept, self.seeds[a], self.exact[a])
    E0 = self._solve(*solve)
    W = self._m28_W[0]
    C = np.empty((1, len(owners), W.shape[1]))
    for j, (t, p) in enumerate(zip(owners.tolist(), perms)):
        Zt, Yt, swt = self.data[t]
        rows = p[:k]
        loss = (swt[rows][None, :] * np.logaddexp(0.0, -Yt[0, rows][None, :] * (W @ Zt[rows].T))
                ).sum(axis=1)
        loss[t] = np.inf  # the other fitted nodes only
        C[0, j] = W[np.argsort(loss, kind="stable")[:GATED]].mean(axis=0)
    token = self.w0.copy()
    self._m28_draws = (token, C)
    try:
        E1 = self._solve(*solve, w0=token)
    finally:
        self._m28_draws = None
    scored = kept & np.isfinite(E0[0])
    choice = _rehearsal.choose_centre([E0[:, scored], E1[:, scored]], owners[scored])
    self._m28_choice[a] = choice
    self.centre_of[a] = 0  # (one-class draws still solve toward w_0)
    errors = (E0, E1)[choice]
    diff = errors[:, kept] - errors[0, kept]
    result = (errors[:, kept].mean(axis=1), diff.std(axis=1, ddof=1) / np.sqrt(kept.sum()))
    self.results[a] = result
    self._free_rows()
    self.cpu += time.process_time() - start
    return result


def _centres_for(self, counts, M):
    out = _plain_centres_for(self, counts, M)
    if GATED is None or _NEWCOMER_CENTRES is None or not len(self.sizes):
        return out
    near, reach = _rehearsal.nearest_size(counts, self.sizes)
    for i in np.flatnonzero(reach).tolist():
        if self._m28_choice.get(self.usable[near[i]], 0) == 1:
            out[0, i] = _NEWCOMER_CENTRES[i]
    return out


_rehearsal._m25_centres = _draw_centres
_rehearsal.Rehearsal.__init__ = _init
_rehearsal.Rehearsal._rehearse = _rehearse
_rehearsal.Rehearsal.centres_for = _centres_for


def loss_centres(W, Zk, ys, gk, m):
    """Per newcomer (in ``np.unique(gk)`` order): the mean of the ``m`` rows
    of ``W`` (fitted models, ``(m_fit, d')``) of lowest mean logistic loss
    on its samples (ties: the lower index)."""
    out = []
    for node in np.unique(gk):
        mk = gk == node
        loss = np.logaddexp(0.0, -ys[mk][None, :] * (W @ Zk[mk].T)).mean(axis=1)
        out.append(W[np.argsort(loss, kind="stable")[:m]].mean(axis=0))
    return np.array(out)


def margin_centres(W, Zk, ys, gk, m):
    """Per newcomer (in ``np.unique(gk)`` order): the mean of the ``m`` rows
    of ``W`` whose direction agrees best with its labelled samples, ranked by
    ``w_t . s / ||w_t||`` with ``s = sum_i y_i z_i``: what a server holding
    the fitted models can rank from ``d'`` values the newcomer uploads (its
    ``s``), instead of the newcomer downloading every model (ties: the
    lower index)."""
    out = []
    norms = np.maximum(np.linalg.norm(W, axis=1), 1e-300)
    for node in np.unique(gk):
        mk = gk == node
        s = ys[mk] @ Zk[mk]
        out.append(W[np.argsort(-(W @ s) / norms, kind="stable")[:m]].mean(axis=0))
    return np.array(out)


def run(name, seed, ks, out):
    """The rows of one data set and seed (every column but ``gated`` with the
    package's rehearsal: GATED is off while they join)."""
    global GATED
    gated, GATED = GATED, None
    try:
        return _run(name, seed, ks, out, gated)
    finally:
        GATED = gated


def _run(name, seed, ks, out, gated):
    global GATED, _NEWCOMER_CENTRES
    # (the split of new_nodes.py, MOCHA fitted, checked binary, shared, logistic)
    X, y, g, task, fit_rows, order, est = fit_binary_shared(name, seed)
    classes, s0 = est.classes_, float(est.intercept_scaling)
    n_fit = len(np.unique(g[fit_rows]))
    W = np.asarray(est._W[0, :n_fit], dtype=np.float64)
    rows = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        Xk, yk, gk, Xt, yt, gt = X[train], y[train], g[train], X[test], y[test], g[test]
        pooled, local = nn.baselines(task, X, y, g, fit_rows, train, test, k)
        row = {"dataset": name, "seed": seed, "k": k, "Global": max(pooled.values()),
               "Local": max(local.values())}
        row["join"] = nn.score(task, yt, copy.deepcopy(est).add_nodes(Xk, yk, groups=gk)
                               .predict(Xt, groups=gt))
        Zk = np.c_[Xk, np.full(len(Xk), s0)]
        Zt = np.c_[Xt, np.full(len(Xt), s0)]
        ys = np.where(yk == classes[1], 1.0, -1.0)
        newcomers = list(np.unique(gk))
        for m, rank in [(m, r) for m in MS for r in RANKS]:
            centres = (loss_centres if rank == "loss" else margin_centres)(W, Zk, ys, gk, m)
            tag = "" if rank == "loss" else "margin"
            at = np.array([newcomers.index(v) for v in gt])
            f = np.einsum("id,id->i", Zt, centres[at])
            row[f"near{tag}{m}"] = nn.score(task, yt, np.where(f > 0, classes[1], classes[0]))
            original = _rehearsal.Rehearsal.centres_for
            _rehearsal.Rehearsal.centres_for = (
                lambda self, counts, M, c=centres: c[None, :, :].copy())
            try:
                joined = copy.deepcopy(est).add_nodes(Xk, yk, groups=gk)
            finally:
                _rehearsal.Rehearsal.centres_for = original
            row[f"centre{tag}{m}"] = nn.score(task, yt, joined.predict(Xt, groups=gt))
        if gated is not None:
            GATED, _NEWCOMER_CENTRES = gated, loss_centres(W, Zk, ys, gk, gated)
            try:
                joined = copy.deepcopy(est).add_nodes(Xk, yk, groups=gk)
            finally:
                GATED, _NEWCOMER_CENTRES = None, None
            row["gated"] = nn.score(task, yt, joined.predict(Xt, groups=gt))
            row["gated_sizes"] = {int(joined._join_rehearsal.draws[a][0]): int(c) for a, c in
                                  joined._join_rehearsal._m28_choice.items()}
        print(json.dumps({key: (round(v, 2) if isinstance(v, float) else v)
                          for key, v in row.items()}), flush=True)
        if out:
            with open(out, "a") as fh:
                fh.write(json.dumps(row) + "\n")
        rows.append(row)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="moons")
    parser.add_argument("--seeds", default="3,4,5")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--out", default=None)
    parser.add_argument("--gated", type=int, default=None,
                        help="M: also the join whose rehearsal chooses between w_0 and the "
                             "M-model loss centre (column 'gated')")
    parser.add_argument("--ms", default="5,10,20", help="the centres' sizes M")
    parser.add_argument("--ranks", default="loss",
                        help="loss (the newcomer ranks every fitted model by its loss) "
                             "and/or margin (the server ranks them by the newcomer's "
                             "uploaded sum y z: margin_centres)")
    args = parser.parse_args()
    global GATED, MS, RANKS
    GATED = args.gated
    MS = tuple(int(m) for m in args.ms.split(","))
    RANKS = tuple(args.ranks.split(","))
    warnings.simplefilter("ignore", ConvergenceWarning)
    rows = []
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            for seed in map(int, args.seeds.split(",")):
                rows += run(name, seed, [int(k) for k in args.ks.split(",")], args.out)
    tags = ["" if r == "loss" else r for r in RANKS]
    cols = (["join"] + (["gated"] if GATED is not None else [])
            + [f"centre{t}{m}" for t in tags for m in MS]
            + [f"near{t}{m}" for t in tags for m in MS] + ["Global", "Local"])
    for name in sorted({r["dataset"] for r in rows}):
        for k in sorted({r["k"] for r in rows if r["dataset"] == name}):
            here = [r for r in rows if r["dataset"] == name and r["k"] == k]
            print(f"{name} k={k} seeds={len(here)}: "
                  + "  ".join(f"{c} {np.mean([r[c] for r in here]):.2f}" for c in cols))


if __name__ == "__main__":
    main()
