"""One-shot support recovery (Barik & Honorio) on Flower.

One query round: every client that the run's (replayed) network lets
answer runs skfed's Cython client pass on its own rows and sends its
support as packed bits (``ceil(d / 8)`` bytes, exactly skfed's byte
model); the server takes the vote.  Mirrors ``_recover_support`` of
:mod:`skfed.support`.
"""


import numpy as np
from scipy import sparse

from flwr.app import ArrayRecord, ConfigRecord, Message, RecordDict

from .._base import check_sample_weight
from ..network import resolve_network
from ..support._neighbours import sketch_signs
from ..support._rules import _client_pass, ols_client, wide_clients
from ._flower_records import SUPPORT, _array, _arrays_of, _config_of, _hello_reply

ACCEPT_SPARSE = True


def check_supported(estimator):
    if getattr(estimator, "privacy", None) is not None:
        raise ValueError(
            f"The Flower engine does not run {type(estimator).__name__}'s "
            "randomized response on its clients yet, so privacy= is refused "
            "there; fit the estimator itself (simulated network) for a private vote."
        )
    if getattr(estimator, "n_reported", "auto") != "auto":
        raise ValueError(
            f"The Flower engine runs {type(estimator).__name__}'s clients with "
            "n_reported='auto' only (every client sends all its bits); got "
            f"n_reported={estimator.n_reported!r}."
        )
    return None


def hello_reply(node, estimator):
    reply = _hello_reply(node, estimator)
    reply.config_records["config"]["n_features"] = int(node.X.shape[1])
    weights = node.sample_weight
    n_positive = node.X.shape[0] if weights is None else int(np.sum(np.asarray(weights) > 0))
    reply.config_records["config"]["n_positive"] = int(n_positive)
    return reply


def hello_items(estimator):
    return None


def _support_message(estimator, node, message):
    control = _config_of(message.content, "control")
    X, y = node.X, node.y
    dtype = X.dtype
    weights = check_sample_weight(node.sample_weight, X, dtype=dtype)
    if not weights.sum() > 0:
        raise ValueError(
            f"Node {node.label!r} has no sample with a positive sample_weight; every "
            "node needs at least one to compute its statistics."
        )
    if sparse.issparse(X):
        X = sparse.csr_matrix(X)
    else:
        X = np.ascontiguousarray(X)
    offsets = np.array([0, X.shape[0]], dtype=np.intp)
    # vote="sign": the fit's seed for the coins of undefined statistics and
    # this client's node index (-1: the selection vote).
    sign_seed = int(control.get("sign_seed", -1))
    packed, _, _, tested = _client_pass(
        X, np.ascontiguousarray(y, dtype=dtype), np.ascontiguousarray(weights), offsets,
        np.array([float(control["lambda"])]), float(control["z"]), bool(control["auto"]),
        bool(estimator.fit_intercept), None,
        sign_seed=None if sign_seed < 0 else sign_seed,
        first_node=int(control.get("node", 0)),
        wide_marginal=bool(control.get("wide_marginal", False)),
        # the fit's very-wide switch (read from every answering client's count)
        wide=bool(control["wide"]) if "wide" in control else None,
    )
    arrays = {"bits": _array(packed[0])}
    if tested is not None:
        # the features it could test, sent only when it could not test them all
        arrays["tested"] = _array(tested[0])
    sketch_seed = int(control.get("sketch_seed", -1))
    if sketch_seed >= 0:
        # a small client's sketch of its rows for the neighbour stage
        # (skfed.support._neighbours), the simulated fit's bits
        arrays["sketch"] = _array(sketch_signs(
            X, weights, offsets, [0], bool(estimator.fit_intercept), sketch_seed,
            nodes=[int(control.get("node", 0))])[0])
    return RecordDict({"skfed": ArrayRecord(arrays)})


def register_client(app, estimator, node_data):
    @app.query("skfed_support")
    def support(message, context):
        node = node_data(context)
        return Message(_support_message(estimator, node, message), reply_to=message)


def fit_server(fitted, driver):
    est = fitted
    est._validate_params()
    infos = driver.hello["by_index"]
    n_nodes = len(infos)
    d = int(infos[0]["n_features"])
    # (privacy= is refused on this engine; the clients' sizes are in the hello)
    est._resolve_vote(d, [int(infos[t]["n_positive"]) for t in range(n_nodes)])
    est._check_sign_vote()
    lam, auto = est._client_lambdas(n_nodes)
    z = est._client_z()
    sign_seed = est._sign_seed() if est._sign_vote() else -1  # as the simulated fit

    network = resolve_network(est.network)
    sim = network.start(n_nodes, server=True, random_state=est.random_state,
                        node_labels=est.nodes_)
    active, work = sim.draw_round()
    abstain = est._abstainers([int(infos[t]["n_positive"]) for t in range(n_nodes)], auto)
    answered = active & (work >= 1.0) & ~abstain
    senders = np.flatnonzero(answered).astype(np.intp)
    n_positive = np.array([int(infos[t]["n_positive"]) for t in range(n_nodes)])
    sketching = np.zeros(n_nodes, dtype=bool)
    sketch_seed = -1
    # the very-wide switch reads the answering clients' counts, as the simulated fit
    reached = active & (work >= 1.0)
    wide_counts = n_positive[reached] if reached.any() else n_positive
    est._wide_marginal = est._marginal_when_wide(auto, None, False, wide_counts, d)
    est._wide = wide_clients(wide_counts, d)  # (a join under privacy keeps it)
    if est._sends_sketch(auto, None, None, wide_counts, d):  # as the simulated fit
        sketching = answered & ~ols_client(n_positive, d, bool(est.fit_intercept))
        if sketching.any():
            sketch_seed = est._sign_seed()
    contents = {
        int(t): RecordDict(
            {"control": ConfigRecord(
                {"lambda": float(lam[t]), "z": z, "auto": bool(auto),
                 "sign_seed": sign_seed, "node": int(t),
                 "wide_marginal": bool(est._wide_marginal),
                 "wide": est._wide,
                 "sketch_seed": sketch_seed if sketching[t] else -1})}
        )
        for t in senders
    }
    nbytes = (d + 7) // 8
    replies, _, _ = driver.exchange(
        SUPPORT, contents, 0, up_items=lambda t, reply: {
            key: nbytes for key in _arrays_of(reply, "skfed")},
    )
    packed = np.zeros((n_nodes, nbytes), dtype=np.uint8)
    tested = None
    for t in senders:
        arrays = _arrays_of(replies[int(t)], "skfed")
        packed[t] = arrays["bits"]
        if "tested" in arrays:
            if tested is None:
                tested = np.zeros_like(packed)
                tested[:] = np.packbits(np.ones(d, dtype=bool), bitorder="little")
            tested[t] = arrays["tested"]
    sketch = None
    if sketching.any():
        small = np.flatnonzero(sketching)
        sketch = (small, np.array([_arrays_of(replies[int(t)], "skfed")["sketch"]
                                   for t in small], dtype=np.uint8))
    # Replayed faults, byte counts and the vote: the simulated fit's own code.
    est._server_vote(packed, answered, sim, d, auto=auto, n_positive=n_positive,
                     tested=tested, sketch=sketch)
    est._set_communication(sim)
    return est
