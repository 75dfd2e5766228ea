"""review41: MOCHA's rehearsal reports rounded to 8 bits
(skfed/multitask/_rehearsal_bytes.py) under a dropping network.

Drops delay messages, they lose none: a join on a network that drops 30 %
or 60 % of the nodes each round sends the same messages and bytes, and
solves the same models, as without drops, the 8-bit reports included
(the budget is read from the fit's bytes, which the join's network does
not change).  8 sites of ``benchmarks/user37_small_federation_join.py``,
7 fitted and one joining with 10 rows, seeds 0-2.
"""

import copy
import warnings

import numpy as np
import pytest

from skfed import FederatedMultiTaskRegressor
from skfed.multitask import _rehearsal
from skfed.network import SimulatedNetwork

from ._helpers.bench import bench_function


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rounded_reports_under_drops(seed, monkeypatch):
    X, y, g = bench_function("user37_small_federation_join", "regression_sites")(
        seed, n_sites=8)
    new = g == 7
    rows = np.flatnonzero(new)[:10]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedMultiTaskRegressor(random_state=0).fit(X[~new], y[~new], groups=g[~new])
    rounded = []
    decode = _rehearsal.quantized_reports
    monkeypatch.setattr(_rehearsal, "quantized_reports",
                        lambda *args: rounded.append(args[1]) or decode(*args))
    joins = []
    for drop in (0.0, 0.3, 0.6):
        joined = copy.deepcopy(est)
        joined.set_params(network=SimulatedNetwork(drop_rate=drop, random_state=1))
        rounded.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            joined.add_nodes(X[rows], y[rows], groups=g[rows])
        assert rounded == [8]  # (the size's reports travel in 8 bits)
        joins.append(joined)
    log = joins[0].join_communication_
    for joined in joins[1:]:
        assert joined.join_communication_.total_bytes == log.total_bytes > 0
        assert joined.join_communication_.total_messages == log.total_messages
        np.testing.assert_array_equal(joined.join_communication_.bytes_sent, log.bytes_sent)
        np.testing.assert_array_equal(joined.coef_, joins[0].coef_)
