"""Dada's ``beta="auto"`` (the l1 radius 3 or 10 chosen on held-back rows) against ``beta=3``.

Usage::

    python benchmarks/dada_radius_auto.py joins --datasets har,moons,landmine --seeds 0,1,2 --ks 5,10,20
    python benchmarks/dada_radius_auto.py heldout FAMILY SEED [PARAMS]
    python benchmarks/dada_radius_auto.py probe FAMILY SEED

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

``probe FAMILY SEED``: ``dada_probe_families.py``'s families
(``alike_tiny``, ``unbalanced``, ``imbalance``, ``three_class``,
``axis_rules``): its score of both fits and their CPU.

Measured: see the end of this docstring.
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
    else:
        raise SystemExit(f"unknown mode {mode!r}: joins, heldout or probe")


if __name__ == "__main__":
    main()
