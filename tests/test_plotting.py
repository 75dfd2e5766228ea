"""Tests of skfed.plotting: every display draws a real fitted estimator on Agg
and the drawn data equal the estimator's attributes."""

import importlib.util
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import linalg

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from skfed.boosting import DecentralizedBoostingClassifier  # noqa: E402
from skfed.datasets import make_rotated_moons  # noqa: E402
from skfed.graph import CollaborationGraphLearner  # noqa: E402
from skfed.multitask import FederatedMultiTaskClassifier  # noqa: E402
from skfed.network import SimulatedNetwork  # noqa: E402
from skfed.online import DecentralizedKernelSGDClassifier  # noqa: E402
from skfed.plotting import (  # noqa: E402
    CollaborationGraphDisplay,
    CommunicationCurveDisplay,
    OnlineLearningDisplay,
    PhaseTransitionDisplay,
    TaskRelationshipDisplay,
    cluster_order,
    graph_layout,
)
from skfed.support import FederatedSupportRecovery  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ----------------------------------------------------------------- fixtures
def _two_task_data(n_nodes=6, n_per_node=40, seed=0):
    """Nodes 0, 2, 4 share one task and 1, 3, 5 the opposite one."""
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n_nodes * n_per_node, 2))
    groups = np.repeat(np.arange(n_nodes), n_per_node)
    sign = np.where(groups % 2 == 0, 1.0, -1.0)
    y = (sign * (X[:, 0] + 0.5 * X[:, 1]) > 0).astype(int)
    return X, y, groups


@pytest.fixture(scope="module")
def mocha():
    X, y, groups = _two_task_data()
    # node labels that do not sort like their positions
    labels = np.array(["n5", "n4", "n3", "n2", "n1", "n0"])[groups]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # C = 1 / (lam n): the lam = 0.1 this fixture was written with
        # a learned Omega (the display's subject) with the squared hinge
        clf = FederatedMultiTaskClassifier(kernel="linear", omega="learn", loss="squared_hinge",
                                           C=1 / (0.1 * len(X)), max_rounds=60,
                                           random_state=0).fit(X, y, groups=labels)
    return clf, X, y, labels


@pytest.fixture(scope="module")
def dada():
    X, X_test, y, y_test, g, g_test, oracle, clusters = make_rotated_moons(
        n_nodes=12, n_clusters=2, n_features=4, padding_std=0.0, random_state=0
    )
    clf = DecentralizedBoostingClassifier(n_estimators=20, beta=5.0, mu=1.0, max_iter=600,
                                          random_state=0).fit(X, y, groups=g)
    return clf, X_test, y_test, g_test, oracle


@pytest.fixture(scope="module")
def online():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(160, 2))
    groups = np.repeat([0, 1, 2, 3], 40)
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    clf = DecentralizedKernelSGDClassifier(
        gamma=1.0, eta0=0.5, epsilon=0.05, network=SimulatedNetwork("ring", drop_rate=0.3),
        max_epochs=2, random_state=0,
    ).fit(X, y, groups=groups)
    return clf


# ------------------------------------------------------------- lazy import
def test_import_does_not_import_matplotlib(tmp_path):
    # The child must import the skfed this process tests, not whatever its
    # working directory holds: from the repository root the unbuilt source
    # tree (no compiled core) would shadow the installed package. So it runs
    # in an empty directory with the tested package's parent on its path.
    import skfed

    root = str(Path(skfed.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in [env.get("PYTHONPATH")] if p])
    code = (
        "import sys, skfed.plotting; "
        "print('matplotlib' in sys.modules, skfed.__file__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=tmp_path, env=env)
    imported, path = out.stdout.split()
    assert Path(path).resolve() == Path(skfed.__file__).resolve()
    assert imported == "False"


def test_clear_error_without_matplotlib(monkeypatch, mocha):
    clf = mocha[0]
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r'pip install "matplotlib>=[^"]+"'):
        TaskRelationshipDisplay.from_estimator(clf)
    with pytest.raises(ImportError, match=r'pip install "matplotlib>=[^"]+"'):
        PhaseTransitionDisplay.from_arrays([0, 1], [0.0, 1.0])


