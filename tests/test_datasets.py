"""Tests of skfed.datasets: shipped real data, generators, per-node split."""

from pathlib import Path

import numpy as np
import pytest
from scipy import sparse

from skfed.datasets import (
    computer_buyers_split,
    load_computer_buyers,
    load_har,
    load_landmine,
    load_school,
    make_federated_sparse_regression,
    make_gaussian_mixture_network,
    make_rotated_moons,
    per_node_split_indices,
    shipped_datasets,
    train_test_split_per_node,
)
from skfed.datasets import _real

# The originals live in ../shared/data beside the repository clone.
SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
needs_originals = pytest.mark.skipif(
    not SHARED.is_dir(), reason="original datasets (../shared/data) not available"
)


# ------------------------------------------------------------------ loaders
def test_all_four_datasets_are_shipped():
    assert sorted(shipped_datasets()) == ["computer_buyers", "har", "landmine", "school"]


@pytest.mark.parametrize(
    "task, positives",
    [("sitting", 1286), ("walking", 3285)],
)
def test_har_binary_tasks(task, positives):
    X, y, groups = load_har(task=task, return_X_y=True)
    assert X.shape == (7352, 561)
    assert X.dtype == np.float32
    assert -1.0 <= X.min() and X.max() <= 1.0
    assert set(np.unique(y).tolist()) == {-1, 1}
    assert int((y == 1).sum()) == positives
    nodes, counts = np.unique(groups, return_counts=True)
    assert nodes.tolist() == [1, 3, 5, 6, 7, 8, 11, 14, 15, 16, 17, 19, 21, 22, 23, 25,
                              26, 27, 28, 29, 30]
    assert counts.min() == 281 and counts.max() == 409 and counts.sum() == 7352


def test_har_activity_bunch():
    bunch = load_har(task="activity")
    assert np.bincount(bunch.target).tolist() == [1226, 1073, 986, 1286, 1374, 1407]
    assert bunch.target_names.tolist()[3] == "SITTING"
    assert len(bunch.feature_names) == 561
    assert len(set(bunch.feature_names.tolist())) == 561  # duplicates made unique
    assert bunch.feature_names[0] == "tBodyAcc-mean()-X"
    assert "Anguita" in bunch.DESCR and "Licence" in bunch.DESCR
    # the three tasks are views of the same activity labels
    sitting = load_har(task="sitting")
    walking = load_har(task="walking")
    np.testing.assert_array_equal(sitting.target == 1, bunch.target == 3)
    np.testing.assert_array_equal(walking.target == 1, bunch.target <= 2)


def test_har_bad_task():
    with pytest.raises(ValueError, match="task must be one of"):
        load_har(task="running")


def test_school_whole_data():
    bunch = load_school()
    assert bunch.data.shape == (15362, 28)
    assert bunch.feature_names[-1] == "bias"
    np.testing.assert_array_equal(bunch.data[:, 27], 1.0)
    nodes, counts = np.unique(bunch.groups, return_counts=True)
    assert nodes.tolist() == list(range(1, 140))
    assert counts.min() == 22 and counts.max() == 251
    assert bunch.target.min() == 1 and bunch.target.max() == 70


def test_school_classification_dada_protocol():
    X, y, groups = load_school(task="classification", return_X_y=True)
    assert X.shape == (15362, 17)
    assert X.min() == 0.0 and X.max() == 1.0
    np.testing.assert_array_equal(X[:, -1], 1.0)  # the bias row, kept at 1
    scores = load_school().target
    np.testing.assert_array_equal(y, np.where(scores > 20, 1, -1))
    assert int((y == 1).sum()) == int((scores > 20).sum())
    # student-level one-hot blocks: gender and ethnic group sum to one
    np.testing.assert_array_equal(X[:, 0:2].sum(axis=1), 1.0)
    np.testing.assert_array_equal(X[:, 5:16].sum(axis=1), 1.0)


@pytest.mark.parametrize("split", [1, 7])
def test_school_official_split(split):
    X_tr, X_te, y_tr, y_te, g_tr, g_te = load_school(
        task="classification", split=split, return_X_y=True
    )
    assert X_tr.shape == (11472, 17) and X_te.shape == (3890, 17)
    assert len(np.unique(g_tr)) == 139 and len(np.unique(g_te)) == 139
    assert np.bincount(g_tr)[1:].min() == 16
    bunch = load_school(task="classification", split=split)
    rows = np.concatenate([bunch.train_indices, bunch.test_indices])
    assert np.array_equal(np.sort(rows), np.arange(15362))  # a partition
    np.testing.assert_array_equal(bunch.data[bunch.train_indices], X_tr)
    np.testing.assert_array_equal(bunch.groups_test, g_te)


