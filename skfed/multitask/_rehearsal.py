"""The fitted nodes' rehearsal of a MOCHA newcomer, run when a join needs it.

With ``omega_mode_ == "shared"`` a newcomer of ``k`` samples solves its
problem toward the fitted ``w_0`` with the prior variance ``c_n`` times a
scale the fitted nodes measured for newcomers of about its size
(:mod:`skfed.multitask._join`).  For a size k of :data:`REHEARSAL_SIZES`,
up to :data:`REHEARSAL_MAX_DRAWS` draws of k samples of fitted nodes with
more than k samples (:func:`rehearsal_draws`) solve the newcomer's problem
on them at every scale of :data:`REHEARSAL_SCALES` and score the node's
other samples (the error of ``score``).

The fit only prepares the rehearsal (:func:`rehearse_newcomers` returns a
:class:`Rehearsal`: the draws, the local solvers' seeds and the rows the
draws use); a size is rehearsed on the first join with a newcomer whose
nearest rehearsal size it is, and its reports are collected, and counted,
with that join.  Run at the end of every fit, the rehearsal of all five
sizes cost 2-20 % of the fit's CPU time whether anybody joined or not
(Landmine 2 %, HAR 5 %, School 5-8 %, rotated moons 10-20 %); a join of
newcomers of one size now pays for that size only.  The draws and seeds
are fixed when the fit ends, so a size's errors are those the fit would
have computed, whichever join asks first (the tests compare them with
NumPy ridge solves).

A classifier's newcomer whose samples hold one class is rehearsed apart:
its random draws rarely hold one class (HAR: 11 / 4 / 0 of 32 at sizes 5 /
10 / 20), so each of a size's draws is redrawn once, on the first join with
such a newcomer of that size, as ``k`` samples of one of its node's classes
(:meth:`Rehearsal._one_class_draws`), scored on the node's other samples
weighted to the node's class shares.  Such a newcomer may then trust its
prior more than its size's scale says, never less (:func:`one_class_scale`:
samples of one class say less about the boundary than as many of both).
Measured (``benchmarks/new_nodes_mocha_oneclass_draws.py``, seeds 0-2,
``k = 5 / 10 / 20``): HAR 97.51 / 97.33 / 97.78 -> 97.51 / 97.49 / 98.26
(seed 1's subject with no "sitting" among its 10 and 20 samples keeps 1/16
and ``w_0`` instead of 1/4 and 1), rotated moons, Landmine and the
held-out related families unchanged.

A size's newcomers may also be centred elsewhere than the fitted ``w_0``
(:func:`choose_centre`).  When the fit selected its share by validation
(``share_selection_``), every node keeps each candidate's ``w_0`` of the
selection's last fold; the candidates of a larger share than the fit's
(toward the pooled end: a newcomer has no personal part yet) are
rehearsed too, on the same draws at every scale.  They are compared on
each draw's held-out rows of that fold (outside every candidate's fit),
the selected candidate's fold ``w_0`` standing for ``w_0``: compared on
rows the centres were fitted on, a larger share's ``w_0``, which fits
each node's own rows more, won on the held-out related-wide family and
lost 0.31 / 0.22 points at ``k = 10 / 20``.  The size takes a centre whose
error at its own scale beats ``w_0``'s by :data:`CENTRE_EVIDENCE`
standard errors over the rehearsing nodes, at least two of them gaining
(else ``w_0``; its one-class draws are then solved toward that centre).
Its newcomers then solve toward that candidate's ``w_0`` averaged over
the folds the selection ran (nodes and server held each; the nearest to
the candidate's fit on every row the selection computed) at the scale
rehearsed for the last fold's.  Measured (``benchmarks/new_nodes.py
--families mocha``, seeds 0-2, ``k = 5 / 10 / 20``): HAR 97.48 / 97.51 /
98.28 -> 97.85 / 97.97 / 98.55 (0.99 taken on 7 of 9 seed-sizes, by
1.1-3.0 standard errors; pooled ``LogisticRegression`` 97.84 / 97.91 /
97.87; joined toward the last fold's ``w_0`` instead: 97.78 / 97.88 /
98.62), Landmine +0.01 / 0 / 0 and related-wide +0.05 / 0 / 0 (0.99 taken
once each), and fits without a
share selection (small nodes: rotated moons, School, related-small,
-alike, -clustered, -narrow) have one centre and join exactly as before.
Cost: one more solve per centre; related-wide's join at ``k = 20`` took
0.122 of its 0.23 s refit's CPU (0.087 before).
A size's reports with the centres (``2 C`` times the values of one
centre) cost at most
:data:`~skfed.multitask._rehearsal_bytes.REHEARSAL_BYTE_SHARE` of the
fit's bytes: float64, else rounded to 8 bits, else no centres (around
``w_0`` alone); on small federations they were most of a join's bytes (8
sites: 0.31-0.34 of a refit's, 0.067-0.075 rounded, the same scores;
:mod:`skfed.multitask._rehearsal_bytes`).

With the feature-mean gate open (:mod:`skfed.multitask._join_neighbours`)
newcomers are centred on their nearest fitted nodes' mean model, and so is
every draw (its own node left out) instead of ``w_0`` or the share
selection's centres; a two-class newcomer then takes the scale of the
draws holding two classes (:mod:`skfed.multitask._rehearsal_centres`).
"""

import math
import time

import numpy as np

