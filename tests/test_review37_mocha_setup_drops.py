"""review37: MOCHA's fit setup under drops (count_setup / setup_waits read
as a two-step DropWait, drops36) against setup34's closed form on draws its
tests do not make: other network seeds and drop rates.  setup34's checks
(tests/test_setup34_fit_setup_drops.py: the setup rounds' bytes from the
recorded draws; the W-steps equal to a fit given ``gamma`` on the later
draws, plus each setup down in its node's first round up or with the final
delivery) run unchanged on these draws.
"""

import numpy as np
import pytest

from . import test_setup34_fit_setup_drops as setup34

DRAWS = [(0.3, 2), (0.3, 5), (0.5, 3), (0.5, 8)]


def _on_draws(monkeypatch, drop, net_seed):
    fit = setup34._fit
    monkeypatch.setattr(setup34, "_fit", lambda name, _drop, **params: fit(
        name, drop, **{"net_seed": net_seed, **params}))


@pytest.mark.parametrize("drop,net_seed", DRAWS)
@pytest.mark.parametrize("name", ["rff-learn", "exact-learn"])
def test_w_steps_and_setup_downs(monkeypatch, name, drop, net_seed):
    _on_draws(monkeypatch, drop, net_seed)
    rows = setup34._fit(name, None)[-1]
    if setup34._first_up(rows, 0).max() <= 0:
        pytest.skip("no node dropped in round 0 on these draws")
    setup34.test_w_steps_are_those_of_a_fit_without_setup_on_the_later_draws(name)


@pytest.mark.parametrize("drop,net_seed", DRAWS)
@pytest.mark.parametrize("name", ["nystroem-learn", "kmeans-learn", "warm-linear-f64"])
def test_setup_rounds(monkeypatch, name, drop, net_seed):
    _on_draws(monkeypatch, drop, net_seed)
    rows = setup34._fit(name, None)[-1]
    assert np.all(setup34._first_up(rows, 0) >= 0)
    setup34.test_setup_rounds_follow_the_drops(name)