def test_school_bad_split():
    for bad in (0, 11, "1", True):
        with pytest.raises(ValueError, match="split must be"):
            load_school(split=bad)


def test_computer_buyers_shapes():
    bunch = load_computer_buyers()
    assert bunch.data.shape == (3800, 14)
    nodes, counts = np.unique(bunch.groups, return_counts=True)
    assert len(nodes) == 190 and set(counts.tolist()) == {20}
    np.testing.assert_array_equal(bunch.data[:, 0], 1.0)
    assert set(np.unique(bunch.data[:, 1:]).tolist()) == {-1.0, 1.0}
    assert bunch.target.min() == 0 and bunch.target.max() == 10
    # person-major: every person rates the same 20 computers
    np.testing.assert_array_equal(bunch.data[:20], bunch.data[20:40])
    Xc, yc, _ = load_computer_buyers(task="classification", return_X_y=True)
    np.testing.assert_array_equal(yc, np.where(bunch.target > 5, 1, -1))
    assert set(np.unique(yc).tolist()) == {-1, 1}


def test_computer_buyers_dada_split():
    bunch = load_computer_buyers(task="classification", split="dada", random_state=3)
    n_train = np.bincount(bunch.groups_train, minlength=191)[1:]
    assert n_train.min() >= 5 and n_train.max() <= 10
    assert np.bincount(bunch.groups_test, minlength=191)[1:].min() >= 10
    assert len(bunch.target_train) + len(bunch.target_test) == 3800
    # one shared permutation: training computers are prefixes of one order
    mask, perm = computer_buyers_split(random_state=3)
    np.testing.assert_array_equal(mask.sum(axis=1), n_train)
    for k in range(190):
        assert set(np.flatnonzero(mask[k]).tolist()) == set(perm[: mask[k].sum()].tolist())
    train_computers = bunch.computer[bunch.train_indices]
    np.testing.assert_array_equal(
        train_computers[bunch.groups_train == 1], np.sort(perm[: n_train[0]])
    )
    again = load_computer_buyers(task="classification", split="dada", random_state=3)
    np.testing.assert_array_equal(again.train_indices, bunch.train_indices)


def test_computer_buyers_dada_split_is_the_split_of_dada_code():
    # Dada's load_computer: numpy RandomState(seed).permutation of the 20
    # computers, then ``random.seed(seed); random.randint(5, 10)`` per person.
    import random

    seed = 2018
    order = np.random.RandomState(seed).permutation(np.arange(0, 20))
    random.seed(seed)
    expected = np.zeros((190, 20), dtype=bool)
    for person in range(190):
        expected[person, order[: random.randint(5, 10)]] = True
    mask, perm = computer_buyers_split(random_state=seed)
    np.testing.assert_array_equal(perm, order)
    np.testing.assert_array_equal(mask, expected)
    assert mask.sum() == 1407
    # RandomState instances and None draw the seed first, then the same way.
    rs_mask, _ = computer_buyers_split(random_state=np.random.RandomState(0))
    assert 5 * 190 <= rs_mask.sum() <= 10 * 190


def test_landmine():
    X, y, groups = load_landmine(return_X_y=True)
    assert X.shape == (14820, 9) and X.dtype == np.float64
    assert set(np.unique(y).tolist()) == {0, 1}
    assert int(y.sum()) == 904
    assert round(100 * y.mean(), 1) == 6.1
    nodes, counts = np.unique(groups, return_counts=True)
    assert nodes.tolist() == list(range(1, 30))
    assert counts.min() == 445 and counts.max() == 690
    _, y_signed, _ = load_landmine(signed=True, return_X_y=True)
    np.testing.assert_array_equal(y_signed, 2 * y - 1)