# ------------------------------------------------------------ task relation
def test_task_relationship_image_is_reordered_omega(mocha):
    clf = mocha[0]
    disp = TaskRelationshipDisplay.from_estimator(clf)
    order = cluster_order(clf.task_covariance_)
    np.testing.assert_array_equal(disp.order, order)
    expected = clf.omega_[order][:, order]
    np.testing.assert_array_equal(disp.image_, expected)
    np.testing.assert_array_equal(np.asarray(disp.im_.get_array()), expected)
    # the colour scale is centred and spans the off-diagonal entries
    off = np.abs(expected[~np.eye(len(order), dtype=bool)]).max()
    assert disp.im_.get_clim() == (-off, off)
    # tick labels follow the order
    names = [t.get_text() for t in disp.ax_.get_xticklabels()]
    assert names == [str(clf.nodes_[k]) for k in order]
    assert disp.colorbar_ is not None and disp.figure_ is disp.ax_.figure


def test_task_relationship_groups_related_nodes(mocha):
    clf = mocha[0]
    # the two tasks must form two contiguous blocks of the order
    disp = TaskRelationshipDisplay.from_estimator(clf, kind="correlation")
    task = np.array([int(label[1]) % 2 for label in clf.nodes_])[disp.order]
    assert np.count_nonzero(np.diff(task)) == 1, task
    sigma = clf.task_covariance_
    d = np.sqrt(np.diag(sigma))
    np.testing.assert_allclose(disp.image_, (sigma / d[:, None] / d[None, :])[disp.order][:,
                               disp.order])
    # related tasks have positive correlation, unrelated ones negative
    corr = disp.image_
    same = task[:, None] == task[None, :]
    assert corr[same].min() > 0 > corr[~same].max()


def test_task_relationship_covariance_and_explicit_order(mocha):
    clf = mocha[0]
    order = np.arange(len(clf.nodes_))[::-1]
    disp = TaskRelationshipDisplay.from_estimator(clf, kind="covariance", order=order,
                                                  colorbar=False)
    np.testing.assert_array_equal(disp.image_, clf.task_covariance_[order][:, order])
    assert disp.colorbar_ is None
    with pytest.raises(ValueError, match="permutation"):
        TaskRelationshipDisplay.from_estimator(clf, order=[0, 0, 1, 2, 3, 4])
    with pytest.raises(ValueError, match="kind"):
        TaskRelationshipDisplay.from_estimator(clf, kind="nope")


def test_task_relationship_from_matrix_reads_omega_as_precision():
    # Sigma with two blocks; Omega = Sigma^-1: both kinds give the same blocks
    sigma = np.full((4, 4), 0.05) + np.eye(4)
    sigma[0, 2] = sigma[2, 0] = sigma[1, 3] = sigma[3, 1] = 0.8
    omega = linalg.inv(sigma)
    for matrix, kind in ((sigma, "covariance"), (omega, "omega")):
        disp = TaskRelationshipDisplay.from_matrix(matrix, kind=kind)
        pos = np.argsort(disp.order)
        assert abs(pos[0] - pos[2]) == 1 and abs(pos[1] - pos[3]) == 1
        np.testing.assert_array_equal(disp.image_, matrix[disp.order][:, disp.order])


def test_cluster_order_validation():
    with pytest.raises(ValueError, match="square"):
        cluster_order(np.ones((2, 3)))
    np.testing.assert_array_equal(cluster_order(np.eye(2)), [0, 1])


# ------------------------------------------------------- collaboration graph
def test_collaboration_graph_display_matches_estimator(dada):
    clf, X_test, y_test, g_test, _ = dada
    disp = CollaborationGraphDisplay.from_estimator(clf, X_test, y_test, g_test)
    W = clf.collaboration_graph_.toarray()
    rows, cols = np.nonzero(np.triu(W, k=1))
    np.testing.assert_array_equal(disp.edge_list_, np.column_stack([rows, cols]))
    np.testing.assert_allclose(disp.edge_weights_, W[rows, cols])
    # every drawn segment joins the positions of its two nodes
    segments = np.array(disp.edges_.get_segments())
    np.testing.assert_allclose(segments[:, 0], disp.pos_[rows])
    np.testing.assert_allclose(segments[:, 1], disp.pos_[cols])
    widths = np.asarray(disp.edges_.get_linewidths())
    np.testing.assert_allclose(widths, 4.0 * W[rows, cols] / W[rows, cols].max())
    # node discs: positions, areas proportional to confidence_, colours = local 0-1 loss
    np.testing.assert_allclose(disp.nodes_.get_offsets(), disp.pos_)
    np.testing.assert_allclose(disp.nodes_.get_sizes(),
                               300.0 * clf.confidence_ / clf.confidence_.max())
    expected = []
    for node in clf.nodes_:
        mask = g_test == node
        pred = clf.predict(X_test[mask], groups=g_test[mask])
        expected.append(np.mean(pred != y_test[mask]))
    np.testing.assert_allclose(np.asarray(disp.nodes_.get_array()), expected)
    assert disp.colorbar_ is not None


