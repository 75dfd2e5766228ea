"""How often MOCHA's centre rule moves a size's newcomers when no centre is better.

``skfed.multitask._rehearsal.choose_centre`` takes a candidate ``w_0``
(a larger share of the share selection) when its error beats the fitted
one's by ``CENTRE_EVIDENCE`` standard errors over the rehearsing nodes
and at least two nodes gain.  With ``CENTRE_EVIDENCE = 1`` each candidate
is a one-sided test at about 0.16, and a fit has up to three candidates
above its share (``SHARE_GRID = (0.9, 0.99, 0.5)``).

This script measures the rule's rate of moving under the null: every
centre's error table (5 scales x 2 draws a node) is one shared table plus
independent noise (sd 0.05) per centre, so no centre is better; each centre
picks its own scale first, as the rule does.  2,000 tables a cell.

Command::

    OPENBLAS_NUM_THREADS=1 python benchmarks/review18_centre_null.py

Result (review18, main a66b95d; rows: rehearsing nodes, columns: centres
including the fitted w0; 1 SE is the rule's, 2 SE for comparison)::

    nodes  centres  moved(1 SE)  moved(2 SE)
        5        2        0.165        0.042
        5        3        0.274        0.070
        5        4        0.336        0.104
       10        2        0.157        0.023
       10        3        0.268        0.046
       10        4        0.313        0.066
       20        2        0.166        0.020
       20        3        0.248        0.026
       20        4        0.320        0.037

Under the null a move costs nothing on average, but a
quarter to a third of the sizes then join toward a candidate on noise
(whether the held-out clustered-big k=5 loss of 0.17, one seed -0.51,
reported by mochajoin16 is such a move was not checked).  Measurement only; the rule is unchanged.
"""

import numpy as np

from skfed.multitask import _rehearsal
from skfed.multitask._rehearsal import choose_centre


def moved_rate(n_nodes, n_centres, evidence, n_tables=2000, seed=0):
    rng = np.random.default_rng(seed)
    saved = _rehearsal.CENTRE_EVIDENCE
    _rehearsal.CENTRE_EVIDENCE = evidence
    try:
        owners = np.repeat(np.arange(n_nodes), 2)
        moved = 0
        for _ in range(n_tables):
            base = rng.uniform(0.1, 0.4, size=(5, owners.size))
            found = [np.clip(base + rng.normal(0, 0.05, size=base.shape), 0, 1)
                     for _ in range(n_centres)]
            moved += choose_centre(found, owners) != 0
        return moved / n_tables
    finally:
        _rehearsal.CENTRE_EVIDENCE = saved


if __name__ == "__main__":
    print("nodes  centres  moved(1 SE)  moved(2 SE)")
    for n_nodes in (5, 10, 20):
        for n_centres in (2, 3, 4):
            print(f"{n_nodes:5d}  {n_centres:7d}  {moved_rate(n_nodes, n_centres, 1.0):11.3f}  "
                  f"{moved_rate(n_nodes, n_centres, 2.0):11.3f}")