def test_as_frame():
    pd = pytest.importorskip("pandas")
    bunch = load_landmine(as_frame=True)
    assert isinstance(bunch.data, pd.DataFrame)
    assert list(bunch.data.columns)[0] == "moment_1"
    assert bunch.target.name == "mine" and bunch.groups.name == "field"
    assert bunch.frame.shape == (14820, 11)
    X, y, g = load_school(task="classification", split=2, return_X_y=True, as_frame=True)[:3]
    assert isinstance(X, pd.DataFrame) and X.shape == (11472, 17)


def test_missing_shipped_copy_fails_clearly(monkeypatch, tmp_path):
    monkeypatch.setattr(_real, "DATA_DIR", tmp_path)
    with pytest.raises(FileNotFoundError, match="never downloads"):
        load_landmine()
    assert shipped_datasets() == []
    with pytest.raises(ValueError, match="does not ship"):
        _real._load_npz("mnist")


# ----------------------------------------- shipped copies equal the originals
@needs_originals
def test_shipped_har_equals_originals():
    X, _, groups = load_har(return_X_y=True)
    activity = load_har(task="activity").target
    start = 0
    for k in range(1, 22):
        with np.load(SHARED / "har_uci_21train" / f"train_user{k}.npz") as user:
            x, y = user["train_x"], user["train_y"]
        rows = slice(start, start + x.shape[0])
        np.testing.assert_allclose(X[rows], x, rtol=0, atol=6e-8)
        np.testing.assert_array_equal(activity[rows], y)
        assert len(np.unique(groups[rows])) == 1
        start += x.shape[0]
    assert start == X.shape[0]


@needs_originals
def test_shipped_school_equals_originals():
    from scipy.io import loadmat

    mat = loadmat(SHARED / "school_dada" / "school_b.mat")
    bunch = load_school()
    np.testing.assert_array_equal(bunch.data, mat["x"].T.astype(np.float64))
    np.testing.assert_array_equal(bunch.target, mat["y"].ravel())
    starts = mat["task_indexes"].ravel().astype(int) - 1
    np.testing.assert_array_equal(np.flatnonzero(np.diff(bunch.groups)) + 1, starts[1:])
    for k in (1, 10):
        split = loadmat(SHARED / "school_dada" / f"school_{k}_indexes.mat")
        b = load_school(split=k)
        np.testing.assert_array_equal(b.train_indices, split["tr"].ravel().astype(int) - 1)
        np.testing.assert_array_equal(b.test_indices, split["tst"].ravel().astype(int) - 1)
        # the per-school blocks of the official files match our groups
        tr_starts = split["tr_indexes"].ravel().astype(int) - 1
        np.testing.assert_array_equal(
            np.flatnonzero(np.diff(b.groups_train)) + 1, tr_starts[1:]
        )


@needs_originals
def test_shipped_computer_buyers_and_landmine_equal_originals():
    from scipy.io import loadmat

    mat = loadmat(SHARED / "computer_buyers" / "conjointAnalysisComputerBuyers.mat")
    bunch = load_computer_buyers()
    np.testing.assert_array_equal(bunch.ratings, mat["likeBuy"])
    np.testing.assert_array_equal(bunch.data[:20], mat["designMarix"])
    np.testing.assert_array_equal(bunch.target.reshape(190, 20), mat["likeBuy"])

    mat = loadmat(SHARED / "landmine" / "LandmineData.mat")
    X, y, groups = load_landmine(return_X_y=True)
    for t in range(29):
        rows = groups == t + 1
        np.testing.assert_array_equal(X[rows], mat["feature"][0, t])
        np.testing.assert_array_equal(y[rows], mat["label"][0, t].ravel())


# ---------------------------------------------------------------- generators
def test_rotated_moons_structure():
    out = make_rotated_moons(
        n_nodes=40, cluster_sizes=(4, 8, 12, 16), n_samples_range=(3, 14),
        n_test_per_node=30, random_state=0,
    )
    X, X_test, y, y_test, g, g_test, graph, clusters = out
    assert X.shape[1] == 20 and X_test.shape == (40 * 30, 20)
    counts = np.bincount(g, minlength=40)
    assert counts.min() >= 3 and counts.max() <= 14
    assert np.bincount(g_test).tolist() == [30] * 40
    assert set(np.unique(y).tolist()) <= {-1, 1}
    assert np.bincount(clusters).tolist() == [4, 8, 12, 16]
    # oracle graph: exactly the same-cluster pairs
    same = clusters[:, None] == clusters[None, :]
    np.testing.assert_array_equal(graph, same & ~np.eye(40, dtype=bool))
    np.testing.assert_array_equal(graph, graph.T)
    assert graph.sum(axis=1).tolist() == [3] * 4 + [7] * 8 + [11] * 12 + [15] * 16