def test_collaboration_graph_shared_layout_with_oracle(dada):
    clf, _, _, _, oracle = dada
    oracle_disp = CollaborationGraphDisplay.from_graph(oracle, colorbar=False)
    learned = CollaborationGraphDisplay.from_estimator(clf, layout=oracle_disp.pos_,
                                                       node_loss=np.arange(12.0))
    np.testing.assert_array_equal(learned.pos_, oracle_disp.pos_)
    np.testing.assert_array_equal(np.asarray(learned.nodes_.get_array()), np.arange(12.0))
    assert len(oracle_disp.edge_list_) == (oracle > 0).sum() // 2
    with pytest.raises(ValueError, match="shape"):
        CollaborationGraphDisplay.from_estimator(clf, layout=np.zeros((3, 2)))
    with pytest.raises(ValueError, match="X, y and groups"):
        CollaborationGraphDisplay.from_estimator(clf, np.zeros((2, 4)))


def test_collaboration_graph_learner_display():
    models = np.array([[1.0, 0.0], [1.0, 0.1], [0.0, 1.0], [0.1, 1.0]])
    learner = CollaborationGraphLearner(mu=10.0, kappa=2, random_state=0).fit(models)
    disp = CollaborationGraphDisplay.from_estimator(learner, layout="circular")
    # no confidence_: equal sizes; no loss: one colour and no colour bar
    np.testing.assert_allclose(disp.nodes_.get_sizes(), 300.0)
    assert disp.colorbar_ is None
    W = learner.collaboration_graph_.toarray()
    assert len(disp.edge_list_) == np.count_nonzero(np.triu(W, k=1))


def test_spectral_layout_without_networkx(monkeypatch):
    # two 4-cliques joined by one edge: the Fiedler vector separates them
    W = np.zeros((8, 8))
    W[:4, :4] = W[4:, 4:] = 1.0
    np.fill_diagonal(W, 0.0)
    W[3, 4] = W[4, 3] = 0.1
    monkeypatch.setitem(sys.modules, "networkx", None)
    pos = graph_layout(W)  # "auto" falls back to the spectral layout
    # independent check: second eigenvector of the normalized Laplacian
    d = W.sum(1)
    L = np.eye(8) - W / np.sqrt(np.outer(d, d))
    _, vecs = np.linalg.eigh(L)
    fiedler = vecs[:, 1] / np.sqrt(d)
    np.testing.assert_allclose(np.abs(pos[:, 0]), np.abs(fiedler), atol=1e-10)
    assert np.all(np.sign(pos[:4, 0]) == np.sign(pos[0, 0]))
    assert np.all(np.sign(pos[4:, 0]) == -np.sign(pos[0, 0]))
    with pytest.raises(ImportError, match=r'pip install "networkx>=3"'):
        graph_layout(W, layout="spring")
    # a disconnected graph: every component laid out apart, in its own cell
    W[3, 4] = W[4, 3] = 0.0
    W = np.pad(W, ((0, 1), (0, 1)))  # plus one isolated node
    for layout in ("spectral", "auto"):
        pos = graph_layout(W, layout=layout)
        boxes = [(pos[idx].min(0), pos[idx].max(0)) for idx in ([0, 1, 2, 3], [4, 5, 6, 7])]
        overlap = np.all(boxes[0][0] <= boxes[1][1]) and np.all(boxes[1][0] <= boxes[0][1])
        assert not overlap
        assert not np.any(np.all(pos[:8] == pos[8], axis=1))
    pos = graph_layout(W, layout="circular")
    np.testing.assert_allclose(np.hypot(pos[:, 0], pos[:, 1]), 1.0)


