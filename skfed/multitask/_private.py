"""The privacy hooks of kernelized MOCHA (``privacy=``): the Gaussian mechanism
on the nodes' updates and the fixed round schedule of a private fit."""

import numpy as np

from ..privacy import calibrate_gaussian, describe, epsilon_spent
from ._omega import _StoppingRule


class _PrivateSchedule(_StoppingRule):
    """The rounds of a private fit: no gap-based decision.

    The gap terms are not sent under ``privacy``, so the fit runs
    ``max_rounds`` rounds, with an Omega step every ``omega_update_every``
    rounds when Omega is learned (the curves are still recorded).
    """

    def omega_step_due(self, gap, primal):
        super().omega_step_due(gap, primal)
        self.w_step_done = False
        return self.learn and self.since_update >= self.every

    def before_omega_step(self, primal, dual, gram, sigma, lam, joint=None):
        super().before_omega_step(primal, dual, gram, sigma, lam, joint=joint)
        self.stop_before_step = False
        return False

    def without_omega_step(self, gap, primal, dual):
        super().without_omega_step(gap, primal, dual)
        return False


class _PrivateUpdates:
    """Gaussian mechanism on every node's update ``Delta v_t`` (primal modes).

    Each round a participating node clips its update (all problems together)
    to Frobenius norm ``B`` (``clip_norm``) and adds ``N(0, sigma^2)`` to every
    entry, ``sigma = sigma_1 * 2 B``: whatever its data, a clipped update
    moves by at most ``2 B``, so every release is a Gaussian mechanism of
    sensitivity ``2 B`` with respect to the node's whole data set
    (client-level privacy, which implies it for every one of its samples).
    ``sigma_1`` makes ``max_rounds`` releases spend the budget, and a node
    sends at most one update a round, so it never runs out.  With
    ``epsilon=inf`` nothing is clipped or noised, and the gap terms are sent
    as in the non-private fit (which it then equals).
    """

    def __init__(self, spec, n_nodes, max_rounds, random_state):
        self.epsilon, self.delta = spec.budget()
        self.clip = float(spec.clip_norm)
        self.mechanism = calibrate_gaussian(self.epsilon, self.delta, 1.0, int(max_rounds))
        self.sigma = self.mechanism.sigma * 2.0 * self.clip
        self.uses = np.zeros(n_nodes, dtype=np.int64)
        self.rng = None
        if self.sigma > 0.0:
            self.rng = np.random.default_rng(random_state.randint(1, np.iinfo(np.int32).max))

    def privatize(self, active, results, totals):
        if self.sigma == 0.0:
            # epsilon=inf: no noise, nothing to bound; the results go on as
            # they are (compressed ones included)
            self.uses[active] += 1
            return results
        out = []
        for t, (dvs, deltas) in zip(active, results):
            self.uses[t] += 1
            if self.sigma == 0.0:
                # epsilon=inf: no noise, nothing to bound.
                out.append((dvs, deltas))
                continue
            update = dvs / totals[t]
            norm = float(np.linalg.norm(update))
            if norm > self.clip:
                update = update * (self.clip / norm)
            update = update + self.rng.normal(0.0, self.sigma, size=update.shape)
            out.append((update * totals[t], deltas))
        return out

    def finish(self, estimator):
        estimator.privacy_spent_ = epsilon_spent(self.mechanism, self.uses, self.delta)
        estimator.privacy_ = describe(
            self.mechanism, uses=self.uses, delta=self.delta,
            composition="one Gaussian release of the clipped update per round the node "
            "takes part in, composed over its rounds",
            sigma=self.sigma, clip_norm=self.clip, level="client (the node's whole data set)",
        )
