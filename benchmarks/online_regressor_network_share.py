"""Why the online kernel regressor misses Global on many small nodes, and
what a validated share of the network function gives (review13's held-out
families, ``tests/test_review13_heldout_defaults.py``, and the regression
families of ``online_experiments.py held-out``).

Commands::

    python benchmarks/online_regressor_network_share.py --seeds 0 1 2
    python benchmarks/online_regressor_network_share.py --coupling-probe --seeds 0 1 2
    python benchmarks/online_regressor_network_share.py --network-cap-probe --seeds 0 1 2
    python benchmarks/online_regressor_network_share.py --no-coordinates --seeds 0 1 2
    python benchmarks/online_regressor_network_share.py --continuation --families many_small alike half_noise d2 d500

For every family and seed it prints the intermediate quantities of a fit at
the defaults: the chosen kernel and coupling (and both couplings' held-out
losses), the step ``eta0_`` against ``step_bound_``, the model orders, the
fraction of a node's test inputs outside the span of its own training
inputs (a linear node function is a combination of its own samples: it
cannot use that part), the node functions' score, the network function's
(``network_dictionary_``, what a node never seen predicts with), and the
score of ``(1 - s) f_i + s fbar`` for s = 0, 1/4, ..., 1 on the test rows
(an oracle, for reading only).  ``validated`` chooses ``s`` honestly: the
defaults are fitted on every node's rows but every 4th (the coupling
selection's split, ``holdout_mask``), every node scores the blends on its
held-out rows with the fit's loss (Huber at the agreed threshold), the
mean over the nodes picks ``s``, and the fit on all rows predicts with it
(its extra bytes: the inner fit's, in ``x fit`` of the final fit's).

Scores: R^2 (mean per node) for review13's families, RMSE (mean per node,
lower is better) for the online_experiments families; Global and Local
the better of Ridge / SVR / LassoCV pooled or one per node.

Measured on 2026-11-29 (online17, seeds 0, 1, 2; means; ``s = 0`` is the
nodes' own functions, the defaults before ``network_share``; the losses
over each node's target variance and the 2-standard-error gate)::

    family                    Global   Local  s = 0    defaults  network_share_
    many_small                0.8534  0.4589  0.5980  0.8546  [0.75, 1.0, 1.0]
    alike                     0.9381  0.9046  0.9169  0.9367  [0.75, 1.0, 1.0]
    half_noise                0.8563  0.8624  0.8636  0.8833  [0.5, 0.5, 0.75]
    d2                        0.6910  0.7687  0.7698  0.7698  [0.0, 0.0, 0.0]
    d500                      0.5361 -0.0128  0.0263  0.3120  [0.75, 1.0, 0.75]
    alike-regression          1.0481  0.6296  0.6087  0.6087  [0.0, 0.0, 0.0]
    nonlinear-regression      0.4618  0.4683  0.3181  0.3172  [0.25, 0.25, 0.25]
    heavy-tailed-regression   0.2883  0.6254  0.2198  0.2029  [0.25, 0.5, 1.0]
    outlier-regression        0.9074  1.1000  0.5077  0.5098  [0.0, 0.0, 0.5]

Before the variance scaling and the gate (plain mean held-out loss) the
shares differed on many_small (1, 1, 1: 0.8518), alike (1, 1,
0.75: 0.9373), heavy-tailed (1, 0.75, 1: 0.1992) and outliers (0, 0.25,
0.5: 0.4999), and on Computer buyers (``skfed compare --dataset
computer-regression``) a share of 0.25 on seed 0 lost 0.083 of mean node
R^2 (-0.176 -> -0.259); now 0 on seeds 0-2.

The share's two rounds: 5-10 % of the fit's bytes, 25-27 % on the 2-D
nonlinear family, 29 % at d = 500.  The
intermediate quantities say why the nodes' own functions miss on
many_small: every node's dictionary is its 8 samples (model order 8), a
fifth of a test input's squared norm lies outside their span (94 % at
d = 500), the coupling selection keeps the weak coupling (the strong one's
held-out loss 0.53-0.58 against 0.34-0.39: its step is 3.6-8 times
smaller), and the network function scores 0.848-0.855.  With the share
chosen before the coupling (both candidates' network functions, their
bytes) was not tried.  ``--coupling-probe``: c = 1 over the ring scores
0.37-0.40 after 30 passes and 0.52-0.54 after 300, over a random regular
graph of degree 6 0.14-0.16 and 0.23-0.27.  ``--network-cap-probe``
(d = 500): the uncompressed mean of the nodes' functions 0.06-0.07, the
network function re-solved at a cap of 100 points 0.27-0.34, 200 points
0.36-0.40 (1.8-1.9 times its bytes), 400 points: re-solve rejected on
seeds 0 and 2 (0.06-0.07), kept on seed 1 (280 points, 0.32).

Measured again on 2026-11-29 (online18, seeds 0, 1, 2; means) after a
linear or affine kernel's network function is held exactly and solved in
coordinates (``skfed/online/_coordinates.py``: the mean as ``w' x + b``,
no KOMP cap; the solve over every affine function, the regressor keeping
the evaluated weights of least held-back loss); ``--no-coordinates``
gives the table above (to the digit) with the old bytes::

    family                    Global   Local  s = 0    defaults  MB      network_share_
    many_small                0.8534  0.4589  0.5980  0.8554    3.06  [0.75, 1.0, 1.0]
    alike                     0.9381  0.9046  0.9169  0.9367    0.72  [0.75, 1.0, 1.0]
    half_noise                0.8563  0.8624  0.8636  0.8832    1.49  [0.5, 0.5, 0.75]
    d2                        0.6910  0.7687  0.7698  0.7698    0.22  [0.0, 0.0, 0.0]
    d500                      0.5361 -0.0128  0.0263  0.5072   32.72  [0.75, 0.75, 1.0]
    alike-regression          1.0481  0.6296  0.6087  0.6087    6.76  [0.0, 0.0, 0.0]
    nonlinear-regression      0.4618  0.4683  0.3181  0.3172   14.72  [0.25, 0.25, 0.25]
    heavy-tailed-regression   0.2883  0.6254  0.2198  0.2029    1.52  [0.25, 0.5, 1.0]
    outlier-regression        0.9074  1.1000  0.5077  0.5098    2.69  [0.0, 0.0, 0.5]

(MB before: 3.30, 0.76, 1.65, 0.21, 37.31, 7.14, 14.72, 1.57, 2.84.)
Why d = 500 missed: the kernel selection already picks ``affine`` or
``linear`` there (gamma is not the limit); a node's function is confined
to its 30 samples (94 % of a test input outside their span) and the
network function, KOMP-capped at 100 of the 600 samples, could not
represent a pooled linear model (``--network-cap-probe``).  Exact, its
solve at the fit's alpha (1e-4) converged to weights whose held-back loss
was 72.4 against the mean's 38.2 (seed 0, ``network_share=1``: the gate
kept the mean, 0.07);
the early stop on the held-back loss gives 21.6 and a network function of
0.529 / 0.450 / 0.491 on the test rows (d = 500 defaults 0.543 / 0.487 /
0.491 against the best Global 0.569 / 0.511 / 0.528: still 0.029 short
on average).  Pooled ``Ridge`` scores 0.616 / 0.581 at alpha 100 (seeds
0 / 1) and -0.108 / 0.079 at 0.01: the missing part is the solve's
regularization.  Tried, not adopted (``--continuation``): a path (alpha from 1e4
times the fit's down to it, 10 L-BFGS iterations each, the same held-back
choice) gives d = 500 0.521 (+0.014) and equal scores on the four other
review13 families, but 29-37 % more bytes there (every stage restarts
L-BFGS).  The classifier's scores on review13's five families are
unchanged (its nodes predict with their own functions), its bytes
0.3-7 % lower; its joins: ``new_nodes.py --families online --datasets related
--seeds 0,1,2 --ks 5,10,20`` (``k = 5 / 10 / 20``, before -> after)
alike 90.02 / 89.24 / 89.89 -> 89.98 / 89.17 / 89.75, clustered 70.71 /
74.71 / 78.36 -> 70.89 / 74.71 / 78.28, narrow 90.93 / 91.29 / 90.67 ->
90.89 / 91.21 / 90.72, small 88.89 / 89.12 / 89.61 -> 88.98 / 89.22 /
89.77, wide 84.78 / 87.86 / 88.28 -> 85.84 / 87.95 / 88.64, the joins'
bytes 5-45 % lower (the network function is 1-2 points, not up to 100).
On ``skfed compare --dataset sparse-regression --methods online-kernel``
(20 nodes, d = 200, seed 0) 0.9053 -> 0.9916 mean node R^2 (pooled
``LassoCV`` 0.9922, ``Ridge`` 0.9917), 35.7 -> 28.7 MB; Computer buyers
regression unchanged (-0.1760, 6,983,446 B).
Bit-identical where no linear or affine kernel is chosen: ``skfed
compare``'s HAR-sitting row (.9903, 74,783,799 B) and School regression
row (.1320, 50,762,744 B), the HAR joins of seed 0 (``k = 5, 10``) and
Landmine's joins, refits and bytes (seeds 0-1).
"""