# ------------------------------------------------------ communication curve
def test_communication_curve_duality_gap(mocha):
    clf = mocha[0]
    disp = CommunicationCurveDisplay.from_estimator(clf)  # auto: the duality gap
    np.testing.assert_array_equal(disp.line_.get_xdata(), np.cumsum(clf.bytes_per_round_))
    np.testing.assert_array_equal(disp.line_.get_ydata(), clf.duality_gap_curve_)
    assert disp.ax_.get_yscale() == "log"
    assert disp.ax_.get_ylabel() == "duality gap"
    assert disp.line_.get_label() == "FederatedMultiTaskClassifier"
    # the last x is the total the estimator reports
    assert disp.line_.get_xdata()[-1] == clf.n_bytes_sent_


def test_communication_curve_objective_of_boosting(dada):
    clf = dada[0]
    disp = CommunicationCurveDisplay.from_estimator(clf, name="Dada")
    np.testing.assert_array_equal(disp.line_.get_xdata(), np.cumsum(clf.bytes_per_round_))
    np.testing.assert_array_equal(disp.line_.get_ydata(), clf.objective_curve_)
    assert disp.ax_.get_yscale() == "linear" and disp.line_.get_label() == "Dada"
    with pytest.raises(ValueError, match="duality_gap_curve_"):
        CommunicationCurveDisplay.from_estimator(clf, curve="duality_gap")


def test_communication_curve_consensus_error_skips_nan(online):
    clf = online
    disp = CommunicationCurveDisplay.from_estimator(clf, curve="consensus_error")
    curve = clf.consensus_error_curve_
    keep = np.isfinite(curve) & (curve > 0)
    np.testing.assert_array_equal(disp.line_.get_xdata(),
                                  np.cumsum(clf.bytes_per_round_)[keep])
    np.testing.assert_array_equal(disp.line_.get_ydata(), curve[keep])


def test_communication_curve_from_arrays_and_misaligned(dada):
    disp = CommunicationCurveDisplay([10, 20, 40], [0.5, 0.6, 0.7], ylabel="accuracy",
                                     name="budget").plot()
    assert disp.line_.get_xdata().tolist() == [10, 20, 40]
    assert disp.ax_.get_ylabel() == "accuracy"
    with pytest.raises(ValueError, match="same length"):
        CommunicationCurveDisplay([1, 2], [1.0]).plot()

    from sklearn.base import BaseEstimator

    class Broken(BaseEstimator):
        def fit(self):
            return self

        bytes_per_round_ = np.array([1, 2, 3])
        objective_curve_ = np.array([1.0, 2.0])

    with pytest.raises(ValueError, match="aligned"):
        CommunicationCurveDisplay.from_estimator(Broken(), curve="objective")


# --------------------------------------------------------------- online
def test_online_display_matches_estimator(online):
    clf = online
    disp = OnlineLearningDisplay.from_estimator(clf)
    n_rounds, n_nodes = clf.model_order_curve_.shape
    assert len(disp.order_lines_) == n_nodes == 4
    for k, line in enumerate(disp.order_lines_):
        np.testing.assert_array_equal(line.get_ydata(), clf.model_order_curve_[:, k])
        np.testing.assert_array_equal(line.get_xdata(), np.arange(1, n_rounds + 1))
    np.testing.assert_allclose(disp.mean_line_.get_ydata(), clf.model_order_curve_.mean(1))
    curve = clf.consensus_error_curve_
    keep = np.isfinite(curve) & (curve > 0)
    np.testing.assert_array_equal(disp.consensus_line_.get_ydata(), curve[keep])
    assert disp.axes_[1].get_yscale() == "log"
    # the final model order is the last row
    np.testing.assert_array_equal(clf.model_order_curve_[-1], clf.model_order_)


def test_online_display_on_given_axes(online):
    fig, axes = plt.subplots(2, 1)
    disp = OnlineLearningDisplay.from_estimator(online, ax=axes)
    assert disp.axes_[0] is axes[0] and disp.figure_ is fig
    with pytest.raises(ValueError, match="two Axes"):
        OnlineLearningDisplay.from_estimator(online, ax=axes[:1])


