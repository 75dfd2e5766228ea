"""review36: the online empty-dictionary warning's node scan (skfed/online/_empty.py).

``_silent_nodes`` (silent35) looked for nodes with an empty dictionary
whose samples hold two targets by scanning every sample of the call once
per empty node (``codes == t``): quadratic in the nodes, and the case it
warns about is the one where every dictionary is empty.  Measured at
bcda3b7 on the function alone, 4 samples per node, every dictionary
empty: 1,000 nodes 0.04 s, 4,000 nodes 0.33 s, 16,000 nodes 5.7 s; in a
fit of 8,000 such nodes (``eta0=1e-9``) 1.4 s of the fit's 21 s went to
the warning's scan.  Fixed with one sort (16,000 nodes: 0.03 s).  The
tests compare the nodes it names with a plain per-node NumPy reference and
count the per-node scans (one comparison of the whole ``codes`` per empty
node before: fails before the fix).
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skfed import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor
from skfed.online._empty import _silent_nodes


def _reference(sizes, codes, y, n_nodes):
    """The definition, node by node: empty dictionary, two distinct targets."""
    y = np.asarray(y).reshape(len(codes), -1)
    out = []
    for t in range(n_nodes):
        rows = y[codes == t]
        if sizes[t] == 0 and len(np.unique(rows, axis=0)) > 1:
            out.append(t)
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_outputs", [None, 1, 3])
def test_silent_nodes_match_the_per_node_reference(seed, n_outputs):
    rng = np.random.RandomState(seed)
    n_nodes = 30
    codes = rng.randint(0, n_nodes - 3, size=200)  # the last 3 nodes hold no sample
    shape = (200,) if n_outputs is None else (200, n_outputs)
    y = rng.randint(0, 2, size=shape) * (rng.rand(*shape) < 0.2)  # many constant nodes
    sizes = rng.randint(0, 3, size=n_nodes) * (rng.rand(n_nodes) < 0.6)
    got = _silent_nodes(sizes, codes, y, n_nodes)
    expected = _reference(sizes, codes, y, n_nodes)
    assert got.dtype == np.intp
    assert got.tolist() == expected
    assert 0 < len(expected) < n_nodes  # both kinds of node occur


class _CountingCodes(np.ndarray):
    """``codes`` that count how often they are compared with one node index."""
    scans = 0

    def __eq__(self, other):
        if np.ndim(other) == 0:
            type(self).scans += 1
        return np.asarray(self).__eq__(other)

    __hash__ = None


def test_silent_nodes_scan_the_samples_a_fixed_number_of_times():
    n_nodes = 500
    codes = np.repeat(np.arange(n_nodes), 2).view(_CountingCodes)
    y = np.tile([0, 1], n_nodes)
    _CountingCodes.scans = 0
    got = _silent_nodes(np.zeros(n_nodes, int), codes, y, n_nodes)
    assert got.tolist() == list(range(n_nodes))
    assert _CountingCodes.scans == 0  # was 500: one scan of every sample per empty node


@pytest.mark.parametrize("Est", [DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor])
def test_fit_still_names_the_silent_nodes(Est):
    # nodes 0-2 vary, node 3's targets are constant; a vanishing step: every
    # dictionary empty, the warning names the three nodes whose targets vary
    rng = np.random.RandomState(0)
    X = rng.normal(size=(40, 2))
    y = np.r_[np.tile([0, 1], 15), np.zeros(10)]
    est = Est(eta0=1e-12, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y, groups=np.repeat(np.arange(4), 10))
    assert not np.asarray(est._sizes).any()
    assert _silent_nodes(np.asarray(est._sizes), np.repeat(np.arange(4), 10), y, 4).tolist() \
        == [0, 1, 2]
    messages = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert any("every node's dictionary empty" in m and "eta0=1e-12 was given" in m
               for m in messages), messages


def test_tiny_features_name_the_feature_scale():
    """review36: on features of scale 1e-12 under the linear kernel every
    dictionary ended empty and the warning said "the step eta0_=5e+03 is
    small against the KOMP budget epsilon_=0.01 ... rescale sample_weight":
    the step is large; a term's norm eta0_ |loss'| sqrt(k(x, x)) is ~5e-9
    because k(x, x) <= 1e-23.  The warning now names the features' scale."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(160, 3))
    y = (X[:, 0] > 0).astype(int)
    est = DecentralizedKernelSGDClassifier(kernel="linear", random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X * 1e-12, y, groups=np.repeat(np.arange(4), 40))
    message = next(str(w.message) for w in caught if "dictionary empty" in str(w.message))
    # the quantities the sentence reads, from the fit
    eta, eps, sup = est.eta0_, est.epsilon_, est._kernel_sup_seen
    assert eta * np.sqrt(sup) < eps <= eta and sup < 1e-20
    assert f"k(x, x) is at most {sup:.3g}" in message
    assert "standardize the features" in message
    assert "is small against" not in message and "rescale sample_weight" not in message
    # control: standardized features fill the dictionaries, no warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y, groups=np.repeat(np.arange(4), 40))
    assert np.asarray(est._sizes).all()
    assert not [w for w in caught if "dictionary empty" in str(w.message)]