from .._base import NodeLayout
from .._core._multitask_fast import Multinomial
from ._join_neighbours import feature_neighbours
from ._rehearsal_bytes import centres_affordable, quantized_reports, report_messages
from ._rehearsal_centres import draw_centres, paired_result, two_class_draws
from ._state import _LOSSES

__all__ = ["Rehearsal", "rehearsal_draws", "rehearse_newcomers"]

# The sizes rehearsed, the scales of c_n compared (1 first: it wins ties; 0
# is the shared model w_0 alone), the draws of a size per node (at most
# REHEARSAL_MAX_DRAWS in all), and the local solves' relative gap and passes.
# More draws were measured (benchmarks/new_nodes.py splits, rotated moons,
# seeds 0-2, k = 5): 2 a node / 64 in all 55.72 -> 54.01, 4 / 128 52.28 (the
# table, which flatters w_0 since each rehearsing node's data is in it, picked
# smaller scales more confidently), for 1.3-2 times the join's CPU; see
# benchmarks/new_nodes_mocha_scales.py for a leave-out that was not kept.
REHEARSAL_SIZES = (2, 5, 10, 20, 50)
REHEARSAL_SCALES = (1.0, 4.0, 0.25, 1.0 / 16, 0.0)
REHEARSAL_DRAWS = 2
REHEARSAL_MAX_DRAWS = 32
REHEARSAL_GAP_TOL = 1e-4
REHEARSAL_PASSES = 3
# A scale other than 1 wins only by this many standard errors of the paired
# difference over the draws.
REHEARSAL_EVIDENCE = 1.0
# A one-class newcomer's scale departs from its size's by this many standard
# errors (over nodes) of the one-class draws' paired difference (see
# one_class_scale): a second choice stacked on the size's, among up to four
# scales; at 1.0 it acted on noise (related-clustered k = 5: -0.11).
ONE_CLASS_EVIDENCE = 2.0
# A newcomer uses the rehearsed size nearest its own only within this factor
# (an integer: the rule compares sample counts exactly, both ends included;
# float logs had put 10 -> 20 in reach but 5 -> 10 out).  The exact rule
# moved one measured row: related-small (fitted nodes of 8 samples, sizes 2
# and 5), k = 10 now rehearsed at 5: 91.33 / 90.63 / 91.17 -> 91.50 / 90.75 /
# 91.17 (seeds 0-2; join bytes 3.4 -> 3.8 % and CPU 1.8 -> 2.4 % of the
# refit's; `python benchmarks/new_nodes.py --families mocha --datasets
# related-small --ks 10`); the guide's rows (k a rehearsed size, or moons'
# k = 20 at size 10) are unchanged.
REHEARSAL_REACH = 2
# A centre other than the fitted w0 (choose_centre) wins by this many
# standard errors (over nodes) of the paired difference.
CENTRE_EVIDENCE = 1.0
# What stands for w0 in that comparison: "fold", the selected candidate's
# w0 of the fold (fitted without the rows compared on), or "fitted", the
# fitted w0 (measured: it favours w0, fitted on those rows; HAR's joins
# back to 97.53 / 97.51 / 98.52; benchmarks/new_nodes_mocha_share_rehearsal.py).
CENTRE_BASE = "fold"
# A newcomer of a size that chose a candidate solves toward its w0 averaged
# over the selection's folds (True) or toward its last fold's (False);
# measured above.
JOIN_FOLD_MEAN = True


def nearest_size(counts, sizes):
    """The size nearest every count on a log scale, and whether it is in reach.

    Exact in integers: the log distance of ``c`` and ``s`` is that of their
    ratio ``max(c, s) / min(c, s)``, and two ratios are compared by
    cross-multiplying, so a count at exactly :data:`REHEARSAL_REACH` times a
    size (or a tie between two sizes, won by the smaller) is never decided
    by float rounding.

    Parameters
    ----------
    counts : ndarray of shape (n_new,)
        Every newcomer's number of samples (a count below 1 is taken as 1).
    sizes : ndarray of shape (n_sizes,)
        The rehearsed sizes, increasing, at least one.

    Returns
    -------
    near : ndarray of shape (n_new,)
        Index into ``sizes`` of the nearest size.
    reach : ndarray of shape (n_new,), dtype=bool
        Whether that size is within a factor :data:`REHEARSAL_REACH` of the
        count (both ends included).
    """
    count = np.maximum(np.asarray(counts, dtype=np.int64), 1)
    sizes = np.asarray(sizes, dtype=np.int64)
    near = np.zeros(len(count), dtype=np.intp)
    for j in range(1, len(sizes)):
        hi, lo = np.maximum(count, sizes[j]), np.minimum(count, sizes[j])
        hi_b = np.maximum(count, sizes[near])
        lo_b = np.minimum(count, sizes[near])
        near[hi * lo_b < hi_b * lo] = j
    size = sizes[near]
    reach = (count <= REHEARSAL_REACH * size) & (size <= REHEARSAL_REACH * count)
    return near, reach


def rehearsal_draws(counts, seed):
    """The rehearsal's draws: ``(k, owners, permutations)`` for every size k.

    For each size of :data:`REHEARSAL_SIZES`, every node with more than k
    samples is a candidate :data:`REHEARSAL_DRAWS` times; at most
    :data:`REHEARSAL_MAX_DRAWS` candidates are drawn (``owners``, sorted),
    and each draw is a permutation of its node's samples: the first k
    train, the others are held out.

    Parameters
    ----------
    counts : ndarray of shape (n_nodes,)
        The fitted nodes' numbers of samples.
    seed : int

    Returns
    -------
    list of (int, ndarray, list of ndarray)
    """
    rng = np.random.RandomState([int(seed), 7901])
    out = []
    for k in REHEARSAL_SIZES:
        eligible = np.repeat(np.flatnonzero(counts > k), REHEARSAL_DRAWS)
        if not eligible.size:
            continue
        owners = np.sort(rng.choice(eligible, size=min(REHEARSAL_MAX_DRAWS, len(eligible)),
                                    replace=False))
        out.append((k, owners, [rng.permutation(counts[t]) for t in owners]))
    return out