# ------------------------------------------------------- phase transition
def _benchmark_module():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "support_phase_transition.py"
    if not path.exists():
        pytest.skip("benchmarks/support_phase_transition.py is not in this checkout")
    spec = importlib.util.spec_from_file_location("support_phase_transition", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_phase_transition_from_benchmark_json(tmp_path):
    bench = _benchmark_module()
    # the benchmark's own experiment functions, on tiny grids
    results = {
        "a": bench.experiment_a([0.0, 1.5], (40,), runs=2, n_jobs=1),
        "b": bench.experiment_b([0.0, 0.5], (3,), runs=2, n_jobs=1, d=40),
        "c": bench.experiment_c([0.0, 0.4], [0.0, 0.5], runs=2, n_jobs=1, C_values=(1.5,),
                                d=40, s=3, g=6),
    }
    path = tmp_path / "support_phase_transition.json"
    path.write_text(json.dumps(results))
    disp = PhaseTransitionDisplay.from_json(path, experiment="a")
    curve = results["a"]["curves"]["40"]
    assert len(disp.lines_) == 2
    np.testing.assert_array_equal(disp.lines_[0].get_xdata(), curve["C"])
    np.testing.assert_array_equal(disp.lines_[0].get_ydata(), curve["fixed_lambda"])
    np.testing.assert_array_equal(disp.lines_[1].get_ydata(), curve["auto"])
    assert disp.lines_[1].get_linestyle() == "--"
    assert disp.lines_[0].get_color() == disp.lines_[1].get_color()

    disp = PhaseTransitionDisplay.from_json(results, experiment="b")
    np.testing.assert_array_equal(disp.lines_[0].get_ydata(),
                                  results["b"]["curves"]["3"]["fixed_lambda"])
    disp = PhaseTransitionDisplay.from_json(results, experiment="rogue")
    assert len(disp.lines_) == 2
    np.testing.assert_array_equal(disp.lines_[0].get_xdata(), [0.0, 0.4])
    disp = PhaseTransitionDisplay.from_json(results, experiment="drop")
    np.testing.assert_array_equal(disp.lines_[0].get_ydata(),
                                  list(results["c"]["drop"].values())[0])
    with pytest.raises(ValueError, match="experiment"):
        PhaseTransitionDisplay.from_json(results, experiment="z")


def test_phase_transition_of_the_defaults_from_benchmark_json():
    bench = _benchmark_module()
    results = {
        "clients": bench.experiment_clients([10, 40], (10,), runs=2, n_jobs=1, d=12, s=2,
                                            designs=("independent",)),
        "samples": bench.experiment_samples([8, 20], (30,), runs=2, n_jobs=1, d=12, s=2,
                                            designs=("toeplitz",)),
    }
    disp = PhaseTransitionDisplay.from_json(results, experiment="clients")
    curve = results["clients"]["curves"]["independent n_i=10"]
    assert len(disp.lines_) == 2 and disp.ax_.get_xscale() == "log"
    np.testing.assert_array_equal(disp.lines_[0].get_xdata(), [10, 40])
    np.testing.assert_array_equal(disp.lines_[0].get_ydata(), curve["defaults"])
    np.testing.assert_array_equal(disp.lines_[1].get_ydata(), curve["former"])
    assert disp.lines_[1].get_linestyle() == "--"
    disp = PhaseTransitionDisplay.from_json(results, experiment="samples")
    np.testing.assert_array_equal(disp.lines_[0].get_xdata(), [8, 20])
    assert disp.ax_.get_xscale() == "linear"


def test_phase_transition_from_arrays_of_real_fits():
    # recovery probability of FederatedSupportRecovery at two sample sizes
    from skfed.datasets import make_federated_sparse_regression

    sizes = [5, 200]
    probs = []
    for n in sizes:
        hits = []
        for seed in range(3):
            X, y, groups, support, _ = make_federated_sparse_regression(
                n_clients=5, n_samples=n, n_features=30, n_informative=3,
                coef_range=(1.0, 1.5), variance_range=(0.8, 1.25), sample_size_spread=0.0,
                random_state=seed)
            sel = FederatedSupportRecovery(0.4, fit_intercept=False).fit(X, y, groups=groups)
            hits.append(np.array_equal(sel.support_, support))
        probs.append(np.mean(hits))
    disp = PhaseTransitionDisplay.from_arrays(sizes, probs, labels=["d=30"],
                                              xlabel="samples per client")
    np.testing.assert_array_equal(disp.lines_[0].get_ydata(), probs)
    assert probs == [0.0, 1.0]
    assert disp.ax_.get_ylim() == (-0.03, 1.03)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        PhaseTransitionDisplay.from_arrays([0, 1], [0.0, 2.0])
    with pytest.raises(ValueError, match="labels"):
        PhaseTransitionDisplay.from_arrays([0, 1], [[0.0, 1.0]], labels=["a", "b"])