def test_rotated_moons_reproducible_and_label_noise():
    kwargs = dict(n_nodes=20, n_clusters=2, n_test_per_node=200, random_state=7)
    a = make_rotated_moons(label_noise=0.1, **kwargs)
    b = make_rotated_moons(label_noise=0.1, **kwargs)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    clean = make_rotated_moons(label_noise=0.0, **kwargs)
    np.testing.assert_array_equal(a[0], clean[0])  # same features
    flipped = np.mean(a[3] != clean[3])  # 4,000 test labels
    assert 0.08 < flipped < 0.12
    c = make_rotated_moons(label_noise=0.1, n_nodes=20, n_clusters=2,
                           n_test_per_node=200, random_state=8)
    assert not np.array_equal(a[1], c[1])


def test_rotated_moons_clusters_share_a_task():
    # Without noise, nodes of one cluster share the rotation: a model fitted on
    # one node's test data classifies its cluster mates, not other clusters.
    from sklearn.neighbors import KNeighborsClassifier

    X, X_test, y, y_test, g, g_test, graph, clusters = make_rotated_moons(
        n_nodes=8, n_clusters=2, n_features=2, noise=0.05, label_noise=0.0,
        n_test_per_node=200, angles=[0.0, np.pi], random_state=0,
    )
    model = KNeighborsClassifier(5).fit(X_test[g_test == 0], y_test[g_test == 0])
    same = model.score(X_test[g_test == 1], y_test[g_test == 1])  # cluster 0
    other = model.score(X_test[g_test == 4], y_test[g_test == 4])  # cluster 1
    assert clusters[1] == clusters[0] != clusters[4]
    assert same > 0.95 and other < 0.5


