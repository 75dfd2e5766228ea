"""Private MOCHA: does the fit's share of epsilon matter to the kept models?

Command (about 15 minutes under load)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/private_mocha_fit_share.py

The class vote's pooled test (:mod:`skfed._class_vote_pooled`) takes its
budget from the fit's share.  This script fits private MOCHA (linear
kernel, ``epsilon = 3``, ``random_state=0``) with the fit at 0.5, 0.25 and
0.1 of epsilon (the ballots' election at half in each; the pooled test,
as built now, at a quarter where the fit leaves room: none at 0.5;
monkeypatched ``split_budget_pooled``, this script only), twice each (fresh secure noise), on the small-nodes family of
``privacy_small_nodes_vote.py``, HAR and School seed 0
(``privacy_utility.py``'s data) and the ``alike``, ``label-noise`` and
``high-dim`` families of ``private_kept_local.py`` (seed 0), and prints the
two scores, the elected class and how many nodes keep the collaborative
model.

Result (privacy15, 29 November 2026, recorded by the same loop before the
pooled test existed, patching ``split_budget``: the vote was the ballots'
election alone)::

    small        0.50: 0.6893 0.6893 (None, collab 3) | 0.25: 0.6893 0.6893 (None, collab 3) | 0.10: 0.6893 0.6893 (None, collab 3)
    har0         0.50: 0.9864 0.9864 (LinearSVC, collab 0) | 0.25: 0.9864 0.9864 (LinearSVC, collab 0) | 0.10: 0.9864 0.9864 (LinearSVC, collab 0)
    school0      0.50: 0.7090 0.7090 (None, collab 3) | 0.25: 0.7090 0.7090 (None, collab 3) | 0.10: 0.7090 0.7090 (None, collab 3)
    alike        0.50: 0.9280 0.9280 (rff-LinearSVC, collab 0) | 0.25: 0.9280 0.9280 (rff-LinearSVC, collab 0) | 0.10: 0.9280 0.9280 (rff-LinearSVC, collab 0)
    label-noise  0.50: 0.8010 0.8255 (rff-LinearSVC, collab 0) | 0.25: 0.8010 0.8010 (None, collab 0) | 0.10: 0.8010 0.8010 (None, collab 0)
    high-dim     0.50: 0.7075 0.7075 (None, collab 0) | 0.25: 0.7075 0.7075 (None, collab 0) | 0.10: 0.7075 0.7075 (None, collab 0)

Re-run with this script as it stands (the pooled test at a quarter of
epsilon where the fit leaves room), same day::

    small        0.50: 0.6893 0.6893 (None, collab 3) | 0.25: 0.6893 0.6893 (None, collab 3) | 0.10: 0.6893 0.6893 (None, collab 3)
    har0         0.50: 0.9864 0.9864 (LinearSVC, collab 0) | 0.25: 0.9864 0.9864 (LinearSVC, collab 0) | 0.10: 0.9864 0.9864 (LinearSVC, collab 0)
    school0      0.50: 0.7090 0.7090 (None, collab 3) | 0.25: 0.7090 0.7090 (None, collab 3) | 0.10: 0.7090 0.7090 (None, collab 3)
    alike        0.50: 0.9280 0.9280 (rff-LinearSVC, collab 0) | 0.25: 0.9280 0.9280 (rff-LinearSVC, collab 0) | 0.10: 0.9280 0.9280 (rff-LinearSVC, collab 0)
    label-noise  0.50: 0.8255 0.8255 (rff-LinearSVC, collab 0) | 0.25: 0.8010 0.8010 (None, collab 0) | 0.10: 0.8255 0.8010 (None, collab 0)
    high-dim     0.50: 0.7075 0.7075 (None, collab 0) | 0.25: 0.7075 0.7075 (None, collab 0) | 0.10: 0.7075 0.7075 (None, collab 0)

(The small nodes' pooled test, probability 0.29 a fit at epsilon_p 0.75,
fixed LinearSVC in none of these four fits; label-noise's vote elects the
rbf model, 0.8255, or "no fixed class", 0.8010, by its noise.)

The scores do not move with the fit's share (label-noise's 0.8255 is one
fit whose vote elected the rbf model, the vote's noise, not the fit's):
the nodes keep models they train alone (all but 0-3 of them), so the
fit's noisy collaborative models rarely count.  Hence the pooled test's
quarter of epsilon comes from the fit, not from the ballots.
"""

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import privacy_utility as pu  # noqa: E402
import private_kept_local as pkl  # noqa: E402
from test_review11_private_mocha_continuity import _nodes  # noqa: E402

import skfed._class_vote_pooled as cvp  # noqa: E402
import skfed.multitask._private as mp  # noqa: E402
from skfed import DifferentialPrivacy, FederatedMultiTaskClassifier  # noqa: E402

ORIGINAL = cvp.split_budget_pooled


def main():
    rng = np.random.RandomState(0)
    small = _nodes(6, rng), _nodes(50, rng)
    data = {"small": (small[0][0], small[1][0], small[0][1], small[1][1], small[0][2],
                      small[1][2]),
            "har0": pu._har(0), "school0": pu._school(0)}
    for family in ("alike", "label-noise", "high-dim"):
        data[family] = pkl.family_data(family, 0)
    for name, (X, X_test, y, y_test, g, g_test) in data.items():
        row = []
        for frac in (0.5, 0.25, 0.1):
            def split(epsilon, n_nodes, vote=True, frac=frac):
                fit, ballots, pooled = ORIGINAL(epsilon, n_nodes, vote)
                if ballots <= 0.0:
                    return fit, ballots, pooled
                return epsilon * frac, ballots, min(pooled, epsilon * (0.5 - frac))

            mp.split_budget_pooled = split
            scores = []
            for _ in range(2):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = FederatedMultiTaskClassifier(
                        kernel="linear", random_state=0,
                        privacy=DifferentialPrivacy(3.0, delta=1e-6)).fit(X, y, groups=g)
                scores.append(est.score(X_test, y_test, groups=g_test))
            mp.split_budget_pooled = ORIGINAL
            collab = sum(model is None for model in est.kept_local_models_)
            row.append(f"{frac:.2f}: {scores[0]:.4f} {scores[1]:.4f} "
                       f"({est.elected_local_class_}, collab {collab})")
        print(f"{name:<12} " + " | ".join(row), flush=True)


if __name__ == "__main__":
    main()
