"""Dada's ``beta="auto"`` (the l1 radius 3 or 10 chosen on held-back rows) against ``beta=3``.

Usage::

    python benchmarks/dada_radius_auto.py joins --datasets har,moons,landmine --seeds 0,1,2 --ks 5,10,20
    python benchmarks/dada_radius_auto.py heldout FAMILY SEED [PARAMS]
    python benchmarks/dada_radius_auto.py probe FAMILY SEED
    python benchmarks/dada_radius_auto.py fitcost DATA SEEDS

``joins ARGS``: ``new_nodes.py --families dada ARGS`` with ``beta="auto"``
(the fit, its joins and the refit all choose; join / Global / Local /
refit, bytes and CPU ratios as ``new_nodes.py``).

``heldout FAMILY SEED [PARAMS]``: the families of
``dada_beta_radius.py heldout`` (``tests/test_review13_heldout_defaults.py``'s
``many_small``, ``alike``, ``half_noise``, ``d2``, ``d500``; ``n100d200``,
``n200d200``, ``n300d300``; ``har-walking``, ``school``, ``computer``):
Dada with ``beta=3`` and with ``beta="auto"`` (``PARAMS``: other
parameters, ``name=value`` comma-separated, for both), mean per-node test
accuracy, the radius chosen, ``z`` and CPU seconds of both fits.

``fitcost DATA SEEDS``: on ``new_nodes.py``'s fitted nodes of ``DATA``,
a fit at ``beta=3`` and one at ``"auto"``: CPU, bytes, their ratios, the
radius chosen and ``z``.

``probe FAMILY SEED``: ``dada_probe_families.py``'s families
(``alike_tiny``, ``unbalanced``, ``imbalance``, ``three_class``,
``axis_rules``): its score of both fits and their CPU.

Measured (dada17, 2026-11-29, main 8ba3212 plus this branch, one BLAS
thread, load 6-21 on 2 cores; CPU is ``time.process_time``).

``joins --datasets har --seeds 0,1,2 --ks 5,10,20`` (``beta="auto"``
chose 10 on every HAR seed, ``z`` = 8.0 / 5.2 / 6.8)::

    family  data        k   join global  local  refit  bytes j/r  cpu j/r  goal
    dada    har         5   95.8   97.8   78.0   93.0     0.0033   0.0029  NO
    dada    har        10   96.4   97.9   82.8   89.2     0.0034   0.0034  NO
    dada    har        20   96.3   97.9   88.4   93.0     0.0035   0.0039  NO

against ``beta=3`` 91.5 / 93.0 / 92.5 (refit 90.8 / 87.4 / 91.1): 3.4-4.3
points closer to Global, still 1.5-2.0 under it.  ``joins --datasets
moons,landmine --seeds 0,1,2 --ks 5,10,20``: every seed chose 3, so the
rows are ``beta=3``'s to the digit (moons 72.5 / 77.0 / 82.1, refit 71.9 /
78.0 / 82.8; Landmine 93.5 / 93.6 / 93.8, refit 93.7 / 93.7 / 93.8).

Choice and cost of a fit (the radius chosen, ``z``; CPU and bytes of the
``auto`` fit over a ``beta=3`` fit): ``heldout`` and ``probe`` above, and
``fitcost DATA SEEDS`` (``new_nodes.py``'s fitted nodes of ``har``,
``moons``, ``landmine``, ``related-*``, e.g. ``fitcost har 0,1,2``)::

    data (seeds)                    chosen          z range          CPU x     bytes x
    HAR sitting (0-2)               10 10 10        +5.2 .. +8.0     2.1-2.7   3.0
    rotated moons (0-5)             3 x6            -0.9 .. +0.9     2.6-3.2   3.0
    Landmine (0-2)                  3 x3            -1.1 .. +0.2     2.4-2.5   3.0
    related-alike/clustered (0-2)   3 x6            -0.2 .. +0.9     2.5-2.8   3.0
    related-small (0-2)             3 x3            -2.3 .. -0.6     2.5-2.9   3.0
    related-wide (0-2)              3 x3            -1.4 .. -0.1     2.5-2.7   3.0
    related-narrow (0-2)            3 10 3          +0.5 .. +2.1     2.7-2.8   3.0
    n100d200 no vote (0-4)          3 x5            -1.5 .. +0.8     2.4-2.6   3.0
    n300d300 no vote (0-2)          3 x3            -2.4 .. -0.3     2.2-2.4   3.0
    many_small/alike/half_noise/d2 (0-1)  3 x8      -1.6 .. +0.3     2.6-2.8   3.0
    d500 (0-1)                      3 x2            -1.2 .. +0.4     2.6-2.7   3.0
    HAR walking (0-2)               3 x3            nan (alike)      1.9-2.0   3.1
    School (0-2)                    3 x3            -1.8 .. +0.0     2.5-2.6   3.0
    Computer buyers (0-2)           3 x3            -1.2 .. +1.1     2.2-3.0   3.0
    probe alike_tiny/unbalanced/imbalance/axis_rules (0-1)  3 x8     2.5-2.8
    probe three_class (0-1)         10 3            (0.6725 -> 0.7150 on seed 0)

``joins --datasets related-narrow --seeds 1 --ks 5,10,20`` (the one
``related-*`` run that chose 10, ``z`` +2.11): 82.4 / 83.4 / 84.4 against
``beta=3``'s 81.9 / 82.6 / 82.2 (``new_nodes.py --families dada
--datasets related-narrow --seeds 1``; refit 81.5 / 81.6 / 81.3 both).
No run lost accuracy.  The threshold is 2 standard errors, not the
one-standard-error rule: ``dada_beta_radius.py validate`` saw
``n100d200`` seed 0 at z = +1.04 where the radius 10 loses 4.4 points on
test.

Where 3 is chosen the final model is ``beta=3``'s bit for bit (same
arrays, same ``random_state``), so those runs lose nothing but CPU and
bytes.
"""