import argparse
import copy
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from online_experiments import held_out_baselines, held_out_family  # noqa: E402
from test_review13_heldout_defaults import (best_baselines, make_family,  # noqa: E402
                                            per_node_score)

from skfed import DecentralizedKernelSGDRegressor  # noqa: E402

REVIEW13 = ("many_small", "alike", "half_noise", "d2", "d500")
EXPERIMENTS = ("alike-regression", "nonlinear-regression", "heavy-tailed-regression",
               "outlier-regression")
SHARES = np.linspace(0.0, 1.0, 5)


def load(family, seed):
    """``(Xtr, ytr, gtr, Xte, yte, gte, score, glob, loc, higher_is_better)``."""
    if family in REVIEW13:
        Xtr, ytr, gtr, Xte, yte, gte = make_family(family, "reg", seed)
        glob, loc = best_baselines("reg", Xtr, ytr, gtr, Xte, yte, gte)
        return (Xtr, ytr, gtr, Xte, yte, gte,
                lambda p: per_node_score(p, yte, gte, "reg"), glob, loc, True)
    _, Xtr, Xte, ytr, yte, gtr, gte = held_out_family(family, seed)
    base = held_out_baselines("regression", Xtr, Xte, ytr, yte, gtr, gte)
    glob = min(v[0] for k, v in base.items() if k.startswith("global"))
    loc = min(v[0] for k, v in base.items() if k.startswith("local"))

    def rmse(p):
        return float(np.mean([np.sqrt(np.mean((p[gte == k] - yte[gte == k]) ** 2))
                              for k in np.unique(gte)]))
    return Xtr, ytr, gtr, Xte, yte, gte, rmse, glob, loc, False


