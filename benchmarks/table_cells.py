"""The join table's cells, one fit per family, data set and seed.

:func:`table_cells` is the loop the guard benchmarks share
(``unlike36_guard_firing.py``, ``unlike38_regressor_guard.py``,
``guardw37_table_pvalues.py``): ``benchmarks/new_nodes.py``'s data sets,
split and estimators, each family fitted once per data set and seed, and
its newcomers' first ``k`` rows for every ``k``, under one BLAS thread.
"""

import os
import sys
from collections import namedtuple

from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes

Cell = namedtuple("Cell", "family name seed k base X y groups task train test")


def table_cells(args):
    """Yield a :class:`Cell` for every family, data set, seed and ``k`` of
    ``args`` (comma-separated ``families``, ``datasets``, ``seeds``,
    ``ks``): ``base`` is the family's fit on the data set's fitted rows
    (shared by its ``k``: join a copy), ``train`` and ``test`` the
    newcomers' rows (``new_nodes.new_node_rows``)."""
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            for seed in (int(s) for s in args.seeds.split(",")):
                data = new_nodes.load(name, seed)
                X, y, groups, task = data[:4]
                extra = data[4] if len(data) > 4 else None
                fit_rows, _, order = new_nodes.split(X, y, groups, seed, extra)
                for family in args.families.split(","):
                    base = new_nodes.make_estimator(family, task, seed)
                    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
                    for k in (int(s) for s in args.ks.split(",")):
                        train, test = new_nodes.new_node_rows(order, k)
                        yield Cell(family, name, seed, k, base, X, y, groups, task, train,
                                   test)


def add_row(total, tested, flagged, same):
    """Add a guard benchmark's row (newcomers tested, flagged, and whether
    the join with the guard equals the join without it) to ``total``."""
    total["tested"] += tested
    total["flagged"] += flagged
    total["rows"] += 1
    total["identical"] += int(same)