def node_paired_difference(E, base, owners):
    """Mean and standard error of each scale's error minus scale ``base``'s,
    over the rehearsing nodes: a node's draws (which share its held-out
    samples) are averaged first, so the standard error is over independent
    nodes.  ``E`` is ``(n_scales, n_draws)``, ``owners`` each draw's node;
    ``(None, None)`` with fewer than two nodes."""
    nodes, node_of = np.unique(owners, return_inverse=True)
    if len(nodes) < 2:
        return None, None
    diff = E - E[base]
    per_node = np.zeros((E.shape[0], len(nodes)))
    np.add.at(per_node.T, node_of, diff.T)
    per_node /= np.bincount(node_of)[None, :]
    return (per_node.mean(axis=1),
            per_node.std(axis=1, ddof=1) / np.sqrt(len(nodes)))


def size_scale(errors, se):
    """The size's scale (an index into :data:`REHEARSAL_SCALES`): the lowest
    mean error ``errors`` if it beats scale 1 by :data:`REHEARSAL_EVIDENCE`
    standard errors ``se`` of the paired difference over the draws, else 0
    (scale 1)."""
    best = int(np.argmin(errors))
    return best if errors[best] - errors[0] + REHEARSAL_EVIDENCE * se[best] < 0 else 0


def choose_centre(found, owners):
    """The centre (an index into ``found``; 0 is the fitted ``w_0``) a size's
    newcomers solve toward.

    ``found`` holds, per centre, the kept draws' errors ``(n_scales,
    n_draws)`` (each draw's node in ``owners``).  Each centre is scored at
    its own scale (:func:`size_scale`); a centre other than 0 is taken if
    its error there beats centre 0's at its scale by
    :data:`CENTRE_EVIDENCE` standard errors over the rehearsing nodes
    (:func:`node_paired_difference`) and lowers the mean error of at least
    two of them, the lowest mean error among those that do; else 0.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.multitask._rehearsal import choose_centre
    >>> fit = np.tile([[.3, .3, .3, .3]], (5, 1))
    >>> other = np.tile([[.2, .25, .2, .21]], (5, 1))
    >>> choose_centre([fit, other], np.array([0, 1, 2, 3]))
    1
    """
    if len(found) < 2 or found[0].shape[1] < 2:
        return 0
    picked = []
    for E in found:
        diff = E - E[0]
        se = diff.std(axis=1, ddof=1) / np.sqrt(E.shape[1])
        picked.append(E[size_scale(E.mean(axis=1), se)])
    picked = np.array(picked)
    mean, se = node_paired_difference(picked, 0, owners)
    if mean is None:
        return 0
    # nodes whose mean error the centre lowers: at least two (a single
    # node's difference is one standard error exactly, whatever its size:
    # the rule would be decided by rounding)
    nodes, node_of = np.unique(owners, return_inverse=True)
    per_node = np.zeros((len(picked), len(nodes)))
    np.add.at(per_node.T, node_of, (picked - picked[0]).T)
    lowered = (per_node < 0).sum(axis=1)
    wins = [c for c in range(1, len(found))
            if lowered[c] >= 2 and mean[c] + CENTRE_EVIDENCE * se[c] < 0]
    return int(min(wins, key=lambda c: mean[c])) if wins else 0


def one_class_scale(E, base, owners):
    """The scale (an index into :data:`REHEARSAL_SCALES`) of a one-class
    newcomer whose size's ordinary rehearsal chose ``base``.

    Samples of one class say less about the boundary than as many of both,
    so only scales not above ``base`` compete (0, ``w_0`` alone, the
    lowest).  Over the one-class draws' errors ``E`` (``(n_scales,
    n_draws)``, each draw's node in ``owners``; :func:`node_paired_difference`),
    the scales that beat ``base`` by :data:`ONE_CLASS_EVIDENCE` standard
    errors and lie within one standard error of the best of them: the one
    nearest ``base`` (the smallest move the evidence supports); ``base``
    if none beats it.

    Measured against other forms (``benchmarks/new_nodes_mocha_oneclass_draws.py``,
    seeds 0-2): the lowest mean error in either direction at one standard
    error lost 0.05 on rotated moons at ``k = 5`` (its fitted nodes' 3-15
    samples leave 5-10 held out: a noisy table) and 0.01 on Landmine;
    downward and nearest at one standard error still lost 0.11 on the
    held-out related-clustered family at ``k = 5`` (1.3 standard errors on
    seed 0); at two, nothing but HAR moves.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.multitask._rehearsal import one_class_scale
    >>> E = np.array([[.3, .3, .3], [.4, .4, .4], [.2, .21, .2], [.1, .1, .11], [.1, .12, .1]])
    >>> one_class_scale(E, 0, np.array([0, 1, 2]))  # scale 1/16 (index 3)
    3
    """
    mean, se = node_paired_difference(E, base, owners)
    if mean is None:
        return base
    scales = np.asarray(REHEARSAL_SCALES)
    wins = np.flatnonzero((scales <= scales[base])
                          & (mean + ONE_CLASS_EVIDENCE * se < 0))
    if not wins.size:
        return base
    best = wins[np.argmin(mean[wins])]
    near = wins[mean[wins] <= mean[best] + se[best]]
    # nearest base: the largest scale (every candidate is at most base's)
    return int(near[np.argmax(scales[near])])


