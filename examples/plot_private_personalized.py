"""
=====================================================================
Private personalized models: accuracy against the privacy budget
=====================================================================

With ``privacy=DifferentialPrivacy(epsilon, delta)`` every node keeps what it
sends differentially private with respect to each of its samples, and the
fitted estimator reports what each node spent (``privacy_spent_``):

* :class:`~skfed.DecentralizedBoostingClassifier` (Dada) chooses the stump
  of every Frank-Wolfe step by report-noisy-max on its gradient scores; its
  stumps must sit on a public range
  (:func:`~skfed.boosting.make_stump_predictors`), and the noise grows like
  ``e^(2 beta) / m_k``, so we use ``beta = 1`` (and ``mu = 10``);
* :class:`~skfed.PersonalizedLinearClassifier` (Perso-lin) adds Gaussian
  noise to its clipped local gradients.

Both compose their releases per node with the accountant of
:mod:`skfed.privacy`.  We fit them on clustered rotated moons (12 nodes in 4
clusters, 150 training samples each) for several budgets and compare with
the non-private fits of the same settings.  The full table (Computer buyers,
support recovery, MOCHA on HAR too) is printed by
``python benchmarks/privacy_utility.py``.
"""

# %%
import warnings

import matplotlib.pyplot as plt

from skfed import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.boosting import make_stump_predictors
from skfed.datasets import make_rotated_moons
from skfed.privacy import DifferentialPrivacy

X, X_test, y, y_test, groups, groups_test, _, _ = make_rotated_moons(
    12, n_clusters=4, n_samples_range=(150, 151), n_features=2, random_state=0
)
stumps = make_stump_predictors([-2.0, -2.0], [2.0, 2.0], 40)  # known domain
epsilons = [0.3, 1.0, 3.0, 10.0]


def fit(make, epsilon):
    privacy = None if epsilon is None else DifferentialPrivacy(epsilon, delta=1e-6)
    est = make(privacy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # budget-stop notices
        est.fit(X, y, groups=groups)
    return est.score(X_test, y_test, groups=groups_test), est


methods = {
    "Dada (report-noisy-max)": lambda privacy: DecentralizedBoostingClassifier(
        base_predictors=stumps, beta=1.0, mu=10.0, max_iter=1200, privacy=privacy,
        random_state=0,
    ),
    "Perso-lin (Gaussian)": lambda privacy: PersonalizedLinearClassifier(
        max_iter=1200, privacy=privacy, random_state=0
    ),
}
results = {}
for name, make in methods.items():
    off, _ = fit(make, None)
    private = [fit(make, eps) for eps in epsilons]
    results[name] = (off, [score for score, _ in private])
    spent = private[-1][1].privacy_spent_
    print(f"{name}: off {off:.3f}, "
          + ", ".join(f"eps={e:g} {s:.3f}" for e, (s, _) in zip(epsilons, private))
          + f"; spent at eps=10: {spent.min():.2f}..{spent.max():.2f}")

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for (name, (off, scores)), color in zip(results.items(), ["C0", "C1"]):
    ax.semilogx(epsilons, scores, "o-", color=color, label=name)
    ax.axhline(off, color=color, linestyle="--", label=f"{name.split()[0]}, no privacy")
ax.set_xlabel("epsilon per node (delta = 1e-6)")
ax.set_ylabel("test accuracy")
ax.set_title("Personalized models under per-node differential privacy")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()
