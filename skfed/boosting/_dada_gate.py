"""Dada's feature-mean gate with messages as small as Dada's models (issue 32).

The gate is :func:`skfed._mean_neighbours.run_gate`'s (the same four steps,
the same hub, the same gains and ``t``), but its messages are sized for a
Dada fit, whose own messages are Frank-Wolfe steps (a stump index and a
sign) and whose models are sparse (about 20-40 of 200-1,000 base
predictors).  The shared gate sends every mass-weighted model to the hub
and the total back to every node *dense* in float64 (``n_base + 1`` values
each way), and the feature means in float64: on HAR (561 features, 1,053
base predictors, float32 fit) that was 0.27 MB of the gate's 0.37 MB, 18 %
of a 2.05 MB fit.  Here:

* step 1: a node's feature mean in the fit's dtype (``d`` values, the
  model's float size) and its mass (one float64);
* step 3: a node sends the hub its mass-weighted model as a model message
  (:func:`skfed.graph.model_message_bytes` in the fit's dtype: dense or
  ``nnz`` index-value pairs, whichever is smaller) and its mass; the hub
  sends the total back the same way (its support is the union of the
  nodes' supports: 61 of 201 base predictors on Landmine, 168 of 1,053
  on HAR, seed 0) with the total mass.

The values sent are the values used: a float32 fit's means and shares are
rounded to float32 before the hub sums them; a float64 fit's gate is the
shared gate's to the bit (the tests compare them).  Measured (``python
benchmarks/dada_gate_bytes.py --datasets landmine,har,moons,related --seeds
0,1,2``; the gate's bytes over the fit's other bytes): Landmine 2.0-2.2 %
(was 4 %), HAR 4.5-4.7 % (was 18-22 %; its 46 % is now the 561 means),
rotated moons 1.7 %, related-* 0.8-2.1 %.

After an open gate the scatter round of the one-class join's Mahalanobis
placement is :func:`skfed._mean_scatter.whitening_round`, the one Perso-lin
and MOCHA use: its hub keeps the positive part of each received scatter
and leaves out one over the size limit
(:func:`skfed._mean_scatter.size_limit`, given the masses the hub holds
from step 1: ``CAP`` times the median node's size, wider with nodes of
few rows; rogue nodes), which leaves an honest fit's map the plain sum's,
bit for bit (Landmine seeds 0 and 3: the same map, predictions and bytes).
"""

import numpy as np

from .._mean_neighbours import (
    GATE_T,
    N_NEAREST,
    _deliver,
    gate_gains,
    hub_answers,
    node_means,
)
from .._mean_scatter import WHITEN_MAX_FEATURES as _WHITEN_MAX_FEATURES
from .._mean_scatter import hub_whitening, whitening_round
from ..graph import model_message_bytes
from ..network import float_bytes, payload_bytes

__all__ = ["run_gate", "hub_whitening", "WHITEN_MAX_FEATURES"]

# An open gate's nodes send the hub their within-node scatter (the shared
# round, :func:`skfed._mean_scatter.whitening_round`) up to this many
# features; 0 turns the whitening off.
WHITEN_MAX_FEATURES = _WHITEN_MAX_FEATURES


def _values(n, dtype):
    """``payload_bytes`` of ``n`` values of ``dtype`` (float32 or float64)."""
    return n * float_bytes(dtype)


def run_gate(Z, Y, sw, offsets, raw_X, models, sim, m=N_NEAREST):
    """Run the gate over Dada's fitted nodes, counting its messages in ``sim``.

    Parameters and returns as :func:`skfed._mean_neighbours.run_gate`;
    ``models.dtype`` (the fit's) is the dtype of the means and models sent.
    """
    n = len(offsets) - 1
    dtype = np.dtype(models.dtype)
    own_means, masses = node_means(raw_X, sw, offsets)
    means = own_means.astype(dtype).astype(np.float64)       # as sent
    rogue = np.asarray(sim.rogue, dtype=bool)
    nodes = np.arange(n, dtype=np.intp)
    # Step 1: means (fit's dtype) and masses (float64) up to the hub, fitted
    # node 0; it answers each node with its m nearest others and their masses.
    sent = np.column_stack([means, masses])
    if rogue.any():
        sent = sim.corrupt_value_rows(sent, nodes)
        sent[:, :-1] = sent[:, :-1].astype(dtype)
    seen_means, seen_masses = sent[:, :-1], np.abs(sent[:, -1])
    rest = nodes[1:]
    hub = np.zeros(n - 1, np.intp)
    _deliver(sim, rest, hub,
             np.full(n - 1, _values(means.shape[1], dtype) + payload_bytes(n_float64=1)))
    near = hub_answers(sim, seen_means, seen_means, m, exclude=nodes)
    _deliver(sim, hub, rest, np.full(n - 1, payload_bytes(n_float64=m, n_int32=m)))
    flat = np.asarray(models).reshape(n, -1)
    answers = (sim.corrupt_value_rows(flat.astype(np.float64), nodes).astype(dtype)
               if rogue.any() else flat)
    # Step 2: the m nearest peers' models.
    asker = np.repeat(nodes, [len(c) for c in near])
    peer = np.concatenate(near + [np.zeros(0, dtype=np.intp)]).astype(np.intp)
    payloads = model_message_bytes(answers, dtype)
    _deliver(sim, peer, asker, payloads[peer], requests=True)
    answers = answers.astype(np.float64).reshape(models.shape)
    # Step 3: mass-weighted models (model messages) summed at node 0, the
    # total back (a model message of its support) with the total mass.
    shares = (seen_masses[:, None] * answers.reshape(n, -1)).astype(dtype)
    total = shares.astype(np.float64).sum(axis=0).astype(dtype)
    mass_total = float(seen_masses.sum())
    mass = payload_bytes(n_float64=1)
    _deliver(sim, rest, hub, model_message_bytes(shares[1:], dtype) + mass)
    _deliver(sim, hub, rest,
             np.full(n - 1, int(model_message_bytes(total[None], dtype)[0]) + mass))
    total = total.astype(np.float64).reshape(models.shape[1:])
    shares = shares.astype(np.float64).reshape(models.shape)
    # Step 4: each node's gain on its own rows; t at node 0 and back.
    gains, t = gate_gains(sim, Z, Y, sw, offsets, answers, seen_masses, near,
                          lambda i: (total - shares[i]) / (mass_total - seen_masses[i]))
    is_open = bool(t > GATE_T)
    whiten = (whitening_round(raw_X, sw, offsets, own_means, dtype, sim,
                              max_features=WHITEN_MAX_FEATURES, hub_means=seen_means,
                              hub_masses=seen_masses)
              if is_open else None)
    return {"t": t, "mean_gain": float(np.mean(gains)), "gains": gains, "open": is_open,
            "m": int(m), "means": seen_means, "masses": seen_masses, "whiten": whiten}
