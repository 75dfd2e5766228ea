"""review15: ``network_share`` set with ``set_params`` between ``partial_fit``
calls was silently ignored (``network_share_`` kept the first call's)."""

import numpy as np
import pytest

from skfed.online import DecentralizedKernelSGDRegressor


def _data(n_nodes=10, m=8, d=5, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_nodes), m)
    X = rng.normal(size=(n_nodes * m, d))
    y = X @ rng.normal(size=d) + 0.3 * rng.normal(size=len(groups))
    return X, y, groups


@pytest.mark.parametrize("first", [0.5, "auto"])
def test_fixed_share_set_between_partial_fit_calls_is_used(first):
    X, y, groups = _data()
    reg = DecentralizedKernelSGDRegressor(network_share=first, random_state=0, max_epochs=2)
    reg.fit(X, y, groups=groups)
    reg.set_params(network_share=0.25)
    reg.partial_fit(X, y, groups=groups)
    assert reg.network_share_ == 0.25
    assert reg.network_share_selection_ is None
    # the prediction is the blend at 0.25 of the node's own and the network
    # function, each evaluated on its own (in the standardized targets'
    # units: target_offset_ + target_scale_ * blend)
    rows = np.flatnonzero(groups == 3)
    own = reg._node_function(3, X[rows])
    net = reg._network_values(X[rows], component=int(reg.network_component_[3]))
    np.testing.assert_allclose(reg.predict(X[rows], groups=groups[rows]),
                               (reg.target_offset_ + reg.target_scale_ * (0.75 * own + 0.25 * net)).ravel(),
                               rtol=1e-10, atol=1e-12)
    assert not np.allclose(own, net)


def test_auto_keeps_the_share_of_the_first_call():
    X, y, groups = _data()
    reg = DecentralizedKernelSGDRegressor(network_share=0.75, random_state=0, max_epochs=2)
    reg.fit(X, y, groups=groups)
    reg.set_params(network_share="auto")
    reg.partial_fit(X, y, groups=groups)
    assert reg.network_share_ == 0.75
