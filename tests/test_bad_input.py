"""Every class of bad input against every public estimator, from one table.

The estimators are the classes of ``skfed.__all__`` that have ``fit``, so a
new public estimator is probed without touching this file (``BUILD`` only
shortens fits or supplies a required constructor argument).  Every case of
``CASES`` (data with NaN / inf / no samples / no features, one node, wrong
node ids, wrong sample weights, bad predict-time input, network faults and
topologies, privacy settings, clone and pickle) and every numeric
hyper-parameter of the estimator's ``_parameter_constraints`` at 0, -1 and
huge must end in one of two ways:

* refused: a ``ValueError`` / ``TypeError`` whose message names the
  parameter (or the node), matched by the case's pattern;
* accepted with its documented effect: the fit ends with finite outputs (and
  the case's own check, e.g. a warning naming a capped value, the privacy
  spent, the bytes counted).

The data are tiny (8 nodes x 30 samples x 5 features) and the fits short,
so the whole module runs in well under a minute.
"""

import numbers
import pickle
import re
import warnings

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.base import clone, is_classifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils import get_tags

import skfed
from skfed import DifferentialPrivacy, SimulatedNetwork, SingleNodeWarning
from skfed._compat import Interval

N_NODES, N_PER_NODE, N_FEATURES = 8, 30, 5
HUGE_INT, HUGE_REAL = 10**9, 1e9


def public_estimators():
    """Names of the public classes of ``skfed.__all__`` that have ``fit``."""
    return [
        name for name in skfed.__all__
        if isinstance(getattr(skfed, name), type) and hasattr(getattr(skfed, name), "fit")
    ]


# Constructor arguments an estimator requires, and settings that keep its fits
# on the tiny data short.  An estimator not listed is built with its defaults.
BUILD = {
    "LocalEstimator": dict(estimator=LogisticRegression(solver="liblinear")),
    "FederatedMultiTaskClassifier": dict(max_rounds=5),
    "FederatedMultiTaskRegressor": dict(max_rounds=5),
    "FederatedMultiTaskClassifierCV": dict(Cs=[1.0], cv=2, max_rounds=3),
    "FederatedMultiTaskRegressorCV": dict(Cs=[1.0], cv=2, max_rounds=3),
    # A fixed seed: with ``random_state=None``, six seeds of 3,002 once diverged
    # at ``epsilon=0`` (tests/test_online_epsilon_zero.py now fits them all).
    "DecentralizedKernelSGDClassifier": dict(max_epochs=2, random_state=0),
    "DecentralizedKernelSGDRegressor": dict(max_epochs=2, random_state=0),
    "DecentralizedBoostingClassifier": dict(max_iter=40, n_estimators=10),
    "PersonalizedLinearClassifier": dict(max_iter=40),
    "CollaborationGraphLearner": dict(max_iter=40),
}

# Hyper-parameters whose huge value asks for that much work (rounds, passes,
# wake-ups, learners, grid values): accepted, with the documented effect of
# running that long, so at "huge" the probe checks parameter validation only
# (the online learner's streamed epoch orders are tested in test_online.py).
WORK = {"max_iter", "max_epochs", "max_rounds", "local_epochs", "graph_init_iter", "graph_iter",
        "n_estimators", "omega_update_every", "max_dictionary_size", "max_neighbors", "Cs"}
# Hyper-parameters whose value is capped, with a warning naming them.
CAPPED = {"kappa": r"kappa=\d+ is more than the n_nodes - 1 = 7"}
# Not probed: seeds and verbosity have no wrong number.
NOT_PROBED = {"random_state", "verbose"}

# Cases an estimator must still fix, as {(estimator, case): reason}; they are
# marked xfail(strict=True), so they fail loudly once fixed.  None pending.
PENDING = {}


