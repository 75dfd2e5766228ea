"""Kernelized MOCHA in the exact kernel mode on Flower (support-vector exchange).

The server runs the simulated fit's round protocol object
(:class:`skfed.multitask._protocol._RoundProtocol`: the same draws, rounds,
Omega updates and stop, and the same byte counts through the bookkeeping of
``_KernelState``, which the server runs without data) and carries its
messages over Flower.  Each node keeps in its Flower ``Context``: its
dual variables, xorshift state, the margin states ``S_t`` (one row per
binary problem and source node), the kernel rows of the support vectors it
has received (its cache, keyed by the vectors' global indices), which of
its own vectors the server already has, and its ``Sigma`` row.

Exchanges of one round ``r`` (the simulation's round, step by step):

* ``round`` (nodes the network lets train): ``steps`` and, when the node's
  copy is stale, its ``Sigma`` row and ``rho``; the node solves its local
  subproblem, adds its own changes to ``S_t`` and answers with the
  changed samples' local indices and dual changes, preceded by the vectors
  the server does not have yet.
* ``eval`` (every node): the relayed changes of the other nodes this round
  (global index and ``dalpha / W_source`` per binary problem, plus the
  vectors the node has not cached), and its current ``Sigma`` row; the
  node updates ``S_t`` and answers its three gap sums and, when Omega is
  learned, its row of ``G``.  The relay is eager (every node is kept up to
  date, so the gap is exact); skfed's byte model counts the same vectors
  and the net changes lazily, when a node takes part: the traffic log
  moves those bytes from ``sv_relay`` to ``sv`` as the model counts them.
* ``omega`` (every node, only when Omega changed): the gap at the new
  ``Sigma``.
* ``final`` (every node, once): the node's dual coefficients, for the
  fitted estimator (``dual_coef_``, ``support_vectors_``).

The returned-model rule (issue 28: when ``max_rounds`` ends a
learned-Omega fit in the middle of a W-step, the better of the current and
the best W-step's models, :meth:`~skfed.multitask._protocol._RoundProtocol.best_or_current`)
costs no message: a node told ``keep`` (with its next message after the
server kept a W-step's models) keeps its dual variables, the server
judges the current models with the ``G`` rows of the last ``eval``, and
``final`` carries ``restore`` when the kept models are returned.
"""

from types import SimpleNamespace

import numpy as np

from flwr.app import ArrayRecord, ConfigRecord, RecordDict

from .._core._kernels import pairwise_kernel_fast
from .._core._multitask_fast import local_solve_kernel, node_gap_terms, update_state
from ..kernels import kernel_params, pairwise_kernel, resolve_kernel
from ..multitask._compression import _FLOAT
from ..multitask._protocol import _RoundProtocol, _objectives, _steps
from ..multitask._state import _LOSSES, _KernelState
from ._flower_records import EXACT, _array, _arrays_of, _config_of

_STATE = "skfed.exact"
_STATE_ARRAYS = "skfed.exact.arrays"


# ------------------------------------------------------------ node side
def _kernel(spec, bias, A, B):
    out = np.empty((A.shape[0], B.shape[0]), dtype=B.dtype)
    if spec.is_callable:
        out[...] = pairwise_kernel(A, B, kernel=spec)
    else:
        kind, gamma, coef0, degree = kernel_params(spec)
        pairwise_kernel_fast(A, B, kind, gamma, coef0, degree, out)
    if bias:
        out += bias * bias
    return out