def shared(est, share):
    """``est`` predicting with another ``network_share_``."""
    est = copy.copy(est)
    est.network_share_ = share
    return est


def outside_span(Xtr, gtr, Xte, gte):
    """Mean over nodes of the share of ||x||^2 of a node's test inputs
    outside the span of its own training inputs."""
    out = []
    for k in np.unique(gtr):
        Q, _ = np.linalg.qr(Xtr[gtr == k].T)
        X = Xte[gte == k]
        out.append(1 - np.sum((X @ Q) ** 2) / np.sum(X ** 2))
    return float(np.mean(out))


def run(family, seed, params):
    Xtr, ytr, gtr, Xte, yte, gte, score, glob, loc, higher = load(family, seed)
    est = DecentralizedKernelSGDRegressor(random_state=0, **params).fit(Xtr, ytr, groups=gtr)
    blends = [score(shared(est, s).predict(Xte, groups=gte)) for s in SHARES]
    chosen = score(est.predict(Xte, groups=gte))
    sel, share = est.consensus_selection_, est.network_share_selection_
    rounds = est.bytes_per_round_
    # (the rounds: the scale's, the candidates', the selection's, then the
    # chosen candidate's network function and the shares' sum)
    first = len(sel["candidates"]) + 2
    share_bytes = int(rounds[first:first + 2].sum()) if share is not None else 0
    print(f"{family} seed {seed}: kernel {est.kernel_}, c {est.consensus_penalty_} "
          f"(held-out losses weak/strong {np.round(sel['mean_validation_error'], 3)}), "
          f"eta0_ {est.eta0_:.3g} of bound {est.step_bound_:.3g}, "
          f"orders median {int(np.median(est.model_order_))} max {est.model_order_.max()}, "
          f"test inputs outside own span {outside_span(Xtr, gtr, Xte, gte):.2f}")
    print(f"    Global {glob:.4f} Local {loc:.4f} | node functions {blends[0]:.4f} "
          f"network function {blends[-1]:.4f} | test score of s = 0 .. 1 "
          + " ".join(f"{v:.4f}" for v in blends))
    best = max(glob, loc) if higher else min(glob, loc)
    ok = chosen >= best if higher else chosen <= best
    print(f"    network_share_ {est.network_share_:.2f} (held-out losses "
          f"{None if share is None else np.round(share['mean_validation_error'], 4)}): "
          f"{chosen:.4f} {'>=' if ok else 'misses'} best baseline {best:.4f}; "
          f"bytes {est.n_bytes_sent_}, of which the share's {share_bytes} "
          f"({100 * share_bytes / est.n_bytes_sent_:.1f} %)", flush=True)
    return family, seed, glob, loc, blends[0], chosen, est.network_share_, est.n_bytes_sent_


