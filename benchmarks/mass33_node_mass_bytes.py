"""What counting the node masses adds to Dada / Perso-lin fits and joins (mass33).

Every confidence ``c_k = m_k / max_l m_l`` needs the federation's largest
mass; since mass33 the fit counts its exchange (``skfed/_node_mass.py``: up
and down the setup's aggregation tree) and a newcomer receives the fit's
mass summary with its first answer.  The models do not change (bit-identical
coef / graph on 27 fits and joins, tests/test_mass33_node_mass.py); this
script reports the share of the bytes: the fit's exchange over the fit's
bytes, the newcomers' summaries over the join's bytes (defaults, 20 % of the
nodes join with k samples each, benchmarks/new_nodes.py's split).

Command::

    OPENBLAS_NUM_THREADS=1 python benchmarks/mass33_node_mass_bytes.py

Result (seed 0, k = 10, 2026-11-29; rerun after rogue34, whose cap on the
largest mass needs the median, so Dada's tree now sends subtree masses up
as Perso-lin's did: Dada's exchange 1,408 / 5,056 / 12,736 B before)::

    data           method       K    fit kB  mass B   share  join kB summ. B   share
    landmine       Decentral   23    2519.1    1584  0.063%     35.6      96  0.270%
    landmine       Personali   23    2774.8    1936  0.070%     20.4     192  0.939%
    moons          Decentral   80   19913.0    6672  0.034%    722.4     320  0.044%
    moons          Personali   80   12817.9    7936  0.062%    444.9     640  0.144%
    related-small  Decentral  200  108482.8   18776  0.017%   2726.4     800  0.029%
    related-small  Personali  200   39743.5   21960  0.055%   1681.5    1600  0.095%
"""

import sys
import warnings
from pathlib import Path

import numpy as np


sys.path.insert(0, str(Path(__file__).resolve().parent))
from new_nodes import load, new_node_rows, split  # noqa: E402

from skfed import DecentralizedBoostingClassifier, PersonalizedLinearClassifier, SimulatedNetwork
from skfed._node_mass import agree_on_masses, mass_kind, summary_bytes


def main(datasets=("landmine", "moons", "related-small"), seed=0, k=10):
    warnings.simplefilter("ignore")
    print(f"{'data':14s} {'method':9s} {'K':>4s} {'fit kB':>9s} {'mass B':>7s} {'share':>7s}"
          f" {'join kB':>8s} {'summ. B':>7s} {'share':>7s}")
    for name in datasets:
        loaded = load(name, seed)
        X, y, groups = loaded[:3]
        extra = loaded[4] if len(loaded) > 4 else None
        fit_rows, new, order = split(X, y, groups, seed, extra)
        train, _ = new_node_rows(order, k)
        for cls in (DecentralizedBoostingClassifier, PersonalizedLinearClassifier):
            est = cls(random_state=seed, join_neighbours="graph").fit(
                X[fit_rows], y[fit_rows], groups=groups[fit_rows])
            K = len(est.nodes_)
            # (massring36: the exchange reads the masses; unit weights: row counts)
            rows = np.unique(groups[fit_rows], return_counts=True)[1].astype(np.float64)
            mass = agree_on_masses(SimulatedNetwork().start(K), mass_kind(est), rows)
            fit_bytes = est.n_bytes_sent_
            est.add_nodes(X[train], y[train], groups=groups[train])
            join_bytes = est.join_communication_.total_bytes
            summ = len(new) * summary_bytes(mass_kind(est))
            print(f"{name:14s} {cls.__name__[:9]:9s} {K:4d} {fit_bytes / 1e3:9.1f} {mass:7d}"
                  f" {100 * mass / fit_bytes:6.3f}% {join_bytes / 1e3:8.1f} {summ:7d}"
                  f" {100 * summ / join_bytes:6.3f}%", flush=True)


if __name__ == "__main__":
    main()