def _errors(loss_name, f, Y):
    """Per sample: misclassification (the largest margin's class; one
    problem: the margin's sign) or, for the squared loss, the squared error.
    ``f`` is (..., P, n), ``Y`` (P, n); the result (..., n)."""
    if loss_name == "squared":
        return ((f - Y) ** 2).sum(axis=-2)
    if Y.shape[0] == 1:
        return (Y[0] * f[..., 0, :] <= 0).astype(np.float64)
    return (np.argmax(f, axis=-2) != np.argmax(Y, axis=0)).astype(np.float64)


class Rehearsal:
    """The fitted nodes' rehearsal of newcomers, one size at a time.

    Built when the fit ends (:func:`rehearse_newcomers`); holds the draws,
    the local solvers' seeds and the fitted rows the draws use, and solves a
    size when a join first needs it (:meth:`scales`).

    Parameters
    ----------
    est : FederatedMultiTaskClassifier or FederatedMultiTaskRegressor
        Being fitted, ``omega_mode_ == "shared"``.
    nodes : _SharedNodes
        The fitted nodes at the returned point (``w0``, ``mu``).
    lam : float

    Attributes
    ----------
    sizes : ndarray of int
        The sizes that can be rehearsed: at least two draws with training
        and held-out weight (the sizes of the table).
    cpu : float
        CPU seconds (``time.process_time``) of the sizes rehearsed so far.

    Notes
    -----
    Until every size is rehearsed (for a classifier, its one-class draws
    too) it holds the rows of the fitted nodes that rehearse (their design
    rows, targets and weights: on HAR, 17 nodes of 561 features, about 26
    MB), which a fitted estimator then carries when copied or pickled.
    """

    def __init__(self, est, nodes, lam):
        from ._join import _random_seed

        layout, sw = nodes.layout, np.asarray(nodes.sw, dtype=np.float64)
        counts = layout.counts
        seed = _random_seed(est)
        self.draws = rehearsal_draws(counts, seed)
        self.seed = seed
        rng = np.random.RandomState([seed, 7919])  # the local solvers' seeds
        self.seeds = [rng.randint(1, 2**31 - 1, size=len(o)).astype(np.uint32)
                      for _, o, _ in self.draws]
        d = nodes.Z.shape[1]
        self.exact = [est._exact_nodes(NodeLayout(np.repeat(np.arange(len(o)), k), len(o)), d)
                      for k, o, _ in self.draws]
        self.loss_name, self.local_epochs = est.loss, float(est.local_epochs)
        # the fit's loss for the rehearsed newcomers: multinomial or the named one
        self.multinomial = getattr(est, "multi_class_", "ovr") == "multinomial"
        self.w0 = np.array(nodes.w0, dtype=np.float64)
        # The centres a newcomer may solve toward: w0, then the share
        # selection's other candidates of a larger share than the fit's
        # (their w0 of the selection's last fold, which every node keeps);
        # see choose_centre.
        b = float(est.shared_weight_)
        other = [(float(c[0]), c[1], c[2]) for c in getattr(nodes, "share_centres", ())
                 if float(c[0]) > b]
        self.centre_shares = np.array([b] + [c[0] for c in other])
        self.centres = [self.w0] + [np.array(c[1], dtype=np.float64).reshape(self.w0.shape)
                                    for c in other]
        # what a newcomer of a size that chose one solves toward: its w0
        # averaged over the selection's folds
        self.join_centres = [self.w0] + [np.array(c[2], dtype=np.float64).reshape(self.w0.shape)
                                         for c in other]
        self.centre_of = {}  # draw set a -> index of its size's centre
        # draw set a -> False where its reports could not afford the centres
        # (skfed.multitask._rehearsal_bytes); the join sets the fit's bytes
        # (None: no limit) and the network's header
        self.centred = {}
        self.report_bits = {}  # draw set a -> bits of its float reports (None: float64)
        self.fit_bytes, self.header_bytes = None, 0
        # the selected candidate's w0 of that fold and the fold's rows
        fold = getattr(nodes, "share_fold", None) if len(self.centres) > 1 else None
        self.fold_w0 = (None if fold is None
                        else np.array(fold[0], dtype=np.float64).reshape(self.w0.shape))
        self.mu = float(nodes.mu)
        self.mean_mass = float(np.mean(nodes.totals))
        # Only the rows of the nodes that rehearse are kept (by node).
        owners = np.unique(np.concatenate([o for _, o, _ in self.draws]
                                          + [np.zeros(0, dtype=np.intp)]))
        self.rows = {int(t): layout.node_slice(t) for t in owners}
        Z, Y = np.asarray(nodes.Z), np.asarray(nodes.Y)
        # Whether a node reports its errors as counts (see collect): a
        # classifier's node whose samples all weigh 1.
        # (the same test as _errors: every loss but the squared one scores
        # misclassifications)
        self.count_reports = {t: est.loss != "squared" and bool(np.all(sw[sl] == 1.0))
                              for t, sl in self.rows.items()}
        # Their rows stacked node after node (one gather a size); data[t]
        # views node t's part.
        stacked = (np.concatenate([np.arange(sl.start, sl.stop) for sl in self.rows.values()])
                   if self.rows else np.zeros(0, dtype=np.intp))
        self.fold = ({} if fold is None else
                     {t: np.asarray(fold[1], dtype=bool)[sl] for t, sl in self.rows.items()})
        self.Z = np.ascontiguousarray(Z[stacked])
        self.Y = np.ascontiguousarray(Y[:, stacked])
        self.sw = np.ascontiguousarray(sw[stacked])
        self.start, lo = {}, 0
        for t, sl in self.rows.items():
            self.start[t], lo = lo, lo + (sl.stop - sl.start)
        self.data = self._views()
        self.n_nodes = layout.n_nodes
        # A draw counts if it has training and held-out weight (else its
        # errors are undefined); a size needs two such draws.
        self.kept = []
        for k, o, perms in self.draws:
            kept = np.array([self.data[int(t)][2][p[:k]].sum() > 0
                             and self.data[int(t)][2][p[k:]].sum() > 0
                             for t, p in zip(o, perms)], dtype=bool)
            self.kept.append(kept)
        self.usable = [a for a in range(len(self.draws)) if self.kept[a].sum() >= 2]
        self.sizes = np.array([self.draws[a][0] for a in self.usable], dtype=np.intp)
        self.results = {}      # draw set a -> (errors, standard errors) over the scales
        # A classifier's nodes also rehearse one-class newcomers (their own
        # draws of each size, solved when a one-class newcomer needs them).
        self.one_class_kind = est.loss != "squared"
        self.one_class_errors = {}  # draw set a -> (n_scales, kept one-class draws)
        self.one_class_kept = {}    # draw set a -> (kept, held-out counts per class)
        self.one_class_owners = {}  # draw set a -> the kept draws' nodes
        self.one_class_collected = set()
        self.collected = set()  # draw sets whose reports were sent
        self.two_class = {}  # draw set a -> its two-class draws' result (gate open)
        self.cpu = 0.0
        # the feature-mean gate (skfed.multitask._join_neighbours)
        self.neighbours = feature_neighbours(est, nodes, est._W[:, :layout.n_nodes])
        # with it open, each draw is centred as its newcomer would be
        # (skfed.multitask._rehearsal_centres)
        self.around = draw_centres(self.neighbours, est._W[:, :layout.n_nodes])

    # -------------------------------------------------------------- solving
    def _rehearse(self, a):
        """Solve and score draw set ``a`` (one size) at every scale (and
        centre: :func:`choose_centre`)."""
        if a in self.results:
            return self.results[a]
        start = time.process_time()
        k, owners, perms = self.draws[a]
        kept = self.kept[a]
        solve = (k, owners, perms, kept, self.seeds[a], self.exact[a])
        self.centre_of[a] = 0
        if self.around is not None:  # (the gate's centres replace w0 and the others)
            found = [self._solve(*solve, w0=self._draw_centres(k, owners, perms, kept))]
        elif len(self.centres) < 2 or not self._centres_affordable(a):
            found = [self._solve(*solve)]
        else:
            # the centres compared on the rows outside their fit (the
            # selection's last fold): the selected candidate's w0 there
            # against the others
            fold = [self.fold[int(t)][p[k:]].astype(np.float64) for t, p in zip(owners, perms)]
            if CENTRE_BASE == "fold":
                found = [self._solve(*solve)]
                clean = [self._solve(*solve, held_weights=fold, w0=self.fold_w0)]
            else:
                found, clean = (list(x) for x in zip(self._solve(*solve, weightings=[None, fold])))
            for w0 in self.centres[1:]:
                full, in_fold = self._solve(*solve, w0=w0, weightings=[None, fold])
                found.append(full)
                clean.append(in_fold)
            if self.report_bits.get(a) is not None:
                # what the server decodes of reports rounded to fit the
                # share (skfed.multitask._rehearsal_bytes)
                floats = [not self.count_reports[int(t)] for t in owners]
                decoded = quantized_reports(found + clean, self.report_bits[a], floats)
                found, clean = decoded[:len(found)], decoded[len(found):]
            scored = kept & np.isfinite(clean[0][0])
            self.centre_of[a] = choose_centre([E[:, scored] for E in clean], owners[scored])
        errors = found[self.centre_of[a]]
        diff = errors[:, kept] - errors[0, kept]
        result = (errors[:, kept].mean(axis=1),
                  diff.std(axis=1, ddof=1) / np.sqrt(kept.sum()))
        self.results[a] = result
        if self.around is not None and self.one_class_kind:
            # a two-class newcomer's scale, from the draws like it
            # (skfed.multitask._rehearsal_centres)
            Y = {t: v[1] for t, v in self.data.items()}
            self.two_class[a] = paired_result(errors, kept & two_class_draws(Y, k, owners, perms))
        self._free_rows()
        self.cpu += time.process_time() - start
        return result

    def _centres_affordable(self, a):
        """Whether draw set ``a`` compares the centres (recorded in
        ``centred``, with the bits of its reports in ``report_bits``;
        :mod:`skfed.multitask._rehearsal_bytes`)."""
        if a not in self.centred:
            self.centred[a], self.report_bits[a] = centres_affordable(self, a)
        return self.centred[a]

    def n_centres(self, a):
        """The centres draw set ``a``'s ordinary draws report on (with the
        feature-mean gate open, the draw's own centre only: ``_rehearse``)."""
        if self.around is not None:
            return 1
        return len(self.centres) if self.centred.get(a, True) else 1

    def _draw_centres(self, k, owners, perms, kept):
        """The draws' centres with the gate open (``(P, n_draws, d')``;
        :mod:`skfed.multitask._rehearsal_centres`)."""
        Z = {t: v[0] for t, v in self.data.items()}
        sw = {t: v[2] for t, v in self.data.items()}
        return self.around.centres(Z, sw, k, owners, perms, kept, self.w0)

    def _views(self):
        """{node t: its part of Z, Y and sw} (views; empty once freed)."""
        if self.Z is None:
            return {}
        return {t: (self.Z[self.start[t]:self.start[t] + sl.stop - sl.start],
                     self.Y[:, self.start[t]:self.start[t] + sl.stop - sl.start],
                     self.sw[self.start[t]:self.start[t] + sl.stop - sl.start])
                for t, sl in self.rows.items()}

    def __getstate__(self):
        # A pickle or deepcopy would store the views in data as copies of
        # their rows (twice the rows): they are rebuilt on loading instead.
        state = self.__dict__.copy()
        state.pop("data", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.data = self._views()

    def _free_rows(self):
        """Drop the rows once every draw set that may need them is solved."""
        done = len(self.results) == len(self.usable)
        if self.one_class_kind:
            done = done and len(self.one_class_errors) == len(self.usable)
        if done:
            self.data, self.Z, self.Y, self.sw = {}, None, None, None

    def _solve(self, k, owners, perms, kept, seeds, exact, held_weights=None, w0=None,
               weightings=None):
        """Errors ``(n_scales, n_draws)`` of draws ``perms`` (NaN where not
        kept): each draw's newcomer solved at every scale on its first ``k``
        rows toward ``w0`` (default: the fitted one), scored on the others
        (``held_weights``: per draw, factors of the held-out rows' weights;
        ``weightings``: a list of such factors (None: none), one errors
        array returned for each)."""
        from ._join import _JoinNodes

        scales = np.asarray(REHEARSAL_SCALES)
        w0 = self.w0 if w0 is None else np.asarray(w0)  # (or one centre a draw)
        P, d = w0.shape[0], w0.shape[-1]
        n_new = len(owners)
        starts = [self.start[t] for t in owners.tolist()]
        train = np.concatenate([lo + p[:k] for lo, p in zip(starts, perms)])
        Z, Y, sw = self.Z[train], self.Y[:, train], self.sw[train]
        sub = NodeLayout(np.repeat(np.arange(n_new), k), n_new)
        mass = np.add.reduceat(sw, sub.offsets[:-1])
        nodes = _JoinNodes(np.ascontiguousarray(Z), np.ascontiguousarray(Y),
                           np.ascontiguousarray(sw), np.zeros((P, len(sw))), sub,
                           np.where(mass > 0, mass, 1.0), seeds.copy(), 8,
                           exact=exact, loss_name=self.loss_name)
        loss = Multinomial() if self.multinomial else _LOSSES[self.loss_name]()
        confidence = mass / self.mean_mass  # the join's rule (not capped)
        c = np.maximum(confidence, 1e-300) / self.mu  # c_n / lambda
        steps = np.maximum(1, np.ceil(self.local_epochs * sub.counts)).astype(np.intp)
        M = w0 if w0.ndim == 3 else np.repeat(w0[:, None, :], n_new, axis=1)
        models = np.empty((n_new, len(scales), P, d))
        for i, s in enumerate(scales):
            if s == 0.0:
                models[:, i] = np.swapaxes(M, 0, 1)
                continue
            nodes.set_prior(M, 1.0 / (c * s))
            nodes.solve_all(loss, steps, REHEARSAL_PASSES, REHEARSAL_GAP_TOL)
            models[:, i] = np.swapaxes(nodes.models, 0, 1)
        # each draw scores its node's other samples (every kept draw's
        # held-out rows stacked: one product per draw into one array, one
        # error call; gathering each row's models for a single product had
        # copied n_held x n_scales x P x d floats, 225 MB a size on HAR, and
        # stacking the held-out rows themselves 45 MB)
        weighting = [held_weights] if weightings is None else weightings
        found = [np.full((len(scales), n_new), np.nan) for _ in weighting]
        drawn = np.flatnonzero(kept)
        if drawn.size:
            held = [perms[j][k:] for j in drawn.tolist()]
            index = np.concatenate([starts[j] + rows for j, rows in zip(drawn.tolist(), held)])
            Yh, sw_held = self.Y[:, index], self.sw[index]
            sizes = np.array([len(rows) for rows in held])
            at = np.concatenate([[0], np.cumsum(sizes)[:-1]])
            S = len(scales)
            f = np.empty((S * P, len(sw_held)))
            flat = models.reshape(n_new, S * P, d)
            for j, lo, rows in zip(drawn.tolist(), at.tolist(), held):
                # the node's every row, then its held-out ones (no copy of them)
                np.take(flat[j] @ self.data[owners[j]][0].T, rows, axis=1,
                        out=f[:, lo:lo + len(rows)])
            e_all = _errors(self.loss_name, f.reshape(S, P, len(sw_held)), Yh)
            for errors, factors in zip(found, weighting):
                swh = sw_held
                if factors is not None:
                    swh = swh * np.concatenate([factors[j] for j in drawn.tolist()])
                e = e_all * swh
                with np.errstate(invalid="ignore", divide="ignore"):  # (nothing held: NaN)
                    errors[:, drawn] = (np.add.reduceat(e, at, axis=1)
                                        / np.add.reduceat(swh, at))
        return found[0] if weightings is None else found

    # ------------------------------------------------------- one-class draws
    def _one_class_draws(self, a):
        """One-class draws of size set ``a``: ``(perms, kept, held_weights,
        held_counts)`` (the last: each draw's held-out samples per class).

        Each draw of set ``a`` (same node) trains on ``k`` samples of one of
        its node's classes holding more than ``k`` samples, the class drawn
        with probability proportional to ``C(n_c, k)`` (the chance that
        ``k`` random samples of the node hold that class only); its held-out
        rows are weighted so that every class weighs what it weighs in the
        node (the newcomer is scored on its node's distribution, not on the
        complement of its draw).  A draw whose node has no such class is not
        kept.  Fixed by the fit's seed and ``a`` (whichever join asks).
        """
        k, owners, _ = self.draws[a]
        rng = np.random.RandomState([self.seed, 7933, a])
        perms, kept, weights, held_counts = [], [], [], []
        n_classes = max(self.Y.shape[0], 2)
        for t in owners.tolist():
            _, Yt, swt = self.data[t]
            labels = (Yt[0] > 0).astype(np.intp) if Yt.shape[0] == 1 else np.argmax(Yt, axis=0)
            classes, counts = np.unique(labels, return_counts=True)
            ok = counts > k
            if len(classes) < 2 or not ok.any():
                perms.append(np.arange(len(labels)))
                kept.append(False)
                weights.append(None)
                held_counts.append(np.zeros(n_classes, dtype=np.int64))
                continue
            chance = np.array([math.comb(int(n), k) if o else 0 for n, o in zip(counts, ok)],
                              dtype=np.float64)
            c = classes[rng.choice(len(classes), p=chance / chance.sum())]
            inside = rng.permutation(np.flatnonzero(labels == c))
            rest = rng.permutation(np.concatenate([inside[k:], np.flatnonzero(labels != c)]))
            perm = np.concatenate([inside[:k], rest])
            held = perm[k:]
            node_w = np.bincount(labels, weights=swt, minlength=n_classes)
            held_w = np.bincount(labels[held], weights=swt[held], minlength=len(node_w))
            present = node_w > 0
            good = (swt[perm[:k]].sum() > 0 and np.all(held_w[present] > 0))
            factor = np.zeros(len(node_w))
            if good:
                factor[present] = (node_w[present] / node_w.sum()) / (held_w[present] / held_w.sum())
            perms.append(perm)
            kept.append(bool(good))
            weights.append(factor[labels[held]])
            held_counts.append(np.bincount(labels[held], minlength=n_classes))
        return perms, np.array(kept, dtype=bool), weights, held_counts

    def _rehearse_one_class(self, a):
        """Each one-class draw's errors ``(n_scales, n_kept)`` of size set ``a``."""
        if a in self.one_class_errors:
            return self.one_class_errors[a]
        if a not in self.centre_of and len(self.centres) > 1:
            self._rehearse(a)  # (its centre; a join always rehearses it first)
        start = time.process_time()
        k, owners, _ = self.draws[a]
        perms, kept, weights, held_counts = self._one_class_draws(a)
        self.one_class_kept[a] = (kept, held_counts)
        # only the kept draws are solved (on nodes of few samples most are not)
        idx = np.flatnonzero(kept)
        ones = np.ones(len(idx), dtype=bool)
        centre = (self.centres[self.centre_of.get(a, 0)] if self.around is None or not idx.size
                  else self._draw_centres(k, owners[idx], [perms[j] for j in idx], ones))
        self.one_class_errors[a] = (
            self._solve(k, owners[idx], [perms[j] for j in idx], ones,
                        self.seeds[a][idx], np.asarray(self.exact[a])[idx],
                        [weights[j] for j in idx], w0=centre)
            if idx.size else np.zeros((len(REHEARSAL_SCALES), 0)))
        self.one_class_owners[a] = owners[kept]
        self._free_rows()
        self.cpu += time.process_time() - start
        return self.one_class_errors[a]

    def table(self):
        """Every size rehearsed (all of them are solved now).

        Returns
        -------
        dict
            ``sizes`` (n_sizes,), ``errors`` (n_sizes, n_scales): the mean
            over the draws of the mean held-out error, ``standard_errors``:
            of each scale's paired difference to scale 1, ``nodes``
            (n_sizes,): how many nodes rehearsed each size; for a
            classifier also ``one_class_errors``: per size, each kept
            one-class draw's error ``(n_scales, n_draws)``.
        """
        found = [self._rehearse(a) for a in self.usable]
        n_scales = len(REHEARSAL_SCALES)
        extra = ({"one_class_errors": [self._rehearse_one_class(a) for a in self.usable]}
                 if self.one_class_kind else {})
        return {**extra, "sizes": self.sizes.copy(),
                "errors": np.array([e for e, _ in found]).reshape(-1, n_scales),
                "standard_errors": np.array([s for _, s in found]).reshape(-1, n_scales),
                "nodes": np.array([len(np.unique(self.draws[a][1][self.kept[a]]))
                                   for a in self.usable], dtype=np.intp),
                "centres": np.array([self.centre_of[a] for a in self.usable], dtype=np.intp)}

    def scales(self, counts, one_class=None):
        """Each newcomer's scale of ``c_n``, rehearsing the sizes it needs.

        The rehearsed size nearest its number of samples (log scale) if it is
        within a factor :data:`REHEARSAL_REACH`, and there the scale of the
        lowest mean error if it beats 1 by :data:`REHEARSAL_EVIDENCE`
        standard errors of the paired difference; else 1.  A classifier's
        newcomer whose samples hold one class (``one_class``) then takes,
        from the one-class draws of that size (:meth:`_one_class_draws`),
        the scale of the lowest mean error if it beats the scale just chosen
        by :data:`REHEARSAL_EVIDENCE` standard errors of their paired
        difference (at least two such draws), else keeps it.

        Parameters
        ----------
        counts : ndarray of shape (n_new,)
        one_class : ndarray of shape (n_new,), dtype=bool, default=None
            Whether each newcomer's samples hold a single class.

        Returns
        -------
        scales : ndarray of shape (n_new,)
        asked : list
            The draw sets this call rehearsed whose reports are not collected
            yet (:meth:`collect`): ints, then ``("one-class", a)`` pairs.
        """
        out = np.ones(len(counts))
        if not len(self.sizes):
            return out, []
        near, reach = nearest_size(counts, self.sizes)
        one = (np.zeros(len(counts), dtype=bool) if one_class is None or not self.one_class_kind
               else np.asarray(one_class, dtype=bool))
        asked, asked_one = [], []
        for i in np.unique(near[reach]).tolist():  # each size once
            a = self.usable[i]
            errors, se = self._rehearse(a)
            if a not in self.collected:
                asked.append(a)
            chosen = size_scale(errors, se)
            here = reach & (near == i)
            out[here] = REHEARSAL_SCALES[chosen]
            two = self.two_class.get(a)
            if two is not None and self.one_class_kind and one_class is not None:
                out[here & ~one] = REHEARSAL_SCALES[size_scale(*two)]
            if not (one & here).any():
                continue
            E = self._rehearse_one_class(a)
            if a not in self.one_class_collected:
                asked_one.append(("one-class", a))
            picked = one_class_scale(E, chosen, self.one_class_owners[a])
            out[one & here] = REHEARSAL_SCALES[picked]
        return out, sorted(asked) + sorted(asked_one)

    def centres_for(self, counts, M):
        """Each newcomer's prior mean ``(n_problems, n_new, d')``: ``M`` (the
        fitted ``w_0`` for each) but where its rehearsed size chose another
        centre (:func:`choose_centre`; sizes rehearsed by :meth:`scales`
        first)."""
        out = np.array(M, dtype=np.float64)
        if len(self.centres) < 2 or not len(self.sizes):
            return out
        near, reach = nearest_size(counts, self.sizes)
        for i in np.flatnonzero(reach).tolist():
            c = self.centre_of[self.usable[near[i]]]
            if c and JOIN_FOLD_MEAN:
                out[:, i] = self.join_centres[c]
            elif c:
                out[:, i] = self.centres[c]
        return out

    def collect(self, counter, asked, float_bytes):
        """Count the rehearsal of draw sets ``asked`` (one message each way
        per node).

        The server asks each rehearsing node for those draw sets (each an
        index into :data:`REHEARSAL_SIZES` and a bit for the one-class
        draws, packed), and each reports, per kept draw and scale, its error
        on the draw's held-out samples: a classifier's node whose samples
        all weigh 1 sends, for an ordinary draw, the number of misclassified
        ones, an integer in ``[0, n_held]`` packed in ``index_bits(n_held +
        1)`` bits (the server knows ``n_held`` from the draw and divides:
        the same float as the node's mean); for a one-class draw its class
        (``index_bits(n_classes)`` bits), its held-out samples per class
        (``index_bits(n_held + 1)`` bits each)
        and per scale its misclassified ones per class (``index_bits(n_j +
        1)`` bits for a class of ``n_j`` held-out samples), from which the
        server forms the class-weighted error ``sum_j pi_j e_j / n_j``
        (``pi_j`` the node's class shares: ``n_j`` plus the draw's ``k``
        for its class), the node's value up to rounding; any other node one
        float (``float_bytes``) each; one bit says which.  With more than one
        centre compared (:func:`choose_centre`; within
        :data:`~skfed.multitask._rehearsal_bytes.REHEARSAL_BYTE_SHARE` of
        the fit's bytes: float reports rounded to 8 bits, else no centres,
        where float64 would not fit) an ordinary draw reports per centre
        and scale twice (on all its held-out rows, and on those of the
        selection's last fold, the selected candidate's fold ``w_0`` in place
        of ``w_0``; as counts, with the number of those rows first), and a
        one-class request also names its size's centre
        (``index_bits(n_centres)`` bits; its draws are solved toward that
        centre only).  With the feature-mean gate open each node first
        uploads its kept draws' feature means (one message) and the request
        carries their centres (float32; a classifier's ordinary draw reports
        one more bit: whether it holds two classes;
        :mod:`skfed.multitask._rehearsal_centres`).
        """
        if not asked:
            return
        nodes, requests, reports, up = report_messages(self, asked, float_bytes)
        for item in asked:
            one = isinstance(item, tuple)
            (self.one_class_collected if one else self.collected).add(item[1] if one else item)
        if up is not None:
            # with the gate open: up its kept draws' feature means first
            sending = np.flatnonzero(up)
            counter.gather_to_server(nodes[sending], up[sending])
        counter.broadcast_from_server(nodes, requests)
        counter.gather_to_server(nodes, reports)


def rehearse_newcomers(est, nodes, lam):
    """Prepare the fitted nodes' rehearsal of newcomers (run by joins).

    Parameters
    ----------
    est, nodes, lam
        As for :class:`Rehearsal`.

    Returns
    -------
    Rehearsal
    """
    return Rehearsal(est, nodes, lam)
