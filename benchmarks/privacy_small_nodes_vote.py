"""Private MOCHA on many small nearly-alike nodes: why the class vote keeps Local's weaker class.

Command (about 30 seconds)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/privacy_small_nodes_vote.py

The family of ``tests/test_review11_private_mocha_continuity.py`` (60
nearly-alike nodes of 6 training samples, one shared linear rule, scored on
50 fresh samples per node).  Local's best class is LinearSVC (0.745;
logistic regression 0.684).  For each epsilon the script prints private
MOCHA's score and the elected class as the fit is (``as-is``), with "no
fixed class" read as each node's own ballot (``own-ballot``; monkeypatched,
this script only) and with LinearSVC imposed on every node
(``force-svc``); then the vote's ballot counts at epsilon 3 and the pooled
held-out 0-1 error difference LogisticRegression - LinearSVC over every
node's held-out samples (what a federation-level test could see).

Result (privacy14, 29 November 2026, random_state=0; the three secure
noise draws per epsilon gave the same score)::

    epsilon   as-is        own-ballot   force-svc
    1         0.689 none   0.692        0.745
    3         0.689 none   0.692        0.745
    10        0.689 none   0.692        0.745
    ballots at 3 (LR, LinearSVC, rbf): 29, 27, 1 (3 abstain), P(no fixed class) 0.998
    pooled LR - LinearSVC held-out error: 0.0585 (SE 0.0239) over 342 samples

The per-node ballots split (6 samples cannot separate the classes), so
no per-node rule reaches LinearSVC: only pooling the nodes' evidence
(a private sum of held-out error differences, z about 2.4 before noise)
could elect it.  Not changed here (the election rule is the lead's).
"""

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_review11_private_mocha_continuity import _nodes  # noqa: E402

import skfed._class_vote as cv  # noqa: E402
import skfed.multitask._private as mp  # noqa: E402
from skfed import DifferentialPrivacy, FederatedMultiTaskClassifier  # noqa: E402
from skfed._kept_local import CLASSIFIERS  # noqa: E402

ORIGINAL = cv.voted_model


def _voted(mode):
    def voted(evidence, elected, n_nodes):
        if evidence is None:
            return None
        if mode == "own-ballot" and elected == 0:
            return ORIGINAL(evidence, evidence["ballot"], n_nodes)
        if mode == "force-svc":
            return ORIGINAL(evidence, 1, n_nodes)
        return ORIGINAL(evidence, elected, n_nodes)
    return voted


def _fit(train, epsilon):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return FederatedMultiTaskClassifier(
            random_state=0, privacy=DifferentialPrivacy(epsilon=epsilon)).fit(
                train[0], train[1], groups=train[2])


def main():
    rng = np.random.RandomState(0)
    train, test = _nodes(6, rng), _nodes(50, rng)
    print("epsilon   as-is        own-ballot   force-svc")
    for epsilon in (1.0, 3.0, 10.0):
        row = []
        for mode in ("as-is", "own-ballot", "force-svc"):
            cv.voted_model = _voted(mode)
            est = _fit(train, epsilon)
            row.append(f"{est.score(*test[:2], groups=test[2]):.3f}"
                       + (f" {est.elected_local_class_ or 'none'}" if mode == "as-is" else ""))
        cv.voted_model = ORIGINAL
        print(f"{epsilon:<9g} " + "   ".join(row))
    seen, spy_elect, spy_run = [], cv.elect, mp.run_class_vote

    def run(est, evidence, *args, **kwargs):
        seen.extend(e for e in evidence if e is not None)
        return spy_run(est, evidence, *args, **kwargs)

    def elect(ballots, vote_epsilon, source):
        counts = cv.ballot_counts(ballots)
        print(f"ballots at 3 (LR, LinearSVC, rbf): {', '.join(map(str, counts))} "
              f"({sum(b < 0 for b in ballots)} abstain), P(no fixed class) "
              f"{cv.vote_probabilities(counts, vote_epsilon)[0]:.3f}")
        return spy_elect(ballots, vote_epsilon, source)

    mp.run_class_vote, cv.elect = run, elect
    try:
        _fit(train, 3.0)
    finally:
        mp.run_class_vote, cv.elect = spy_run, spy_elect
    err = np.hstack([e["err"] for e in seen])
    d = (err[1 + CLASSIFIERS.index("LogisticRegression")]
         - err[1 + CLASSIFIERS.index("LinearSVC")])
    print(f"pooled LR - LinearSVC held-out error: {d.mean():.4f} "
          f"(SE {d.std(ddof=1) / np.sqrt(d.size):.4f}) over {d.size} samples")


if __name__ == "__main__":
    main()