def exact_message(estimator, node, message, context, helpers):
    """The node's answer to one exact-mode message (``helpers``: targets, weights)."""
    targets, node_weights = helpers
    content = message.content
    control = _config_of(content, "control")
    arrays = _arrays_of(content, "skfed")
    extra = _arrays_of(content, "extra")
    state = context.state
    config = dict(state.config_records[_STATE]) if _STATE in state else {}
    saved = (
        {k: v.numpy() for k, v in state.array_records[_STATE_ARRAYS].items()}
        if _STATE_ARRAYS in state else {}
    )
    X = np.ascontiguousarray(node.X)
    n_t = X.shape[0]
    if control.get("setup", False):
        config = {"index": int(control["index"]), "rng": int(control["seed"]),
                  "gamma": control.get("gamma"), "lam": float(control["lam"])}
        saved = {k: v for k, v in extra.items()}
    classes = saved.get("classes")
    Y = targets(node, estimator, classes)
    sw, total = node_weights(node)
    P = Y.shape[0]
    counts = np.asarray(saved["counts"], dtype=np.intp)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    m = len(counts)
    t = int(config["index"])
    spec = resolve_kernel(estimator.kernel, gamma=config.get("gamma"), degree=estimator.degree,
                          coef0=estimator.coef0, n_features=X.shape[1])
    bias = float(estimator.intercept_scaling) if estimator.fit_intercept else 0.0
    lam = float(config["lam"])  # 1 / (C total sample weight), from the server
    loss = _LOSSES[estimator.loss]()
    if "g" in saved:
        g = np.array(saved["g"], dtype=np.float64, order="C")
        S = np.array(saved["S"], dtype=np.float64, order="C")
        cache = np.array(saved["cache"], dtype=X.dtype, order="C")
        cache_ids = np.asarray(saved["cache_ids"], dtype=np.int64)
        sent = np.asarray(saved["sent"], dtype=bool).copy()
    else:
        g = np.zeros((P, n_t))
        S = np.zeros((P * m, n_t))
        cache = np.zeros((0, n_t), dtype=X.dtype)
        cache_ids = np.zeros(0, dtype=np.int64)
        sent = np.zeros(n_t, dtype=bool)
    reply = {}
    if control.get("keep", False):
        # The server kept the models of the W-step this node last evaluated
        # as the best so far: keep their dual variables.
        saved["g_best"] = g.copy()
    if "sigma" in arrays:  # the node's Sigma row and rho, for its local solves
        saved["sigma_row"] = np.asarray(arrays["sigma"][:m], dtype=np.float64)
        config["rho"] = float(arrays["sigma"][m])
    if control.get("train", False):
        block = _kernel(spec, bias, X, X) if not spec.is_callable else None
        if block is None:
            block = np.ascontiguousarray(pairwise_kernel(X, kernel=spec), dtype=X.dtype)
            if bias:
                block += bias * bias
        sigma_row = saved["sigma_row"]
        p = np.einsum("u,kui->ki", sigma_row, S.reshape(P, m, -1)) / lam
        c = config["rho"] * sigma_row[t] / (lam * total)
        theta = 0.0 if estimator.local_gap_target is None else float(estimator.local_gap_target)
        rng = np.array([config["rng"]], dtype=np.uint32)
        deltas = np.zeros((P, n_t))
        perm = np.empty(n_t, dtype=np.intp)
        for k in range(P):
            gk = np.ascontiguousarray(g[k])
            local_solve_kernel(block, Y[k], sw, gk, np.ascontiguousarray(p[k]), deltas[k], c,
                               loss, int(control["steps"]), theta, rng, perm)
            g[k] = gk
        config["rng"] = int(rng[0])
        # Own changes into S_t (rows k m + t), as _KernelState._update_node.
        idx, rows, coefs = [], [], []
        for k in range(P):
            nz = np.flatnonzero(deltas[k] != 0)
            idx.append(nz)
            rows.append(np.full(nz.size, k * m + t, dtype=np.intp))
            coefs.append(deltas[k, nz] / total)
        idx = np.concatenate(idx).astype(np.intp)
        if idx.size:
            update_state(block, idx, np.concatenate(rows), np.concatenate(coefs), S)
        changed = np.flatnonzero(np.any(deltas != 0, axis=0))
        new = changed[~sent[changed]]
        sent[new] = True
        reply["sv_index"] = _array(changed.astype(np.int32))
        reply["sv_delta"] = _array(np.ascontiguousarray(deltas[:, changed]))
        reply["sv_vectors"] = _array(np.ascontiguousarray(X[new]))
    if "relay_index" in extra:
        ridx = np.asarray(extra["relay_index"], dtype=np.int64)
        rcoef = np.asarray(extra["relay_coef"], dtype=np.float64)
        vectors = extra.get("relay_vectors")
        fresh = ridx[~np.isin(ridx, cache_ids)]
        if fresh.size:
            rows_new = np.ascontiguousarray(vectors, dtype=X.dtype)
            if rows_new.shape[0] != fresh.size:
                raise ValueError("relayed vectors do not match the node's cache.")
            cache = np.concatenate([cache, _kernel(spec, bias, rows_new, X)], axis=0)
            cache_ids = np.concatenate([cache_ids, fresh])
        order = np.argsort(cache_ids, kind="stable")
        slot_of = order[np.searchsorted(cache_ids[order], ridx)]
        src = np.searchsorted(offsets, ridx, side="right") - 1
        slots, rows, coefs = [], [], []
        for k in range(P):
            nz = np.flatnonzero(rcoef[k] != 0)
            slots.append(slot_of[nz])
            rows.append(k * m + src[nz])
            coefs.append(rcoef[k, nz])
        slots = np.concatenate(slots).astype(np.intp)
        if slots.size:
            update_state(np.ascontiguousarray(cache), slots,
                         np.concatenate(rows).astype(np.intp), np.concatenate(coefs), S)
    if "sigma_eval" in extra:
        sigma_row = np.asarray(extra["sigma_eval"][:m], dtype=np.float64)
        f = np.einsum("u,kui->ki", sigma_row, S.reshape(P, m, -1)) / lam
        sums = np.zeros((1, 3))
        node_offsets = np.array([0, n_t], dtype=np.intp)
        for k in range(P):
            node_gap_terms(np.ascontiguousarray(f[k]), np.ascontiguousarray(Y[k]), sw,
                           np.ascontiguousarray(g[k]), node_offsets, loss, sums)
        reply["gap"] = _array(sums[0])
        if control.get("gram", False):
            alpha = g * sw
            reply["gram"] = _array(np.einsum("ki,kui->u", alpha, S.reshape(P, m, -1)) / total)
    if control.get("final", False):
        if control.get("restore", False):  # the fit returns the kept models
            g = np.array(saved["g_best"], dtype=np.float64, order="C")
        reply["alpha"] = _array(g * sw)
    config["rho"] = config.get("rho", 0.0)
    saved.update({"g": g, "S": S, "cache": cache, "cache_ids": cache_ids,
                  "sent": sent.astype(np.uint8)})
    state[_STATE] = ConfigRecord({k: v for k, v in config.items() if v is not None})
    state[_STATE_ARRAYS] = ArrayRecord({k: _array(v) for k, v in saved.items()})
    return RecordDict({"skfed": ArrayRecord(reply), "control": ConfigRecord({})})