def test_rotated_moons_paper_layout():
    kwargs = dict(n_nodes=100, cluster_sizes=(10, 20, 30, 40), n_samples_range=(3, 14),
                  n_features=20, padding_std=0.0, n_test_per_node=50)
    X, X_test, y, y_test, g, g_test, graph, clusters = make_rotated_moons(
        layout="paper", random_state=0, **kwargs)
    # Balanced moons at every node (n // 2 on the upper moon, label -1), no flips.
    counts = np.bincount(g)
    np.testing.assert_array_equal(np.bincount(g[y == -1], minlength=100), counts // 2)
    assert np.all(np.bincount(g_test[y_test == -1], minlength=100) == 25)
    # Diagonal orientations and no flipped label: without noise, rotating a
    # node's points back by its diagonal angle puts every -1 point on the
    # upper moon's circle (centre (0, 0)) and every +1 on the lower one's
    # (centre (1, 0.5)), in make_moons' frame.
    Xc, Xc_test, yc, yc_test, gc, gc_test, _, cl = make_rotated_moons(
        layout="paper", noise=0.0, random_state=1, **kwargs)
    angles = np.pi / 4 + np.pi / 2 * np.arange(4)
    for Xs, ys, gs in [(Xc, yc, gc), (Xc_test, yc_test, gc_test)]:
        a_ = angles[cl[gs]]
        c, s_ = np.cos(a_), np.sin(a_)
        # inverse of the row rotation x @ [[c, s], [-s, c]]
        x0 = Xs[:, 0] * c + Xs[:, 1] * s_ + 0.5
        x1 = -Xs[:, 0] * s_ + Xs[:, 1] * c + 0.25
        upper = np.isclose(x0**2 + x1**2, 1.0)
        lower = np.isclose((x0 - 1) ** 2 + (x1 - 0.5) ** 2, 1.0)
        assert np.all(upper | lower)
        both = upper & lower
        assert np.all(ys[upper & ~both] == -1) and np.all(ys[lower & ~both] == 1)
    # The default angles of the paper layout are the diagonals.
    ref = make_rotated_moons(layout="paper", random_state=0, angles=angles, **kwargs)
    for u, v in zip(ref, (X, X_test, y, y_test, g, g_test, graph, clusters)):
        np.testing.assert_array_equal(u, v)
    X_r, _, y_r, _, g_r, *_ = make_rotated_moons(random_state=0, **kwargs)
    assert not np.array_equal(np.bincount(g_r[y_r == -1], minlength=100), counts // 2) or \
        not np.array_equal(g_r, g)
    with pytest.raises(ValueError, match="layout"):
        make_rotated_moons(layout="diagonal")


def test_rotated_moons_validation():
    with pytest.raises(ValueError, match="cluster_sizes sums"):
        make_rotated_moons(n_nodes=10, cluster_sizes=(3, 3))
    with pytest.raises(ValueError, match="one angle per cluster"):
        make_rotated_moons(n_nodes=10, n_clusters=2, angles=[0.0])


def test_sparse_regression_statistics():
    X, y, groups, support, coef = make_federated_sparse_regression(
        n_clients=10, n_samples=200, n_features=40, n_informative=6,
        coef_range=(1.0, 2.0), noise_range=0.0, random_state=0,
    )
    assert support.dtype == bool and support.sum() == 6
    assert np.all(coef[~support] == 0)
    assert np.all((np.abs(coef[support]) >= 1.0) & (np.abs(coef[support]) <= 2.0))
    counts = np.bincount(groups)
    assert len(counts) == 10 and counts.min() >= 100 and counts.max() <= 300
    assert len(np.unique(counts)) > 1  # unequal sizes
    np.testing.assert_allclose(y, X @ coef)  # noise-free: exact linear model
    # every client's design has its own variance
    variances = [X[groups == i].var(axis=0).mean() for i in range(10)]
    assert np.ptp(variances) > 0.3


def test_sparse_regression_correlation_and_noise():
    X, y, groups, support, coef = make_federated_sparse_regression(
        n_clients=2, n_samples=[20000, 20000], n_features=5, n_informative=2,
        variance_range=1.0, correlation=0.6, noise_range=0.5, random_state=1,
    )
    Xc = X[groups == 0]
    corr = np.corrcoef(Xc, rowvar=False)
    np.testing.assert_allclose(np.diag(Xc.T @ Xc / len(Xc)), 1.0, atol=0.05)
    np.testing.assert_allclose(corr[0, 1], 0.6, atol=0.03)  # rho^1
    np.testing.assert_allclose(corr[0, 2], 0.36, atol=0.03)  # rho^2 (Toeplitz)
    residual = y[groups == 0] - Xc @ coef
    np.testing.assert_allclose(residual.std(), 0.5, atol=0.02)
    Xe, *_ = make_federated_sparse_regression(
        n_clients=1, n_samples=[20000], n_features=4, n_informative=1,
        variance_range=1.0, correlation=0.3, covariance="equicorrelated",
        distribution="rademacher", random_state=2,
    )
    corr = np.corrcoef(Xe, rowvar=False)
    np.testing.assert_allclose(corr[0, 3], 0.3, atol=0.03)
    a = make_federated_sparse_regression(random_state=5)
    b = make_federated_sparse_regression(random_state=5)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)


def test_gaussian_mixture_network():
    X, y, groups, adjacency = make_gaussian_mixture_network(
        n_nodes=15, n_samples_per_node=400, random_state=0
    )
    assert X.shape == (6000, 2)
    assert np.bincount(groups).tolist() == [400] * 15
    proportions = np.bincount(y) / len(y)
    assert len(proportions) == 5
    np.testing.assert_allclose(proportions, 0.2, atol=0.02)  # balanced classes
    assert adjacency.shape == (15, 15) and adjacency.dtype == bool
    assert np.array_equal(adjacency, adjacency.T) and not adjacency.diagonal().any()
    n_components, _ = sparse.csgraph.connected_components(sparse.csr_matrix(adjacency))
    assert n_components == 1
    # every class is a mixture of 3 Gaussians: 3 clearly separated clusters
    from sklearn.mixture import GaussianMixture

    Xc = X[y == 0]
    bic = [GaussianMixture(k, random_state=0).fit(Xc).bic(Xc) for k in (1, 3)]
    assert bic[1] < bic[0]
    again = make_gaussian_mixture_network(n_nodes=15, n_samples_per_node=400, random_state=0)
    for u, v in zip((X, y, groups, adjacency), again):
        np.testing.assert_array_equal(u, v)


def _documented_circle_means(n_classes=5, n_components=3, radius=3.0, offset=1.0):
    # written from the docstring, independently of the generator's code
    means = np.empty((n_classes, n_components, 2))
    for c in range(n_classes):
        a = 2 * np.pi * c / n_classes
        for j in range(n_components):
            b = a + np.pi / 3 + 2 * np.pi * j / n_components
            means[c, j] = [radius * np.cos(a) + offset * np.cos(b),
                           radius * np.sin(a) + offset * np.sin(b)]
    return means


def test_gaussian_mixture_network_circle_layout_statistics():
    from scipy.special import logsumexp

    means = _documented_circle_means()
    bayes = []
    for seed in range(3):
        X, y, groups, _ = make_gaussian_mixture_network(
            n_nodes=10, n_samples_per_node=1500, random_state=seed
        )
        # class means on the circle of radius 3 (components average to the centre)
        for c in range(5):
            a = 2 * np.pi * c / 5
            np.testing.assert_allclose(
                X[y == c].mean(axis=0), [3 * np.cos(a), 3 * np.sin(a)], atol=0.08
            )
            # within a class: 0.6^2 I around the components, which sit at
            # distance 1 evenly spaced (variance 1/2 per coordinate)
            np.testing.assert_allclose(np.cov(X[y == c].T), 0.86 * np.eye(2), atol=0.07)
        d2 = ((X[:, None, None, :] - means[None]) ** 2).sum(-1)
        # the Bayes classifier of the exact mixture: 97.5 % whatever the seed
        loglik = logsumexp(-d2 / (2 * 0.6**2), axis=2)
        bayes.append(np.mean(loglik.argmax(axis=1) == y))
    np.testing.assert_allclose(bayes, 0.975, atol=0.006)
    # a third feature is pure N(0, 0.6^2) noise
    X3 = make_gaussian_mixture_network(n_nodes=4, n_samples_per_node=2000, n_features=3,
                                       random_state=0)[0]
    assert abs(X3[:, 2].mean()) < 0.03 and abs(X3[:, 2].std() - 0.6) < 0.02
    with pytest.raises(ValueError, match="n_features >= 2"):
        make_gaussian_mixture_network(n_features=1)
    with pytest.raises(ValueError, match="layout"):
        make_gaussian_mixture_network(layout="grid")


def test_gaussian_mixture_network_random_layout_still_reachable():
    X, y, _, _ = make_gaussian_mixture_network(
        n_nodes=15, n_samples_per_node=400, layout="random", random_state=0
    )
    rng = np.random.RandomState(0)  # the documented draws of layout="random"
    centres = rng.normal(scale=2.0, size=(5, 2))
    comps = centres[:, None, :] + rng.normal(scale=1.0, size=(5, 3, 2))
    d2 = ((X[:, None, None, :] - comps[None]) ** 2).sum(-1)
    own = d2[np.arange(len(y)), y].min(axis=1)
    # every sample lies near a component of its class: chi2(2) * 0.45^2
    assert np.sqrt(np.median(own)) == pytest.approx(0.45 * np.sqrt(2 * np.log(2)), rel=0.1)
    for c in range(5):
        np.testing.assert_allclose(X[y == c].mean(axis=0), comps[c].mean(axis=0), atol=0.1)


def test_gaussian_mixture_network_non_iid_and_given_graph():
    ring = np.zeros((6, 6), dtype=bool)
    for i in range(6):
        ring[i, (i + 1) % 6] = ring[(i + 1) % 6, i] = True
    X, y, groups, adjacency = make_gaussian_mixture_network(
        n_nodes=6, n_samples_per_node=300, class_concentration=0.1,
        topology=ring, random_state=0,
    )
    np.testing.assert_array_equal(adjacency, ring)
    # skewed nodes: each node is dominated by few classes
    top_share = [np.bincount(y[groups == k], minlength=5).max() / 300 for k in range(6)]
    assert np.mean(top_share) > 0.5


# ---------------------------------------------------------- per-node split
def test_split_per_node_fraction_and_coverage():
    rng = np.random.RandomState(0)
    sizes = [1, 2, 3, 7, 40, 101]
    groups = np.repeat(np.arange(6), sizes)
    y = rng.randint(2, size=groups.size)
    X = rng.normal(size=(groups.size, 3))
    X_tr, X_te, y_tr, y_te, g_tr, g_te = train_test_split_per_node(
        X, y, groups, test_size=0.25, random_state=0
    )
    n_tr = np.bincount(g_tr, minlength=6)
    n_te = np.bincount(g_te, minlength=6)
    assert n_tr.min() >= 1  # every node keeps a training sample
    expected_test = [0, 1, 1, 2, 10, 26]  # ceil(0.25 n), at most n - 1
    assert n_te.tolist() == expected_test
    assert (n_tr + n_te).tolist() == sizes
    # rows are the original rows, in order, no overlap
    rows_tr = [np.flatnonzero((X == r).all(axis=1))[0] for r in X_tr]
    rows_te = [np.flatnonzero((X == r).all(axis=1))[0] for r in X_te]
    assert rows_tr == sorted(rows_tr) and not set(rows_tr) & set(rows_te)
    np.testing.assert_array_equal(y[rows_tr], y_tr)


def test_split_per_node_stratifies():
    groups = np.repeat([0, 1], [40, 41])
    y = np.r_[[1] * 8 + [0] * 32, [1] * 1 + [0] * 40]
    X = np.arange(len(y))[:, None]
    for seed in range(5):
        _, _, y_tr, y_te, g_tr, g_te = train_test_split_per_node(
            X, y, groups, test_size=0.25, random_state=seed
        )
        # node 0: 8 positives of 40, 10 test samples -> exactly 2 positives
        assert y_te[g_te == 0].sum() == 2
    # node 1 has a class with one sample: plain split, still 11 test samples
    assert (g_te == 1).sum() == 11
    train, test = per_node_split_indices(y, groups, stratify=True, random_state=1)
    train2, test2 = per_node_split_indices(y, groups, stratify=True, random_state=1)
    np.testing.assert_array_equal(train, train2)
    np.testing.assert_array_equal(test, test2)


def test_split_per_node_pandas_and_errors():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"a": np.arange(12.0)})
    y = pd.Series(np.arange(12) % 2)
    g = pd.Series(np.repeat(["x", "y"], 6))
    X_tr, X_te, y_tr, y_te, g_tr, g_te = train_test_split_per_node(X, y, g, random_state=0)
    assert isinstance(X_tr, pd.DataFrame) and len(X_te) == 4
    assert sorted(g_te.tolist()) == ["x", "x", "y", "y"]
    with pytest.raises(ValueError, match="test_size"):
        train_test_split_per_node(X, y, g, test_size=1.5)
    with pytest.raises(ValueError, match="groups is required"):
        train_test_split_per_node(X, y, None)
    with pytest.raises(ValueError):
        train_test_split_per_node(X, y, g[:5])


