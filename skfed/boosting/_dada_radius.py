"""Dada's l1 radius chosen on held-back rows (``beta="auto"``).

Every node holds back a quarter of its rows of positive weight (nodes with
4 such rows or more; drawn from a public stream of ``random_state``), the
federation is fitted on the rest at each candidate radius of
:data:`RADII` (the coupling ``mu`` scaled so that ``mu beta`` stays what
it is at ``beta = 3``), and every holding node scores both fits' models on
its held-back rows.  The larger radius is chosen only when the mean over
those nodes of the accuracy gain exceeds :data:`Z_CHOOSE` standard errors
of the per-node gains (a one-sided test at about 0.025 against "the larger
radius is no better"), otherwise the radius stays 3.  The gains are summed
up the fit's aggregation tree (``sum d_k``, ``sum d_k^2`` as float64 and
the number of nodes as an int32 per subtree) and the root sends the chosen
radius back down (one float64); the federation is then fitted on all its
rows at that radius.  The candidates' messages, the tree's and the final
fit's are all in ``communication_``.

Why (``benchmarks/dada_radius_auto.py``): on HAR sitting the radius 3
caps the models (a pooled node with the same stumps scores 94.7 at
``beta = 3`` and 96.8 at 10) while every rule raising it by formula lost
0.8-1.9 points on a held-out family (``benchmarks/dada_beta_radius.py``);
held-back rows tell the two cases apart.
"""

import copy
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_random_state

from ..network import payload_bytes, resolve_network
from .._join_params import check_join_params
from ._agreement import _tree_round_trip
from ._base import _BaseGraphPersonalized

__all__ = ["RADII", "Z_CHOOSE", "held_back_rows", "radius_decision", "fit_auto_radius"]

RADII = (3.0, 10.0)  # the default radius, then the larger candidate
Z_CHOOSE = 2.0  # standard errors of the mean gain the larger radius needs
MIN_HOLDING_ROWS = 4  # a node holds back floor(n / 4) of its n >= 4 rows