# ----------------------------------------------------------- server side
class _ExactKeeper:
    """The exact mode server's side of the returned-model rule: the nodes
    keep the dual variables (told with their next message), the server the
    last reported ``G`` rows."""

    def __init__(self, m):
        self.pending = np.zeros(m, dtype=bool)  # nodes not yet told to keep
        self.G = None
        self.restored = False

    def keep(self):
        self.pending[:] = True

    def gram(self):
        return 0.5 * (self.G + self.G.T)

    def restore(self, models):
        self.restored = True

    def control(self, t, control):
        """``control`` with the node's pending ``keep``, which is then sent."""
        if self.pending[t]:
            control["keep"] = True
            self.pending[t] = False
        return ConfigRecord(control)


def fit_exact(run):
    """The exact kernel mode's server loop (``run``: the primal ``_Run`` set up by hello).

    The protocol object (:class:`~skfed.multitask._protocol._RoundProtocol`)
    draws the faults, counts the byte model's messages and decides the
    Omega steps and the stop, as in the simulated fit; this loop carries
    the messages.
    """
    est, driver = run.est, run.driver
    m, P, d = run.m, run.n_problems, run.d
    counts, totals = run.counts, run.totals
    everyone = np.arange(m, dtype=np.intp)
    traffic = driver.traffic
    lam = est._regularization(float(totals.sum()))  # the total sample weight
    protocol = _RoundProtocol(est, m)
    seeds = protocol.seeds
    learn, sigma = est._initial_task_covariance(m)
    gamma = _pooled_gamma(est, run.infos, d) if not callable(est.kernel) else None
    gamma_item = {"gamma": _FLOAT} if protocol.add_gamma_setup() else {}
    spec = resolve_kernel(est.kernel, gamma=gamma, degree=est.degree, coef0=est.coef0,
                          n_features=d)
    est._kernel_spec = spec
    est.gamma_ = None if gamma is None else float(gamma)
    bias = float(est.intercept_scaling) if est.fit_intercept else 0.0
    needed = np.ones((m, m), dtype=bool) if learn else (sigma != 0) | np.eye(m, dtype=bool)
    # The byte model's bookkeeping of the relayed vectors and changes (no data).
    bk = _KernelState.server_side(counts, P, d, run.dtype_bytes, totals)
    offsets = bk.layout.offsets
    delivered = bk.node_has.copy()  # what the eager relay gave each node
    vectors = {}  # global index -> the vector, as the server received it
    relay_pool = [[] for _ in range(m)]  # eval messages with uncounted relay bytes
    last_sigma_entry = [None] * m
    protocol.begin(sigma=sigma, learn=learn, lam=lam, totals=totals, counts=counts,
                   n_problems=P, sigma_info_floats=bk.sigma_info_floats)
    s_info = protocol.sigma_info
    keeper = protocol.keeper = _ExactKeeper(m)

    def consume(u, nbytes):
        nbytes = int(nbytes)
        for entry in relay_pool[u]:
            if not nbytes:
                break
            take = min(nbytes, entry["items"].get("sv_relay", 0))
            traffic.relabel(entry, "sv_relay", "sv", take)
            nbytes -= take
        relay_pool[u] = [e for e in relay_pool[u] if e["items"].get("sv_relay", 0)]
        if nbytes:
            raise AssertionError(f"skfed's byte model counts relay bytes node {u} never got.")

    def downlink(active, flush=False):
        payloads = bk.downlink(active, protocol.sigma, flush=flush)
        for a, u in enumerate(active):
            consume(u, payloads[a])
        return payloads

    # Setup: seeds, indices, gamma, classes, node sizes.
    contents = {}
    for t in range(m):
        # lambda travels folded into the Sigma entries in the byte model
        # (at no cost): here in the setup's control record.
        control = {"setup": True, "seed": int(seeds[t]), "index": t, "lam": float(lam)}
        if gamma is not None:
            control["gamma"] = float(gamma)
        extra = {"counts": _array(counts.astype(np.int64))}
        if hasattr(est, "classes_"):
            extra["classes"] = _array(est.classes_)
        contents[t] = RecordDict({"skfed": ArrayRecord({}), "extra": ArrayRecord(extra),
                                  "control": ConfigRecord(control)})
    driver.exchange(EXACT, contents, 0, down_items={t: gamma_item for t in range(m)},
                    purpose="setup")

    def sigma_info(t):
        return np.concatenate([protocol.sigma[t], [protocol.rho]])

    def evaluate(round_, changes, gram):
        """Relay ``changes`` to every node; return the (m, 3) gap sums and G rows."""
        contents, items = {}, {}
        for u in range(m):
            extra = {"sigma_eval": _array(sigma_info(u))}
            item = {"sigma_eval": (m + 1) * _FLOAT}
            if changes is not None:
                sel = [c for c in changes if c[0] != u and needed[c[0], u]]
                idx = np.unique(np.concatenate([c[2] for c in sel])) if sel else np.zeros(0, int)
                coef = np.zeros((P, idx.size))
                for src, k, gidx, cf in sel:
                    coef[k, np.searchsorted(idx, gidx)] = cf
                new = idx[~delivered[u, idx]]
                delivered[u, new] = True
                rows = (np.stack([vectors[j] for j in new]) if new.size
                        else np.zeros((0, d), dtype=run.dtype))
                extra["relay_index"] = _array(idx.astype(np.int32))
                extra["relay_coef"] = _array(coef)
                extra["relay_vectors"] = _array(np.ascontiguousarray(rows, dtype=run.dtype))
                item["sv_relay"] = idx.size * (4 + P * _FLOAT) + new.size * d * run.dtype_bytes
            contents[u] = RecordDict({"skfed": ArrayRecord({}), "extra": ArrayRecord(extra),
                                      "control": keeper.control(u, {"gram": bool(gram)})})
            items[u] = item

        def up_items(t, reply):
            arrays = reply.array_records["skfed"]
            out = {"gap_extra": 3 * _FLOAT}
            if "gram" in arrays:
                out["gram_unused"] = m * _FLOAT
            return out

        replies, down, up = driver.exchange(
            EXACT, contents, round_, down_items=items, up_items=up_items,
            purpose="eval" if changes is not None else "omega",
        )
        for u in range(m):
            if changes is not None:
                relay_pool[u].append(down[u])
            last_sigma_entry[u] = down[u]
        sums = np.stack([_arrays_of(replies[u], "skfed")["gap"] for u in range(m)])
        G = (np.stack([_arrays_of(replies[u], "skfed")["gram"] for u in range(m)])
             if gram else None)
        if G is not None:
            keeper.G = G
        return sums, G, up

    def gap_of(sums):
        return _objectives(*(sums / totals[:, None]).sum(axis=0))

    theta_steps = est.local_epochs
    for round_ in range(est._max_rounds()):
        active_mask, work, active = protocol.draw_round()
        active = protocol.count_setup(active)  # none while a node's setup is missing
        changes = []
        if active.size:
            give = ~protocol.sigma_sent[active]
            protocol.count_downlink(active, downlink(active))
            steps = _steps(work, counts, theta_steps)
            contents, items = {}, {}
            for a, t in enumerate(active):
                skfed = {}
                if give[a]:
                    skfed["sigma"] = _array(sigma_info(t))
                contents[t] = RecordDict({
                    "skfed": ArrayRecord(skfed), "extra": ArrayRecord({}),
                    "control": keeper.control(t, {"train": True, "steps": int(steps[t])}),
                })
                items[t] = {"sigma": s_info} if give[a] else {}

            def up_items(t, reply):
                arrays = reply.array_records["skfed"]
                sizes = [int(np.prod(arrays[k].shape)) * np.dtype(arrays[k].dtype).itemsize
                         for k in ("sv_index", "sv_delta", "sv_vectors")]
                return {"sv": sum(sizes)}

            replies, _, round_up = driver.exchange(EXACT, contents, round_, down_items=items,
                                                   up_items=up_items, purpose="round")
            results = []
            for t in active:
                arrays = _arrays_of(replies[t], "skfed")
                deltas = np.zeros((P, counts[t]))
                local = arrays["sv_index"].astype(np.intp)
                deltas[:, local] = arrays["sv_delta"]
                fresh = local[~bk.server_has[local + offsets[t]]]
                for j, row in zip(fresh + offsets[t], arrays["sv_vectors"]):
                    vectors[int(j)] = row
                results.append(deltas)
            up = bk.uplink(active, results)
            for a, t in enumerate(active):  # the node sent what the byte model counts
                if round_up[t]["items"].get("sv", 0) != up[a]:
                    raise AssertionError(f"node {t} sent {round_up[t]['items']}, not {up[a]}.")
            protocol.count_uplink(active, up)
            changes = list(bk._changes)
        sums, G, eval_up = evaluate(round_, changes, learn and m > 1)
        for t in active:
            traffic.relabel(eval_up[t], "gap_extra", "gap")
        gap, primal, dual = gap_of(sums)

        def omega_step():
            # Participating nodes get every pending change and report their
            # G row (sent with the evaluation above).
            if active.size:
                protocol.count_omega_exchange(
                    active, downlink(active, flush=True),
                    np.full(active.size, m * _FLOAT, dtype=np.int64),
                )
            for t in active:
                traffic.relabel(eval_up[t], "gram_unused", "gram")
            gram = 0.5 * (G + G.T)
            return gram, protocol.omega_candidate(gram)

        def evaluate_at(new_sigma):
            if new_sigma is None:
                return gap, primal, dual
            return gap_of(evaluate(round_, None, False)[0])

        gap, primal, dual = protocol.omega_step_or_stop(
            gap, primal, dual, step=omega_step, evaluate=evaluate_at,
        )
        protocol.record(gap, primal, dual, active.size, engine=" [Flower]")
        if protocol.last_round():
            payloads = downlink(everyone)
            for t in range(m):
                if not protocol.sigma_sent[t]:
                    traffic.relabel(last_sigma_entry[t], "sigma_eval", "sigma", s_info)
            protocol.count_final(everyone, payloads)
        protocol.end_round()
        if protocol.converged:
            break
    # The returned models (the current ones or the best W-step's), then the
    # nodes' dual coefficients of them, for the fitted model.
    protocol.best_or_current()
    final = {"final": True, "restore": keeper.restored}
    contents = {t: RecordDict({"skfed": ArrayRecord({}), "extra": ArrayRecord({}),
                               "control": keeper.control(t, dict(final))}) for t in range(m)}
    replies, _, _ = driver.exchange(
        EXACT, contents, len(protocol.gaps) - 1, purpose="final",
        up_items=lambda t, reply: {"alpha_final": P * int(counts[t]) * _FLOAT},
    )
    alpha = np.concatenate([_arrays_of(replies[t], "skfed")["alpha"] for t in range(m)], axis=1)
    n = int(counts.sum())
    X = np.zeros((n, d), dtype=run.dtype)
    for j in np.flatnonzero(np.any(alpha != 0, axis=0)):
        X[j] = vectors[int(j)]
    protocol.finish()
    layout = SimpleNamespace(order=np.arange(n), counts=counts, n_nodes=m)
    est._store_model(SimpleNamespace(g=alpha), X, None, np.ones(n), layout, totals,
                     protocol.sigma, lam, bias, run.dtype)
    return est


def _pooled_gamma(estimator, infos, d):
    if estimator.gamma == "auto":
        return 1.0 / d
    if not isinstance(estimator.gamma, str):
        return float(estimator.gamma)
    count = mean = m2 = 0.0
    for t in range(len(infos)):
        n_b, mean_b, m2_b = (float(v) for v in infos[t]["stats"])
        if n_b == 0:
            continue
        total = count + n_b
        delta = mean_b - mean
        mean = mean + delta * n_b / total
        m2 = m2 + m2_b + delta * delta * count * n_b / total
        count = total
    var = m2 / count if count else 0.0
    return 1.0 / (d * var) if var > 0 else 1.0