def test_rotated_moons_angle_jitter_rotates_each_node_by_its_own_angle():
    kwargs = dict(n_nodes=12, n_clusters=3, n_samples_range=(6, 6), n_features=3,
                  noise=0.0, padding_std=0.0, n_test_per_node=0, layout="paper")
    angles = np.array([0.3, 1.9, 4.0])
    plain = make_rotated_moons(angles=angles, random_state=3, **kwargs)
    assert np.array_equal(plain[0], make_rotated_moons(
        angles=angles, angle_jitter=0.0, random_state=3, **kwargs)[0])
    X, _, y, _, g, _, graph, clusters = make_rotated_moons(
        angles=angles, angle_jitter=0.15, random_state=3, **kwargs)
    # The same draws as the generator's: the jitter comes right after the
    # angles, one normal per node.
    rng = np.random.RandomState(3)
    jitter = rng.normal(scale=0.15, size=12)
    own = angles[clusters] + jitter
    # Rotating a node's noiseless points back by its own angle puts them on
    # make_moons' two circles; by the cluster angle alone, not all of them.
    def on_circles(a_):
        c, s_ = np.cos(a_), np.sin(a_)
        x0 = X[:, 0] * c + X[:, 1] * s_ + 0.5
        x1 = -X[:, 0] * s_ + X[:, 1] * c + 0.25
        return (np.isclose(x0**2 + x1**2, 1.0) | np.isclose((x0 - 1) ** 2 + (x1 - 0.5) ** 2, 1.0))
    assert np.all(on_circles(own[g]))
    assert not np.all(on_circles(angles[clusters][g]))
    assert graph[0, 1] == 1 and graph[0, 4] == 0
    for bad in (-0.1, np.nan, "x"):
        with pytest.raises(ValueError, match="angle_jitter"):
            make_rotated_moons(angle_jitter=bad)