def held_back_rows(offsets, sws, rng):
    """Mask of the held-back rows (rows sorted by node, ``offsets`` the
    nodes' boundaries): ``floor(n_k / 4)`` of node ``k``'s ``n_k``
    positive-weight rows, drawn by ``rng.permutation``, when ``n_k >= 4``."""
    held = np.zeros(len(sws), dtype=bool)
    for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist()):
        rows = a + np.flatnonzero(sws[a:b] > 0)
        if len(rows) >= MIN_HOLDING_ROWS:
            held[rng.permutation(rows)[: len(rows) // MIN_HOLDING_ROWS]] = True
    return held


def radius_decision(sum_gain, sum_sq, n_nodes):
    """``(choose_larger, gain, se, z)`` from the sums the tree delivers.

    ``gain`` is the mean per-node accuracy gain, ``se`` its standard error
    (sample standard deviation over ``sqrt(n_nodes)``); the larger radius
    is chosen when ``gain > 0`` and ``gain > Z_CHOOSE se`` (two holding
    nodes at least).  ``z`` is ``gain / se`` (``nan`` when undefined).
    """
    n = int(n_nodes)
    if n < 2:
        return False, (sum_gain / n if n else 0.0), float("nan"), float("nan")
    gain = sum_gain / n
    var = max(0.0, (sum_sq - n * gain * gain) / (n - 1))
    se = float(np.sqrt(var / n))
    z = gain / se if se > 0 else (float("nan") if gain == 0 else np.sign(gain) * np.inf)
    return bool(gain > 0 and gain > Z_CHOOSE * se), float(gain), se, float(z)


def _node_accuracy(pred, y, w, node, n_nodes):
    """Weighted accuracy of every node on its rows (nan for a node with none)."""
    mass = np.bincount(node, weights=w, minlength=n_nodes)
    hits = np.bincount(node, weights=w * (pred == y), minlength=n_nodes)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(mass > 0, hits / mass, np.nan)


def _public_seed(random_state):
    """A seed drawn from a copy of ``random_state`` (the fit's own stream is
    left as a fit at a fixed radius reads it)."""
    return int(check_random_state(copy.deepcopy(random_state)).randint(2**31 - 1))


def _refuse(est):
    if est.privacy is not None:
        raise ValueError(
            "beta='auto' chooses the radius on held-back rows, which the privacy "
            "accounting does not cover; give a numeric beta with privacy "
            "(the private refit chooses its own radius beta_f).")
    if est.communication_budget is not None:
        raise ValueError(
            "beta='auto' runs three fits (two candidates and the final one); "
            "communication_budget bounds one fit: give a numeric beta with it.")


def fit_auto_radius(est, X, y, groups, sample_weight):
    """``est.fit`` with ``beta="auto"``; returns ``est``."""
    est._validate_params()
    _refuse(est)
    with warnings.catch_warnings():  # (the final fit validates the same inputs, warns once)
        warnings.simplefilter("ignore")
        Xs, Y, sws, layout, _ = est._prepare(X, y, groups, sample_weight)
    nodes, classes, K = est.nodes_, est.classes_, len(est.nodes_)
    codes = (Y[0] > 0).astype(np.intp) if Y.shape[0] == 1 else np.argmax(Y, axis=0)
    labels = classes[codes]
    node = np.repeat(np.arange(K), np.diff(layout.offsets))
    seed = _public_seed(est.random_state)
    public = seed if est.random_state is None else est.random_state
    held = held_back_rows(layout.offsets, sws, np.random.default_rng([seed, 0xDADA]))
    keep = ~held
    scores, logs = [], []
    for beta in RADII:
        # (both candidates read one public stream, random_state=None too: a
        # paired comparison; a RandomState instance is copied, as clone does;
        # only the final fit runs the newcomers' gate)
        cand = clone(est).set_params(beta=beta, mu=est.mu * RADII[0] / beta, group_column=None,
                                     random_state=copy.deepcopy(public), join_neighbours="graph")
        cand.fit(Xs[keep], labels[keep], groups=nodes[node[keep]], sample_weight=sws[keep])
        logs.append(cand.communication_)
        if held.any():
            pred = cand.predict(Xs[held], groups=nodes[node[held]])
            scores.append(_node_accuracy(pred, labels[held], sws[held].astype(np.float64),
                                         node[held], K))
    holding = np.zeros(K, dtype=bool) if not held.any() else ~np.isnan(scores[0])
    gains = scores[1][holding] - scores[0][holding] if held.any() else np.zeros(0)
    larger, gain, se, z = radius_decision(float(gains.sum()), float(np.sum(gains ** 2)),
                                          int(holding.sum()))
    simulation = resolve_network(est.network).start(K, server=False, random_state=seed,
                                                    node_labels=nodes)
    _tree_round_trip(simulation, payload_bytes(n_float64=2, n_int32=1),
                     payload_bytes(n_float64=1))
    beta = RADII[int(larger)]
    final = clone(est).set_params(beta=beta, mu=est.mu * RADII[0] / beta,
                                  random_state=est.random_state)  # (a user's instance advances)
    final.fit(X, y, groups=groups, sample_weight=sample_weight)
    params = est.get_params(deep=False)
    # an earlier fit's attributes go (what a fit at a fixed radius drops
    # itself); scikit-learn's own private attributes stay
    for name in [k for k in vars(est) if k not in params and (
            (k.endswith("_") and not k.startswith("_")) or k == "_join_seed")]:
        del est.__dict__[name]
    est.__dict__.update({k: v for k, v in vars(final).items() if k not in params})
    log = logs[0].combine(logs[1]).combine(simulation.log(node_labels=nodes))
    log = log.combine(final.communication_)
    est.communication_ = log
    est.n_bytes_sent_, est.n_messages_ = log.total_bytes, log.total_messages
    est.bytes_per_round_ = log.bytes_per_round
    # add_nodes solves the fitted problem (radius and coupling chosen), but
    # set_params is checked against the values the user gave ("auto", mu)
    est._radius_join_params = dict(final._join_params)
    est._join_params = {**final._join_params, "beta": "auto", "mu": est.mu}
    est.radius_selection_ = {"gain": gain, "se": se, "z": z, "n_nodes": int(holding.sum()),
                             "n_held_back": int(held.sum())}
    return est


class AutoRadiusJoinMixin:
    """``add_nodes`` of a ``beta="auto"`` fit: the join reads the chosen
    radius and coupling (``beta_``, ``mu_``)."""

    def add_nodes(self, X, y, groups=None, sample_weight=None):
        fitted = getattr(self, "_radius_join_params", None)
        if fitted is None:
            return super().add_nodes(X, y, groups=groups, sample_weight=sample_weight)
        check_join_params(self)  # against the user's values ("auto")
        given = self.beta, self.mu, self._join_params
        self.beta, self.mu, self._join_params = fitted["beta"], fitted["mu"], fitted
        try:
            return super().add_nodes(X, y, groups=groups, sample_weight=sample_weight)
        finally:
            self.beta, self.mu, self._join_params = given


AutoRadiusJoinMixin.add_nodes.__doc__ = _BaseGraphPersonalized.add_nodes.__doc__