def coupling_probe(seed):
    """The nodes' own functions (``network_share=0``) on the 100 x 8 family
    with the strong coupling, over the ring and a random regular graph, at
    30 and 300 passes: more coupling or more passes do not repair them."""
    from skfed.network import SimulatedNetwork

    Xtr, ytr, gtr, Xte, yte, gte, score, *_ = load("many_small", seed)
    for topology in (None, "random_regular"):
        for epochs in (30, 300):
            network = (None if topology is None else
                       SimulatedNetwork(topology, topology_params={"degree": 6}))
            est = DecentralizedKernelSGDRegressor(
                kernel="linear", consensus_penalty=1.0, network=network, max_epochs=epochs,
                network_share=0.0, random_state=0).fit(Xtr, ytr, groups=gtr)
            print(f"many_small seed {seed}, c = 1, {topology or 'ring'}, {epochs} passes: "
                  f"eta0_ {est.eta0_:.3g}, node functions {score(est.predict(Xte, groups=gte)):.4f}",
                  flush=True)


def network_cap_probe(seed, sizes=(100, 200, 400)):
    """d = 500: the uncompressed mean of the nodes' functions and the network
    function rebuilt (with its re-solve) at several size caps, scored on the
    test rows; its bytes."""
    Xtr, ytr, gtr, Xte, yte, gte, score, *_ = load("d500", seed)
    est = DecentralizedKernelSGDRegressor(random_state=0).fit(Xtr, ytr, groups=gtr)
    mean = np.mean([est._node_function(i, Xte) for i in range(len(est.nodes_))], axis=0)
    print(f"d500 seed {seed}: kernel {est.kernel_}, uncompressed mean "
          f"{score(est._decode(mean[:, 0])):.4f}, fit bytes {est.n_bytes_sent_}")
    codes = np.unique(gtr, return_inverse=True)[1]
    for size in sizes:
        cap = copy.deepcopy(est)
        cap._max_size = size
        log = cap._build_network_function(Xtr, cap._encode_targets(ytr), codes,
                                          np.ones(len(ytr)), solve=True)
        values = cap._decode(cap._network_values(Xte)[:, 0])
        print(f"    cap {size}: {len(cap.network_dictionary_[0])} points, re-solve kept "
              f"{bool(cap._network_solved[0])}, network function {score(values):.4f}, "
              f"{log.total_bytes} bytes", flush=True)


def continuation(decades=4.0, stages=5):
    """Replace the network solve by a path: alpha from ``10^decades`` times
    the fit's down to it in ``stages`` geometric steps, each warm-started
    L-BFGS run given an equal part of the iterations (the regressor's
    held-back choice then picks among every stage's evaluations)."""
    import skfed.online._network_function as nf

    plain = nf.solve_weights

    def path(Kzz, A0, alpha, evaluate, max_iter=nf.SOLVE_ITERATIONS):
        A, total = A0, 0
        for a in alpha * np.logspace(decades, 0.0, stages):
            A, n = plain(Kzz, A, a, evaluate, max_iter=max(1, max_iter // stages))
            total += n
        return A, total

    nf.solve_weights = path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--families", nargs="+", default=list(REVIEW13 + EXPERIMENTS))
    parser.add_argument("--params", default="{}", help="JSON of estimator parameters")
    parser.add_argument("--coupling-probe", action="store_true",
                        help="only the strong coupling's node functions on 100 x 8 nodes")
    parser.add_argument("--network-cap-probe", action="store_true",
                        help="only the network function's size cap at d = 500")
    parser.add_argument("--continuation", action="store_true",
                        help="the network solve as a path from 1e4 alpha down to alpha "
                             "(not adopted)")
    parser.add_argument("--no-coordinates", action="store_true",
                        help="a linear or affine kernel's network function compressed by "
                             "KOMP as any kernel's (before skfed/online/_coordinates.py)")
    args = parser.parse_args(argv)
    if args.no_coordinates:
        import skfed.online._coordinates as coordinates
        coordinates.COORDINATE_LIMIT = 0
    if args.continuation:
        continuation()
    if args.coupling_probe or args.network_cap_probe:
        for seed in args.seeds:
            (coupling_probe if args.coupling_probe else network_cap_probe)(seed)
        return
    import json
    params = json.loads(args.params)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for family in args.families:
            for seed in args.seeds:
                rows.append(run(family, seed, params))
    print("\nfamily                    Global   Local  s = 0    defaults  MB      network_share_")
    for family in args.families:
        part = np.array([r[2:6] for r in rows if r[0] == family])
        shares = [r[6] for r in rows if r[0] == family]
        mb = np.mean([r[7] for r in rows if r[0] == family]) / 1e6
        print(f"{family:24s} " + " ".join(f"{v:7.4f}" for v in part.mean(axis=0))
              + f"  {mb:6.2f}  {shares}")


if __name__ == "__main__":
    main()