# ------------------------------------------------------------------- data
def _data():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(N_NODES), N_PER_NODE)
    X = rng.normal(size=(len(groups), N_FEATURES))
    tilt = 0.5 * (groups - N_NODES / 2) / N_NODES
    y_class = (X[:, 0] + tilt * X[:, 1] + 0.3 * rng.normal(size=len(groups)) > 0).astype(int)
    y_reg = X @ rng.normal(size=N_FEATURES) + 0.1 * rng.normal(size=len(groups))
    models = np.repeat(np.eye(2, N_FEATURES), N_NODES // 2, axis=0)
    models = models + 0.3 * rng.normal(size=models.shape)
    return {"X": X, "class": y_class, "reg": y_reg, "groups": groups, "models": models}


DATA = _data()


def kind_of(estimator):
    """``"class"``, ``"reg"`` or ``"models"`` (fitted on one model per node, no y)."""
    if is_classifier(estimator):
        return "class"
    if not get_tags(estimator).target_tags.required:
        return "models"
    return "reg"


def build(name, **params):
    return getattr(skfed, name)(**{**BUILD.get(name, {}), **params})


def fit(est, *, X=None, y=None, groups="default", **fit_params):
    """Fit ``est`` on the probe data (or on what is given), quietly for short fits."""
    kind = kind_of(est)
    X = DATA["models" if kind == "models" else "X"] if X is None else X
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if kind == "models":
            return est.fit(X, **fit_params)
        y = DATA[kind] if y is None else y
        groups = DATA["groups"] if isinstance(groups, str) else groups
        return est.fit(X, y, groups=groups, **fit_params)


def outputs(est):
    """What the fitted estimator gives: predictions on the data, or its graph."""
    kind = kind_of(est)
    if kind == "models":
        return est.collaboration_graph_.toarray()
    if hasattr(est, "predict"):
        return np.asarray(est.predict(DATA["X"], groups=DATA["groups"]), dtype=float)
    return np.asarray(est.transform(DATA["X"], groups=DATA["groups"]), dtype=float)


# -------------------------------------------------------- expectations
class Refused:
    """The call raises ``ValueError`` or ``TypeError`` matching ``pattern``."""

    def __init__(self, pattern, exceptions=(ValueError, TypeError)):
        self.pattern, self.exceptions = pattern, exceptions

    def check(self, call):
        with pytest.raises(self.exceptions, match=self.pattern):
            call()


class Accepted:
    """The call fits; outputs are finite, ``effect(estimator)`` holds and, with
    ``warns=(category, pattern)``, such a warning was raised."""

    def __init__(self, effect=None, warns=None):
        self.effect, self.warns = effect, warns

    def check(self, call):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = call()
        self.verify(est, caught)

    def verify(self, est, caught):
        if self.warns is not None:
            category, pattern = self.warns
            assert any(issubclass(w.category, category) and re.search(pattern, str(w.message))
                       for w in caught), [str(w.message) for w in caught]
        assert np.all(np.isfinite(outputs(est)))
        if self.effect is not None:
            self.effect(est)


class RefusedOrAccepted:
    """Either refused naming the setting, or accepted with its effect."""

    def __init__(self, pattern, effect=None, warns=None):
        self.pattern, self.accepted = pattern, Accepted(effect, warns)

    def check(self, call):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                est = call()
            except (ValueError, TypeError) as exc:
                assert re.search(self.pattern, str(exc)), str(exc)
                return
        self.accepted.verify(est, caught)


def _weights(change):
    weights = np.ones(len(DATA["groups"]))
    change(weights)
    return weights


def _privacy_spent(est):
    spent = np.asarray(est.privacy_spent_, dtype=float)
    assert spent.size and np.all(spent > 0)


def _pickles(est):
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(outputs(again), outputs(est))
    assert clone(est).get_params().keys() == est.get_params().keys()


def _nodes_are(labels):
    def effect(est):
        assert list(est.nodes_) == list(labels)

    return effect


X, GROUPS = DATA["X"], DATA["groups"]
NAN_X = X.copy()
NAN_X[3, 1] = np.nan
INF_X = X.copy()
INF_X[5, 0] = np.inf
SEVEN = GROUPS < 7  # the samples of 7 nodes
ONE_SAMPLE_NODE = np.r_[GROUPS[GROUPS != 7], 7]
ONE_SAMPLE_ROWS = np.r_[np.flatnonzero(GROUPS != 7), np.flatnonzero(GROUPS == 7)[0]]
MIXED_GROUPS = np.array([g if g != 2 else "two" for g in GROUPS.tolist()], dtype=object)
RING8 = np.roll(np.eye(N_NODES), 1, axis=1) + np.roll(np.eye(N_NODES), -1, axis=1)


def _net(**params):
    return SimulatedNetwork(random_state=0, **params)


def _y_nan(kind):
    y = DATA[kind].astype(float)
    y[2] = np.nan
    return y


def PREDICTS(est):
    return hasattr(est, "predict")


def TRANSFORMS(est):
    return not hasattr(est, "predict") and hasattr(est, "transform")


def _check_transform(est):
    assert np.all(np.isfinite(est.transform(X)))
    return est


# One table: case -> (kinds it applies to, which estimators (None: all),
# call(make, kind), expectation).  make(**params) builds the estimator.
SUPERVISED = ("class", "reg")
CASES = {
    # ---- the data
    "X_nan": (SUPERVISED, None, lambda m, k: fit(m(), X=NAN_X), Refused(r"X contains NaN")),
    "X_inf": (SUPERVISED, None, lambda m, k: fit(m(), X=INF_X), Refused(r"X contains inf")),
    "y_nan": (SUPERVISED, None, lambda m, k: fit(m(), y=_y_nan(k)), Refused(r"y contains NaN")),
    "no_samples": (SUPERVISED, None, lambda m, k: fit(m(), X=X[:0], y=DATA[k][:0],
                                                      groups=GROUPS[:0]),
                   Refused(r"0 sample\(s\)")),
    "no_features": (SUPERVISED, None, lambda m, k: fit(m(), X=X[:, :0]),
                    Refused(r"0 feature\(s\)")),
    "y_too_short": (SUPERVISED, None, lambda m, k: fit(m(), y=DATA[k][:-1]),
                    Refused(r"inconsistent numbers of samples")),
    "one_node": (SUPERVISED, None,
                 lambda m, k: fit(m(), X=X[GROUPS == 0], y=DATA[k][GROUPS == 0],
                                  groups=GROUPS[GROUPS == 0]),
                 Accepted(_nodes_are([0]))),
    "node_of_one_sample": (SUPERVISED, None,
                           lambda m, k: fit(m(), X=X[ONE_SAMPLE_ROWS],
                                            y=DATA[k][ONE_SAMPLE_ROWS], groups=ONE_SAMPLE_NODE),
                           RefusedOrAccepted(r"[Nn]ode 7|7\b")),
    "no_groups": (SUPERVISED, None, lambda m, k: fit(m(), groups=None),
                  Accepted(warns=(SingleNodeWarning, r"fitted without node ids"))),
    "groups_too_short": (SUPERVISED, None, lambda m, k: fit(m(), groups=GROUPS[:-1]),
                         Refused(r"groups has 239 entries but X has 240 samples")),
    "groups_2d": (SUPERVISED, None, lambda m, k: fit(m(), groups=np.c_[GROUPS, GROUPS]),
                  Refused(r"groups must be 1-d")),
    "groups_nan": (SUPERVISED, None,
                   lambda m, k: fit(m(), groups=np.where(GROUPS == 2, np.nan, GROUPS)),
                   Refused(r"groups contains NaN")),
    "groups_none_entry": (SUPERVISED, None,
                          lambda m, k: fit(m(), groups=np.where(GROUPS == 2, None, GROUPS)),
                          Refused(r"groups contains missing node ids")),
    "groups_mixed_types": (SUPERVISED, None,
                           lambda m, k: fit(m(), groups=MIXED_GROUPS),
                           Refused(r"groups mixes strings and other types")),
    "one_class": (("class",), None, lambda m, k: fit(m(), y=np.zeros(len(GROUPS), int)),
                  RefusedOrAccepted(r"class")),
    # ---- sample weights
    "weight_negative": (SUPERVISED, None,
                        lambda m, k: fit(m(), sample_weight=_weights(lambda w: w.__setitem__(4, -1))),
                        Refused(r"sample_weight must be non-negative; 1 of its 240 values")),
    "weight_nan": (SUPERVISED, None,
                   lambda m, k: fit(m(), sample_weight=_weights(lambda w: w.__setitem__(4, np.nan))),
                   Refused(r"sample_weight contains NaN")),
    "weight_too_short": (SUPERVISED, None, lambda m, k: fit(m(), sample_weight=np.ones(239)),
                         Refused(r"sample_weight.shape == \(239,\), expected \(240,\)")),
    "weight_zero_on_a_node": (SUPERVISED, None,
                              lambda m, k: fit(m(), sample_weight=(GROUPS != 3).astype(float)),
                              Refused(r"Node 3 ")),
    # ---- predict time
    "predict_without_groups": (
        SUPERVISED, PREDICTS, lambda m, k: fit(m()).predict(X),
        Refused(r"needs the node id of every sample")),
    "transform_without_groups": (
        # A feature selector: the support is shared, so no node id is needed.
        SUPERVISED, TRANSFORMS, lambda m, k: _check_transform(fit(m())), Accepted()),
    "predict_unseen_node_error": (
        SUPERVISED, PREDICTS,
        lambda m, k: _apply(fit(m(handle_unknown="error")), X[:3], np.array([99, 99, 0])),
        Refused(r"1 node\(s\) were not seen in fit \(99\)")),
    "predict_unseen_node_global": (
        SUPERVISED, None,
        lambda m, k: _check_unseen(fit(m())), Accepted()),
    "predict_wrong_features": (
        SUPERVISED, None, lambda m, k: _apply(fit(m()), X[:, :4], GROUPS),
        Refused(r"X has 4 features, but \w+ is expecting 5 features")),
    "clone_and_pickle": (("class", "reg", "models"), None, lambda m, k: fit(m()),
                         Accepted(_pickles)),
    # ---- one model per node (CollaborationGraphLearner)
    "models_nan": (("models",), None, lambda m, k: fit(m(), X=_nan_models()),
                   Refused(r"X contains NaN")),
    "models_one_node": (("models",), None, lambda m, k: fit(m(), X=DATA["models"][:1]),
                        Refused(r"1 sample\(s\)")),
    "losses_negative": (("models",), None, lambda m, k: fit(m(), losses=-np.ones(N_NODES)),
                        Refused(r"losses must be non-negative")),
    "losses_nan": (("models",), None, lambda m, k: fit(m(), losses=np.r_[np.nan, np.ones(7)]),
                   Refused(r"losses contains NaN")),
    "losses_wrong_length": (("models",), None, lambda m, k: fit(m(), losses=np.ones(3)),
                            Refused(r"losses must have one value per node")),
    "init_graph_wrong_size": (("models",), None,
                              lambda m, k: fit(m(), init_graph=np.ones((3, 3)) - np.eye(3)),
                              Refused(r"init_graph has shape \(3, 3\)")),
    "init_graph_negative": (("models",), None, lambda m, k: fit(m(), init_graph=-RING8),
                            Refused(r"init_graph contains negative weights")),
}


def _nan_models():
    models = DATA["models"].copy()
    models[1, 1] = np.nan
    return models


def _apply(est, X_new, groups):
    if hasattr(est, "predict"):
        return est.predict(X_new, groups=groups)
    return est.transform(X_new, groups=groups)


def _check_unseen(est):
    out = np.asarray(_apply(est, X[:3], np.array([99, 99, 0])), dtype=float)
    assert np.all(np.isfinite(out))
    return est


# ---- the network: faults and topologies (estimators with a network)
def _with_network(**network):
    return lambda m, k: fit(m(network=_net(**network)))


def _fit_seven_nodes(est, kind):
    if kind == "models":
        return fit(est, X=DATA["models"][:7])
    return fit(est, X=X[SEVEN], y=DATA[kind][SEVEN], groups=GROUPS[SEVEN])


def _drop_effect(est):
    # A dropped node sends nothing that round; what was sent is counted by round
    # (the fit's rounds: the online learner's network function has a log of
    # its own, which n_bytes_sent_ adds).
    assert int(np.sum(est.bytes_per_round_)) == est.communication_.total_bytes


NETWORK_CASES = {
    "topology_unknown": (_with_network(topology="hypercube"),
                         Refused(r"topology='hypercube' is not one of")),
    "k_regular_degree_too_large": (
        _with_network(topology="k_regular", topology_params={"degree": 50}),
        Refused(r"topology_params\['degree'\] must be an integer in \[1, 7\]")),
    "k_regular_odd_degree_odd_nodes": (
        lambda m, k: _fit_seven_nodes(m(network=_net(topology="k_regular",
                                                     topology_params={"degree": 3})), k),
        Refused(r"odd degree=3 needs an even number of nodes, got 7")),
    "erdos_renyi_p_above_one": (
        _with_network(topology="erdos_renyi", topology_params={"p": 1.5}),
        Refused(r"topology_params\['p'\] must be in \(0, 1\]")),
    "random_geometric_negative_radius": (
        _with_network(topology="random_geometric", topology_params={"radius": -1.0}),
        Refused(r"topology_params\['radius'\] must be a finite number > 0")),
    "topology_params_misspelt": (
        _with_network(topology="k_regular", topology_params={"degre": 3}),
        Refused(r"topology_params \['degre'\] do not apply to topology='k_regular'")),
    "topology_params_of_a_matrix": (
        _with_network(topology=RING8, topology_params={"p": 0.5}),
        Refused(r"topology_params only apply to a named topology")),
    "topology_wrong_size": (
        _with_network(topology=np.ones((3, 3)) - np.eye(3)),
        Refused(r"topology has shape \(3, 3\) but the data has 8 nodes")),
    "topology_asymmetric": (
        _with_network(topology=np.triu(np.ones((N_NODES, N_NODES)), 1)),
        Refused(r"topology must be symmetric")),
    "network_not_a_network": (lambda m, k: fit(m(network="ring")), Refused(r"network")),
    "drop_rate_one": (_with_network(drop_rate=1.0), Refused(r"'drop_rate' parameter")),
    "drop_rate_half": (_with_network(drop_rate=0.5),
                       RefusedOrAccepted(r"drop_rate", _drop_effect)),
    "stragglers": (_with_network(straggler_rate=0.5),
                   RefusedOrAccepted(r"does not model stragglers \(network.straggler_rate")),
    "rogue_nodes": (_with_network(rogue_fraction=0.25),
                    RefusedOrAccepted(r"does not model rogue nodes \(network.rogue_fraction")),
    "rogue_fraction_half": (_with_network(rogue_fraction=0.5), Refused(r"rogue_fraction")),
    "header_bytes_negative": (_with_network(header_bytes=-1),
                              Refused(r"'header_bytes' parameter")),
}

# ---- privacy (estimators with privacy=)
PRIVACY_CASES = {
    "privacy_not_a_spec": (lambda m, k: fit(m(privacy="strong")), Refused(r"privacy")),
    # (An estimator that refuses privacy= names privacy whatever the spec.)
    "privacy_epsilon_negative": (lambda m, k: fit(m(privacy=DifferentialPrivacy(epsilon=-1))),
                                 Refused(r"'epsilon' parameter|privacy")),
    "privacy_delta_above_one": (lambda m, k: fit(m(privacy=DifferentialPrivacy(delta=2.0))),
                                Refused(r"'delta' parameter|privacy")),
    "privacy_epsilon_one": (lambda m, k: fit(m(privacy=DifferentialPrivacy(epsilon=1.0))),
                            RefusedOrAccepted(r"privacy", _privacy_spent)),
    "privacy_with_weights": (
        lambda m, k: fit(m(privacy=DifferentialPrivacy(epsilon=1.0)),
                         sample_weight=np.full(len(GROUPS), 2.0)),
        RefusedOrAccepted(r"privacy|sample_weight", _privacy_spent)),
}


# ------------------------------------------------ numeric hyper-parameters
def _numeric_params(name):
    """``(param, is_integer)`` of every hyper-parameter that takes a number."""
    est = build(name)
    params = []
    for param, constraints in getattr(est, "_parameter_constraints", {}).items():
        if param in NOT_PROBED or not isinstance(constraints, list):
            continue
        intervals = [c for c in constraints if isinstance(c, Interval)]
        plain = [c for c in constraints if c in (numbers.Integral, numbers.Real)]
        if not intervals and not plain:
            continue
        integer = all(c.type is numbers.Integral for c in intervals) and (
            numbers.Real not in plain)
        params.append((param, integer))
    return params


def _hyper_case(name, param, integer, label):
    """``(call, work)``: the fit with ``param`` at ``label``; ``work``: validate only."""
    value = {"0": 0, "-1": -1, "huge": HUGE_INT if integer else HUGE_REAL}[label]

    def make():
        return build(name, **{param: value})

    if label == "huge" and param in WORK:
        return (lambda: make()._validate_params()), True
    return (lambda: fit(make())), False


# What an error may call a parameter instead of its own name.
ALIASES = {"cv": "n_splits"}


def _hyper_expectation(param, label):
    if label == "huge" and param in CAPPED:
        return RefusedOrAccepted(rf"\b{param}\b", warns=(UserWarning, CAPPED[param]))
    alias = f"|{ALIASES[param]}" if param in ALIASES else ""
    return RefusedOrAccepted(rf"'{param}'|\b{param}\b{alias}")


# ------------------------------------------------------------------- tests
def _params():
    rows = []
    for name in public_estimators():
        est = build(name)
        kind = kind_of(est)
        params = est.get_params()
        for case, (kinds, where, call, expect) in CASES.items():
            if kind in kinds and (where is None or where(est)):
                rows.append((name, case, call, expect))
        if "network" in params:
            for case, (call, expect) in NETWORK_CASES.items():
                rows.append((name, case, call, expect))
        if "privacy" in params:
            for case, (call, expect) in PRIVACY_CASES.items():
                rows.append((name, case, call, expect))
        for param, integer in _numeric_params(name):
            for label in ("0", "-1", "huge"):
                rows.append((name, f"{param}={label}", (param, integer, label), None))
    marked = []
    for name, case, call, expect in rows:
        reason = PENDING.get((name, case))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        marked.append(pytest.param(name, case, call, expect, marks=marks,
                                   id=f"{name}-{case}"))
    return marked


@pytest.mark.parametrize("name, case, call, expect", _params())
def test_bad_input_is_refused_by_name_or_has_its_effect(name, case, call, expect):
    kind = kind_of(build(name))
    # Threads: n_jobs=-1 then costs no process start-up.
    with parallel_config(backend="threading"):
        if isinstance(call, tuple):
            param, integer, label = call
            run, work = _hyper_case(name, param, integer, label)
            if work:
                run()  # validation accepts the budget; running that long is its effect
                return
            _hyper_expectation(param, label).check(run)
            return
        expect.check(lambda: call(lambda **p: build(name, **p), kind))


def test_every_public_estimator_is_probed():
    names = public_estimators()
    assert len(names) >= 12
    probed = {param.values[0] for param in _params()}
    assert probed == set(names)