import os
import sys
import time
import warnings
from pathlib import Path


HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from skfed.boosting import DecentralizedBoostingClassifier  # noqa: E402


def joins(argv):
    DecentralizedBoostingClassifier.__init__.__kwdefaults__["beta"] = "auto"
    import new_nodes

    sys.argv = ["new_nodes.py", "--families", "dada", *argv]
    new_nodes.main()


def _timed_fit(params, X, y, g):
    start = time.process_time()
    est = DecentralizedBoostingClassifier(**params).fit(X, y, groups=g)
    return est, time.process_time() - start


def heldout(name, seed, params):
    from dada_beta_radius import load_family, node_mean_accuracy, parse_params

    X, y, g, X_test, y_test, g_test = load_family(name, seed)
    params = dict(parse_params(params), random_state=seed)
    fixed, cpu_fixed = _timed_fit(params, X, y, g)
    auto, cpu_auto = _timed_fit(dict(params, beta="auto"), X, y, g)
    a, b = (node_mean_accuracy(e, X_test, y_test, g_test) for e in (fixed, auto))
    sel = auto.radius_selection_
    print(f"{name} {seed} beta3 {a:.4f} auto {b:.4f} diff {b - a:+.4f} chosen {auto.beta_:g} "
          f"z {sel['z']:+.2f} nodes {sel['n_nodes']} cpu {cpu_fixed:.2f} {cpu_auto:.2f} "
          f"ratio {cpu_auto / cpu_fixed:.2f} bytes {fixed.n_bytes_sent_} {auto.n_bytes_sent_}",
          flush=True)


def fitcost(name, seeds):
    import new_nodes

    for seed in (int(s) for s in seeds.split(",")):
        data = new_nodes.load(name, seed)
        X, y, g = data[:3]
        rows = new_nodes.split(X, y, g, seed, data[4] if len(data) > 4 else None)[0]
        (fixed, cpu_fixed), (auto, cpu_auto) = (
            _timed_fit(dict(beta=beta, random_state=seed), X[rows], y[rows], g[rows])
            for beta in (3.0, "auto"))
        print(f"{name} {seed} cpu {cpu_fixed:.2f} {cpu_auto:.2f} ratio "
              f"{cpu_auto / cpu_fixed:.2f} bytes {fixed.n_bytes_sent_} {auto.n_bytes_sent_} "
              f"{auto.n_bytes_sent_ / fixed.n_bytes_sent_:.2f} chosen {auto.beta_:g} "
              f"z {auto.radius_selection_['z']:+.2f}", flush=True)


def probe(name, seed):
    import dada_probe_families as probe_families

    probe_families.VARIANTS["auto"] = dict(beta="auto")
    r = probe_families.run(name, seed, ["defaults", "auto"])
    print(f"{name} {seed} global {r['global']:.4f} local {r['local']:.4f} beta3 "
          f"{r['defaults']:.4f} auto {r['auto']:.4f} diff {r['auto'] - r['defaults']:+.4f} "
          f"cpu {r['defaults_cpu']:.2f} {r['auto_cpu']:.2f} "
          f"ratio {r['auto_cpu'] / r['defaults_cpu']:.2f}", flush=True)


def main():
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    warnings.simplefilter("ignore")
    mode, rest = sys.argv[1], sys.argv[2:]
    if mode == "joins":
        joins(rest)
    elif mode == "heldout":
        heldout(rest[0], int(rest[1]), rest[2] if len(rest) > 2 else "")
    elif mode == "probe":
        probe(rest[0], int(rest[1]))
    elif mode == "fitcost":
        fitcost(rest[0], rest[1])
    else:
        raise SystemExit(f"unknown mode {mode!r}: joins, heldout, probe or fitcost")


if __name__ == "__main__":
    main()
