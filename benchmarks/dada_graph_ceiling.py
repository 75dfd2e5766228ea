"""The ceiling of graph recovery on the held-out "noisy" moons (issue 33).

Issue 33 asks for at least 85 % of Dada's learned graph weight inside the
true clusters of the "noisy" family (four clusters at uniformly random
angles at least 30 degrees apart, every node's rotation jittered by
N(0, 0.15 rad), 3-14 training samples a node, moons noise 0.15, 5 % label
flips, 18 N(0, 1) features).  Two clusters can then be nearly one task.
This script measures, per seed, what a graph can reach at best:

``true-knn``
    Every node linked to its 5 nearest nodes by TRUE rotation angle
    (circular distance; the moons turned by pi are the opposite task, so
    the period is 2 pi), symmetrized, weights 1 (5 is ``max_neighbors``).
``true-gauss``
    Every pair weighted by ``exp(-d^2 / (2 s^2))`` of its true angle
    distance ``d``, ``s = sqrt(2) 0.15`` (the spread of the distance of
    two nodes of one cluster): the weight-by-distance variant, all pairs.
``bayes``
    A Bayes oracle that knows the generator (moons noise, flip rate, the
    four cluster angles, their sizes and the jitter) and sees only each
    node's training samples: each node's posterior over its cluster,
    ``P(c | data_k)``, and each pair's probability of one cluster,
    ``P_kl = sum_c P(c | data_k) P(c | data_l)``; every node linked to
    the 5 peers of largest ``P_kl``.  "bayes" is the share of that graph
    inside the true clusters, "E[bayes]" its expected share (the mean of
    ``P_kl`` over its edges: what no graph built from the training samples
    can beat in expectation for 5 links a node), "MAP" the share of nodes
    whose most probable cluster is their own.
``bayes-angle``
    A weaker oracle that does not know the clusters: each node's
    posterior over its own angle (uniform prior, a grid of 720 angles),
    and every node linked to the 5 peers whose posterior, blurred by the
    jitter of two nodes, overlaps its own most.

The likelihood of a sample ``(x, y)`` at angle ``theta`` is that of the
generator with the arc positions uniform on ``[0, pi]`` (moons noise
0.15, labels flipped with probability 0.05; the padding features do not
depend on ``theta``).  ``make_moons`` puts a moon's points at evenly
spaced positions instead (``dada_vote_evidence.py``), which this oracle
does not exploit: the exact generator's likelihood would be a little
sharper.  ``learned``: Dada's defaults' learned graph (200 stumps,
``random_state=seed``).  The true per-node angles are re-drawn from the
generator's stream (``make_rotated_moons`` draws the jitter first, then
the sample counts; the script checks the counts).

Per seed it prints the clusters' angles and the least gap between two
clusters, every share, and the shares with the weight between two
clusters closer than ``--merge`` degrees counted as inside (those two
clusters are one task at this jitter and sample size: "separable"
restricted shares).

Then, where the learned graph loses against that ceiling (``PART``):

``ideal``
    The pair signal of the graph step with IDEAL models: every node's model
    the generator's Bayes classifier at its true angle, scored on each
    node's training samples (mean log-loss of l's model on k's samples,
    ``one-end``, and summed both ways, ``both``; the error rate summed both
    ways, ``0-1``); the share of the symmetrized 5-nearest-neighbour graph.
    Compare with the same signal on Dada's fitted models,
    ``dada_graph_signal.py costs`` ("logistic" 75.5 %, "0-1" 72.9 %) and on
    models fitted on the oracle graph (``oracle-models``: 85.3 / 82.2 %).
``alternate``
    Alternating graph and model steps with a pooled pair signal: from the
    default fit's graph ``G_0`` and models, ``G_{t+1}`` is the 5-NN graph
    of l's mean logistic loss on the samples of k and of k's neighbours in
    ``G_t`` (summed both ways), four times; ``--refit``: Dada re-fitted on
    every ``G_{t+1}`` (``graph=`` it) before the next step.
``prune``
    The default fit's graph with every node keeping only its ``m``
    strongest edges (``m`` = 1, 2, 3), the union or the intersection of the
    two ends' choices (the learned weights kept): does the weight order
    carry the clusters?
``linear``
    The pair signal of local logistic regressions on features 0-1 (the
    vote's features), ``C`` = 0.1, 1, 10: log-loss summed both ways and
    ``1 - cos`` of the two coefficient directions; and the squared distance
    of the nodes' class-mean differences (a nearest-centroid model; a node
    with one class, 3.6 % of them, is nobody's chosen peer and links to the
    first nodes by id).
``capacity``
    Dada fitted on the oracle graph (``graph=`` the true clusters) at the
    defaults, ``beta=10, mu=1``, ``beta=30, mu=0.3`` and 500 wake-ups a
    node: test accuracy and the 5-NN share of the log-loss signal both ways.
``fixed-point``
    Dada fitted on fixed graphs whose every node links to 2-5 random nodes
    of its cluster and to 5 minus that many random others (symmetrized):
    the graph's share against the 5-NN share of its fitted models'
    log-loss signal (both ways), the map an alternation of graph and model
    steps would iterate.
``corners``
    Dada with ``base_predictors``: stumps evenly inside each of the vote's
    selected features' range (from a default fit; exactly Dada's own
    stumps, so share 0 reproduces the defaults bit for bit) and, on every
    pair of selected features, products of two such stumps ("corners",
    depth-2 splits: a model no longer additive in the features), a share
    ``--corner-shares`` of the 200 predictors.
``oblique``
    Dada's defaults on ``X`` widened by the projections of every pair of
    the vote's selected features (from a first default fit) on 6 oblique
    directions of their plane (``pi / 8`` steps, the axes excluded): stumps
    that can follow a rotated boundary.

Usage::

    python benchmarks/dada_graph_ceiling.py [PART] [--family noisy|iid|jitter] [--seeds 0 1 2 3 4] [--merge 45] [--refit]

Results (2 shared cores, 2026-11-28, seeds 0-4; % of the weight inside the
true clusters; "|merged": clusters closer than 45 degrees counted as one)::

    python benchmarks/dada_graph_ceiling.py

    seed  least gap  merged  true-knn  true-gauss  bayes  E[bayes]  MAP  bayes-angle  learned  true-knn|m  bayes|m  learned|m
    0     36.2       1       99.7      98.9        97.7   97.2      98   97.7         80.7     100.0       100.0    91.4
    1     37.1       1       98.0      97.6        95.5   96.4      96   92.1         58.7     100.0        98.9    64.5
    2     31.6       1       98.3      91.6        94.3   95.2      95   94.9         76.4     100.0       100.0    85.8
    3     40.3       1       99.0      96.0        98.9   97.2      99   95.5         81.4     100.0       100.0    92.3
    4     30.8       2       98.4      95.5        96.6   96.2      97   98.2         85.0     100.0        98.9    98.6
    mean                     98.7      95.9        96.6   96.4      97   95.7         76.4     100.0        99.5    86.5

Held-out seeds 5-9 (``--seeds 5 6 7 8 9``): true-knn 97.6, true-gauss
96.5, bayes 95.7, E[bayes] 96.7, MAP 96.6, bayes-angle 94.5, learned 72.1
(seed 8, whose vote keeps feature 0 only, 35.6); merged: bayes 98.2,
learned 79.8.  Seed 8 is the hardest layout measured (three clusters in a
chain at 331, 2 and 36 degrees, gaps 31 and 34): true-knn 92.5, bayes
88.6, E[bayes] 92.1, still above 85 %; its vote misses feature 1 as seed
1's does (``python benchmarks/dada_vote_evidence.py 8``: pooled evidence
``loc`` of feature 1 0.6 on the skeletons, 8.8 with i.i.d. arcs), and
with features 0-1 forced its graph holds 49.2 % (i.i.d. arcs: 51.7 %).

The same on the "noisy" family with i.i.d. arc positions
(``--family iid``; the oracle's likelihood is then exact): true-knn 98.7,
true-gauss 95.9, bayes 96.1 (94.3-100 per seed), E[bayes] 96.3, MAP 96.6,
bayes-angle 94.9, learned 71.2; merged at 45 degrees: bayes 99.5, learned
86.4.

The 85 % target is below the ceiling on every seed: a graph of the true
angles puts 98.0-99.7 % of its weight inside (the weight-by-distance
graph, which links every pair, 91.6-98.9 %), and a Bayes oracle that sees
only each node's 3-14 training samples 94.3-98.9 % (it puts 95-99 % of
the nodes in their own cluster; without knowing the clusters, from each
node's angle posterior alone, 92.1-98.2 %).  The closest clusters
(30.8-40.3 degrees, 3.6-4.7 standard deviations of the jitter) are
separable from the training samples, so the target needs no restriction to
separable seeds or cluster pairs.  The learned graph's gap is Dada's pair
signal: 76.4 % (58.7 % on seed 1, whose vote keeps feature 0 only), and
86.5 % even with the clusters closer than 45 degrees merged (64.5 % on
seed 1), 10 points under the oracle on the same merge.

Where the learned graph loses (same seeds, "noisy" unless said; 5-NN
shares, %)::

    python benchmarks/dada_graph_ceiling.py ideal
    python benchmarks/dada_graph_ceiling.py alternate [--refit]
    python benchmarks/dada_graph_ceiling.py prune [--family jitter]
    python benchmarks/dada_graph_ceiling.py linear
    python benchmarks/dada_graph_ceiling.py oblique [--family jitter]
    python benchmarks/dada_graph_ceiling.py capacity
    python benchmarks/dada_graph_ceiling.py fixed-point
    python benchmarks/dada_graph_ceiling.py corners --family F --corner-shares 0.25 0.5 0.75 1

    ideal models (true-angle Bayes classifiers): log-loss one end 87.2, both ways 94.6, error both ways 91.4
      (Dada's fitted models, dada_graph_signal.py costs: 75.5 / 72.9; fitted on the oracle graph: 85.3 / 82.2)
    alternate, pooled signal from the learned graph (76.4):   steps 1-4  73.8 73.2 73.7 74.1
    alternate --refit (accuracy 75.9 at the start):            steps 1-4  73.8 73.8 73.8 74.1 (accuracy 76.2 76.2 76.3 76.0)
    prune to each node's m strongest edges (learned 76.4, 422 nnz):
      union        m = 1: 75.5 (138)   m = 2: 76.1 (249)   m = 3: 76.3 (337)
      intersection m = 1: 75.6 (62)    m = 2: 75.5 (147)   m = 3: 75.8 (244)
    linear local models, C 0.1 / 1 / 10: log-loss 53.7 / 61.4 / 60.9, 1 - cos 59.6 / 54.2 / 51.7;
      class-mean differences 66.0
    oblique stumps: noisy accuracy 75.9 -> 75.4, inside 76.4 -> 74.6; jitter 81.3 -> 78.5, 90.9 -> 85.9
    capacity, models fitted on the oracle graph (accuracy %, log-loss both ways 5-NN share %):
      defaults 78.9 85.3   beta=10,mu=1 79.0 85.9   beta=30,mu=0.3 77.9 85.1   500 wake-ups a node 78.5 85.1
    fixed-point, fixed graph's share -> accuracy, signal's 5-NN share:
      39.7 -> 73.0, 75.2   58.9 -> 74.7, 77.9   78.7 -> 76.9, 81.4   100.0 -> 78.8, 84.1
    corners (accuracy, inside, nnz; share of corners 0 = the defaults / 0.25 / 0.5 / 0.75 / 1):
      noisy   75.9 76.4 422 / 76.4 78.3 402 / 76.9 80.4 422 / 77.4 78.7 403 / 77.1 78.5 403
      jitter  81.3 90.9 437 / 80.1 91.0 398 / 79.7 92.4 404 / 80.0 91.6 401 / 79.5 91.7 405
      iid     78.1 71.2 418 / 78.6 72.1 396 / 78.1 73.4 386 / 78.1 75.1 379 / 77.9 72.6 373
      noisy with features 0-1 forced (seed 1 too; --features 0 1), 50 stumps each + 100 corners: 78.6 84.0 412
        (stumps only on features 0-1: 77.21 79.1 416)
      held-out seeds 5-9 (--seeds 5 6 7 8 9), share 0 / 0.5: 73.3 72.1 412 / 74.3 73.4 398
        (per seed inside 79.0 -> 84.9, 81.2 -> 87.7, 85.2 -> 80.0, 35.6 -> 35.6 (one feature), 79.5 -> 78.6)
      --two-stage --corner-shares 0.5 (the defaults' stumps on the corners fit's graph, fixed):
        noisy 75.2 (graph 80.4 % inside), jitter 80.4 (92.4 %), against the defaults' 75.9 and 81.3
      --beta 10 --mu 1, corner share 0 / 0.5: noisy 76.5 79.5 387 / 77.7 80.0 350; jitter 81.1 92.4 362 / 80.2 94.8 354

So the pair signal of the graph step (a peer's model scored on a node's
samples, both ways) is not the limit: with ideal models it reaches 94.6 %,
near the Bayes oracle's 96.6 %.  The limit is the models it scores.
Dada's stump models after the default fit give it 75.5 %; the same kind
of models fitted on the oracle graph 85.3 % (test accuracy 78.9 % against
the defaults' 75.95 %), and no capacity changes that (85.1-85.9 % with a
larger l1 ball or five times the steps).  With the best graph there is,
Dada's models give the signal about the target itself, so a learned graph
reaches 85 % only if the graph step's equilibrium beats the 5-NN share of
its own signal, as it does on "jitter" (90.9 % against 84.2-88.4 %) and
not on "noisy".

Alternating graph and model steps cannot climb past that.  The
``fixed-point`` map: a graph of share p gives models whose signal has a
5-NN share of about 73 + 0.11 p (75.2 % at p = 39.7 %, 84.1 % at 100 %),
so the alternation's fixed point is about 82 % with random wrong links;
the learned graph's wrong links, toward the nearest clusters, do worse
(76.4 % gives 75.5 %).  Run from the learned graph (``alternate``), a
pooled signal over the current graph, with or without re-fitting the
models on each new graph, settles at 73.8-74.1 %.

Pruning each node's edges to its strongest keeps the share (75.5-76.3 %
at 62-337 non-zeros): the learned weights do not order the edges by
cluster.  Linear local models, whose direction would estimate a rotation,
do worse (51.7-61.4 %: a moons boundary seen in 3-14 points has no stable
direction; the class-mean difference, steadier, 66.0 %), and oblique stumps on the selected pair spread the 200 stumps
over 14 columns and lose on both families.

Models that are not additive in the features are the one lever measured
that moves the share: half the predictors as corners lifts "noisy" from
76.4 to 80.4 % (85.8 % on the four seeds whose vote keeps both features,
against 80.9 %; 84.0 % with both features forced on all five) and
accuracy from 75.9 to 76.9 %.  But not robustly (held-out seeds 5-9: 72.1
to 73.4 %, two of the four two-feature seeds lose 0.9 and 5.2 points), it
costs "jitter" 1.2-1.8 points of accuracy at every corner share (with
``beta=10, mu=1`` too: 80.0 % inside on "noisy", jitter's accuracy 80.2
%), and it was not tried on School or HAR (their pairs of selected
features would take the whole dictionary): not a default.  Nor does
their better graph help Dada's own stumps: fixed on it, the defaults'
stumps score 75.2 % on "noisy" and 80.4 % on "jitter", under the
defaults' 75.9 and 81.3 % (``--two-stage``).

Next: models that come closer to the task from a node's few samples (the
gap between the oracle graph's models and ideal ones is 9 points of the
signal, the gap between the learned and the oracle graph's models another
10), and a vote that sees feature 1 on skeleton seeds such as 1 and 8.
The issue's 85 % is within the data's reach (Bayes oracle 96.6 % on seeds
0-4, 95.7 % on 5-9, 88.6 % on the hardest seed) but not, measured so
far, within that of additive stump models scored on 3-14 samples.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dada_experiments import MOONS_FAMILIES, cluster_angles, moons_family  # noqa: E402
from dada_graph_signal import knn_share, load  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from skfed.boosting import DecentralizedBoostingClassifier, stump_predictions  # noqa: E402

CLUSTER_SIZES = (10, 20, 30, 40)
JITTER = MOONS_FAMILIES["noisy"]["angle_jitter"]
NOISE = MOONS_FAMILIES["noisy"]["noise"]
FLIPS = MOONS_FAMILIES["noisy"]["label_noise"]
CENTRE = np.array([0.5, 0.25])
K = 5


def node_angles(seed, n_train, n_nodes=100):
    """True rotation angle of every node of the "noisy" family's seed.

    Also those of ``dada_vote_evidence.iid_moons`` (the same stream: the
    jitter, then the sample counts)."""
    angles = cluster_angles(seed, len(CLUSTER_SIZES))
    clusters = np.repeat(np.arange(len(CLUSTER_SIZES)), CLUSTER_SIZES)
    rng = np.random.RandomState(seed)
    jitter = rng.normal(scale=JITTER, size=n_nodes)
    counts = rng.randint(3, 15, size=n_nodes)
    if not np.array_equal(counts, n_train):
        raise RuntimeError("the generator's stream changed: the sample counts differ")
    return angles, clusters, angles[clusters] + jitter


def circular_distance(a, b):
    d = np.abs(np.subtract.outer(a, b)) % (2 * np.pi)
    return np.minimum(d, 2 * np.pi - d)


def inside_share(W, clusters):
    same = clusters[:, None] == clusters[None, :]
    np.fill_diagonal(same, False)
    return float(W[same].sum() / W.sum())


def knn_graph(score, k=K):
    """Symmetrized graph linking every node to its ``k`` peers of largest score."""
    n = score.shape[0]
    s = score.astype(np.float64, copy=True)
    np.fill_diagonal(s, -np.inf)
    nearest = np.argsort(-s, axis=1, kind="stable")[:, :k]
    A = np.zeros((n, n))
    A[np.repeat(np.arange(n), k), nearest.ravel()] = 1.0
    return np.maximum(A, A.T)


def _arcs(n_arc):
    t = np.linspace(0.0, np.pi, n_arc)
    upper = np.c_[np.cos(t), np.sin(t)] - CENTRE
    lower = np.c_[1.0 - np.cos(t), 0.5 - np.sin(t)] - CENTRE
    return upper, lower


def _arc_density(back, arc):
    """Density of points ``back`` (rotated back) around an arc of uniform positions."""
    d2 = ((back[..., None, :] - arc) ** 2).sum(-1)
    return np.exp(-d2 / (2 * NOISE ** 2)).mean(-1) / (2 * np.pi * NOISE ** 2)


def log_likelihood(X2, y, thetas, n_arc=181):
    """``sum_i log p(x_i, y_i | theta)`` for every angle of ``thetas``.

    The moons of ``make_moons`` (upper: ``(cos t, sin t)``, label -1;
    lower: ``(1 - cos t, 0.5 - sin t)``, label +1), arc positions uniform
    on ``[0, pi]``, centred, rotated by ``theta`` as ``make_rotated_moons``
    does (``x @ [[c, s], [-s, c]]``), Gaussian noise ``NOISE``, either moon
    half the time, labels flipped with probability ``FLIPS``.
    """
    upper, lower = _arcs(n_arc)
    c, s = np.cos(thetas), np.sin(thetas)
    total = np.zeros(len(thetas))
    for x, label in zip(X2, y):
        # Rotating the sample back by -theta equals rotating the arcs by theta.
        back = np.c_[x[0] * c + x[1] * s, -x[0] * s + x[1] * c]     # (n_theta, 2)
        dens = [_arc_density(back, arc) for arc in (upper, lower)]
        own, other = (dens[1], dens[0]) if label == 1 else (dens[0], dens[1])
        total += np.log(0.5 * ((1 - FLIPS) * own + FLIPS * other) + 1e-300)
    return total


def bayes_probability(X2, theta, n_arc=181):
    """``P(y = +1 | x)`` of the generator at angle ``theta`` (uniform arc positions)."""
    upper, lower = _arcs(n_arc)
    c, s = np.cos(theta), np.sin(theta)
    back = np.c_[X2[:, 0] * c + X2[:, 1] * s, -X2[:, 0] * s + X2[:, 1] * c]
    dens_upper, dens_lower = _arc_density(back, upper), _arc_density(back, lower)
    return ((1 - FLIPS) * dens_lower + FLIPS * dens_upper) / (dens_upper + dens_lower + 1e-300)


def bayes_scores(X, y, g, angles, n_grid=720, n_arc=181):
    """Posterior over the cluster (known angles) and over the angle (uniform prior)."""
    thetas = np.linspace(0.0, 2 * np.pi, n_grid, endpoint=False)
    n_nodes = g.max() + 1
    log_post = np.array([log_likelihood(X[g == k, :2], y[g == k], thetas, n_arc)
                         for k in range(n_nodes)])
    post = np.exp(log_post - log_post.max(1, keepdims=True))
    post /= post.sum(1, keepdims=True)
    sizes = np.asarray(CLUSTER_SIZES, dtype=np.float64)
    prior = sizes / sizes.sum()
    d = circular_distance(thetas, angles)                                # (grid, clusters)
    jitter_density = np.exp(-d ** 2 / (2 * JITTER ** 2))
    cluster_post = post @ jitter_density * prior
    cluster_post /= cluster_post.sum(1, keepdims=True)
    blur = np.exp(-circular_distance(thetas, thetas) ** 2 / (4 * JITTER ** 2))
    angle_overlap = post @ blur @ post.T
    return cluster_post, angle_overlap


def merged(clusters, angles, merge_deg):
    """Cluster labels with every two clusters closer than ``merge_deg`` made one."""
    labels = np.arange(len(angles))
    gap = np.degrees(circular_distance(angles, angles))
    for a in range(len(angles)):
        for b in range(len(angles)):
            if a != b and gap[a, b] < merge_deg:
                labels[labels == labels[b]] = labels[a]
    return labels[clusters]


def run(seeds, merge_deg, family="noisy"):
    rows = []
    for seed in seeds:
        X, X_test, y, y_test, g, g_test, clusters = load(family, seed)
        angles, clusters_check, true = node_angles(seed, np.bincount(g))
        assert np.array_equal(clusters, clusters_check)
        d = circular_distance(true, true)
        graphs = {
            "true-knn": knn_graph(-d),
            "true-gauss": np.exp(-d ** 2 / (2 * 2 * JITTER ** 2)) * (1 - np.eye(len(true))),
        }
        cluster_post, angle_overlap = bayes_scores(X, y, g, angles)
        p_same = cluster_post @ cluster_post.T
        graphs["bayes"] = knn_graph(p_same)
        graphs["bayes-angle"] = knn_graph(angle_overlap)
        model = DecentralizedBoostingClassifier(200, random_state=seed).fit(X, y, groups=g)
        graphs["learned"] = model.collaboration_graph_.toarray()
        row = {name: 100 * inside_share(W, clusters) for name, W in graphs.items()}
        edges = graphs["bayes"] > 0
        row["E[bayes]"] = 100 * float(p_same[edges].mean())
        row["MAP"] = 100 * float(np.mean(cluster_post.argmax(1) == clusters))
        merged_clusters = merged(clusters, angles, merge_deg)
        for name in ("true-knn", "bayes", "learned"):
            row[f"{name}|merged"] = 100 * inside_share(graphs[name], merged_clusters)
        ordered = np.sort(np.degrees(angles) % 360)
        row["least_gap"] = float(np.diff(np.r_[ordered, ordered[0] + 360]).min())
        row["n_merged"] = len(angles) - len(np.unique(merged_clusters))
        print(f"seed {seed}: angles {np.round(np.degrees(angles) % 360, 1)}, "
              f"least gap {row['least_gap']:.1f} deg, clusters merged at "
              f"{merge_deg} deg: {row['n_merged']}", flush=True)
        print("   " + "  ".join(f"{k} {v:.1f}" for k, v in row.items()
                                if k not in ("least_gap", "n_merged")), flush=True)
        rows.append(row)
    keys = [k for k in rows[0] if k not in ("least_gap", "n_merged")]
    print("mean over seeds " + " ".join(map(str, seeds)) + ":")
    print("   " + "  ".join(f"{k} {np.mean([r[k] for r in rows]):.1f}" for k in keys))
    return rows


def _mean_row(name, rows):
    print(f"{name}: " + "  ".join(f"{v:.1f}" for v in np.mean(rows, axis=0)), flush=True)


def run_ideal(seeds):
    """5-NN shares of the pair signals of ideal (Bayes, true-angle) models."""
    rows = []
    for seed in seeds:
        X, _, y, _, g, _, _, clusters = moons_family("noisy", seed)
        _, _, true = node_angles(seed, np.bincount(g))
        n = len(true)
        loss, error = np.zeros((n, n)), np.zeros((n, n))
        for k in range(n):
            rows_k = g == k
            for l in range(n):
                p_plus = bayes_probability(X[rows_k, :2], true[l])
                p = np.where(y[rows_k] == 1, p_plus, 1.0 - p_plus)
                loss[k, l] = -np.log(np.clip(p, 1e-6, 1.0)).mean()
                error[k, l] = np.mean(p < 0.5)
        rows.append([100 * knn_share(loss, clusters), 100 * knn_share(loss + loss.T, clusters),
                     100 * knn_share(error + error.T, clusters)])
        print(f"seed {seed}: one-end, both, 0-1 " + "  ".join(f"{v:.1f}" for v in rows[-1]),
              flush=True)
    _mean_row("mean one-end, both, 0-1", rows)


def logistic_matrix(model, X, y, g):
    """``L[k, l]``: the mean logistic loss of node l's model on node k's samples."""
    coef = np.hstack([model.coef_, model.intercept_[:, None]])
    H = np.hstack([stump_predictions(X, model.stump_features_, model.stump_thresholds_),
                   np.ones((X.shape[0], 1))])
    margins = H @ coef.T
    signs = np.where(y > 0, 1.0, -1.0)
    return np.array([np.logaddexp(0.0, -signs[g == k, None] * margins[g == k]).mean(0)
                     for k in range(coef.shape[0])])


def pooled_cost(L, B):
    """l's loss on the samples of k and of k's neighbours in ``B``, summed both ways."""
    P = (L + B @ L) / (1.0 + B.sum(axis=1))[:, None]
    return P + P.T


def run_alternate(family, seeds, refit, n_steps=4):
    """Shares of the graphs of alternating pooled-signal graph steps (and refits)."""
    rows = []
    for seed in seeds:
        X, X_test, y, y_test, g, g_test, clusters = load(family, seed)
        model = DecentralizedBoostingClassifier(200, random_state=seed).fit(X, y, groups=g)
        W = model.collaboration_graph_.toarray()
        row = [100 * inside_share(W, clusters), 100 * model.score(X_test, y_test, groups=g_test)]
        B, L = (W > 0).astype(np.float64), logistic_matrix(model, X, y, g)
        for _ in range(n_steps):
            B = knn_graph(-pooled_cost(L, B))
            row.append(100 * inside_share(B, clusters))
            if refit:
                model = DecentralizedBoostingClassifier(200, random_state=seed, graph=B).fit(
                    X, y, groups=g)
                L = logistic_matrix(model, X, y, g)
                row.append(100 * model.score(X_test, y_test, groups=g_test))
        rows.append(row)
        print(f"seed {seed}: " + "  ".join(f"{v:.1f}" for v in row), flush=True)
    _mean_row("mean (learned inside, accuracy, then per step: inside[, accuracy])", rows)


def run_prune(family, seeds):
    """Shares of the default graph pruned to each node's strongest edges."""
    rows = []
    for seed in seeds:
        X, _, y, _, g, _, clusters = load(family, seed)
        W = DecentralizedBoostingClassifier(200, random_state=seed).fit(
            X, y, groups=g).collaboration_graph_.toarray()
        row = [100 * inside_share(W, clusters), np.count_nonzero(W)]
        for m in (1, 2, 3):
            strongest = np.argsort(-W, axis=1, kind="stable")[:, :m]
            chosen = np.zeros_like(W)
            chosen[np.repeat(np.arange(len(W)), m), strongest.ravel()] = 1.0
            chosen *= W > 0
            for kept in (np.maximum(chosen, chosen.T) * W, np.minimum(chosen, chosen.T) * W):
                row += [100 * inside_share(kept, clusters), np.count_nonzero(kept)]
        rows.append(row)
        print(f"seed {seed}: " + "  ".join(f"{v:.1f}" for v in row), flush=True)
    _mean_row("mean (learned inside, nnz; m = 1, 2, 3: union inside, nnz, "
              "intersection inside, nnz)", rows)


def run_linear(family, seeds, columns=(0, 1), Cs=(0.1, 1.0, 10.0)):
    """5-NN shares of the pair signals of local logistic regressions."""
    rows = []
    for seed in seeds:
        X, _, y, _, g, _, clusters = load(family, seed)
        Xc = np.c_[X[:, list(columns)], np.ones(len(X))]
        signs = np.where(y > 0, 1.0, -1.0)
        n, row = g.max() + 1, []
        for C in Cs:
            coef = np.zeros((n, Xc.shape[1]))
            for k in range(n):
                rows_k = g == k
                if np.unique(y[rows_k]).size < 2:   # one class: a constant vote for it
                    coef[k, -1] = 1e-3 * signs[rows_k][0]
                    continue
                fit = LogisticRegression(C=C).fit(Xc[rows_k, :-1], y[rows_k])
                coef[k] = np.r_[fit.coef_[0], fit.intercept_]
            margins = Xc @ coef.T
            L = np.array([np.logaddexp(0.0, -signs[g == k, None] * margins[g == k]).mean(0)
                          for k in range(n)])
            direction = coef[:, :-1] / np.maximum(
                np.linalg.norm(coef[:, :-1], axis=1, keepdims=True), 1e-12)
            row += [100 * knn_share(L + L.T, clusters),
                    100 * knn_share(1.0 - direction @ direction.T, clusters)]
        # The difference of the two class means (a nearest-centroid model).
        centroid = np.zeros((n, len(columns)))
        for k in range(n):
            rows_k = g == k
            if np.unique(y[rows_k]).size == 2:
                centroid[k] = (Xc[rows_k & (y > 0), :-1].mean(0)
                               - Xc[rows_k & (y < 0), :-1].mean(0))
        distance = ((centroid[:, None] - centroid[None]) ** 2).sum(-1)
        one_class = ~centroid.any(axis=1)
        distance[one_class], distance[:, one_class] = np.inf, np.inf
        row.append(100 * knn_share(distance, clusters))
        rows.append(row)
        print(f"seed {seed}: " + "  ".join(f"{v:.1f}" for v in row), flush=True)
    _mean_row("mean (per C: log-loss both ways, 1 - cos; class-mean difference distance)", rows)


def oblique(X, selected, n_directions=8):
    """``X`` with the projections of every pair of selected features on
    ``n_directions`` evenly spaced directions of their plane (the axes excluded)."""
    phis = np.pi * np.arange(1, n_directions) / n_directions
    phis = phis[~np.isclose(phis, np.pi / 2)]
    extra = [np.cos(phi) * X[:, i] + np.sin(phi) * X[:, j]
             for a, i in enumerate(selected) for j in selected[a + 1:] for phi in phis]
    return np.column_stack([X] + extra) if extra else X


def run_oblique(family, seeds):
    """Dada's defaults with oblique features of the vote's selected pairs."""
    rows = []
    for seed in seeds:
        X, X_test, y, y_test, g, g_test, clusters = load(family, seed)
        model = DecentralizedBoostingClassifier(200, random_state=seed).fit(X, y, groups=g)
        row = [100 * model.score(X_test, y_test, groups=g_test),
               100 * inside_share(model.collaboration_graph_.toarray(), clusters),
               np.count_nonzero(model.collaboration_graph_.toarray())]
        selected = np.flatnonzero(model.selected_features_).tolist()
        model = DecentralizedBoostingClassifier(200, random_state=seed).fit(
            oblique(X, selected), y, groups=g)
        W = model.collaboration_graph_.toarray()
        row += [100 * model.score(oblique(X_test, selected), y_test, groups=g_test),
                100 * inside_share(W, clusters), np.count_nonzero(W)]
        rows.append(row)
        print(f"seed {seed} (selected {selected}): " + "  ".join(f"{v:.1f}" for v in row),
              flush=True)
    _mean_row("mean (defaults: accuracy, inside, nnz; oblique: accuracy, inside, nnz)", rows)


CAPACITY = {"defaults": {}, "beta=10,mu=1": dict(beta=10.0, mu=1.0),
            "beta=30,mu=0.3": dict(beta=30.0, mu=0.3), "max_iter=500n": dict(max_iter=50_000)}


def run_capacity(family, seeds):
    """Pair signal of Dada's models fitted on the oracle graph, by model capacity."""
    for name, params in CAPACITY.items():
        rows = []
        for seed in seeds:
            X, X_test, y, y_test, g, g_test, clusters = load(family, seed)
            oracle = (clusters[:, None] == clusters[None, :]).astype(np.float64)
            np.fill_diagonal(oracle, 0.0)
            model = DecentralizedBoostingClassifier(
                200, random_state=seed, graph=oracle, **params).fit(X, y, groups=g)
            L = logistic_matrix(model, X, y, g)
            rows.append([100 * model.score(X_test, y_test, groups=g_test),
                         100 * knn_share(L + L.T, clusters)])
        _mean_row(f"{name} on the oracle graph (accuracy, log-loss both ways 5-NN share)", rows)


def mixed_graph(clusters, n_inside, seed, k=K):
    """Every node linked to ``n_inside`` random nodes of its cluster and ``k -
    n_inside`` random others (seeded), symmetrized, weights 1."""
    rng = np.random.RandomState(seed)
    n = len(clusters)
    A = np.zeros((n, n))
    for node in range(n):
        same = np.flatnonzero((clusters == clusters[node]) & (np.arange(n) != node))
        other = np.flatnonzero(clusters != clusters[node])
        A[node, rng.choice(same, n_inside, replace=False)] = 1.0
        A[node, rng.choice(other, k - n_inside, replace=False)] = 1.0
    return np.maximum(A, A.T)


def run_fixed_point(family, seeds):
    """The map from a fixed graph's share to its fitted models' pair-signal share."""
    for n_inside in range(2, K + 1):
        rows = []
        for seed in seeds:
            X, X_test, y, y_test, g, g_test, clusters = load(family, seed)
            B = mixed_graph(clusters, n_inside, seed)
            model = DecentralizedBoostingClassifier(200, random_state=seed, graph=B).fit(
                X, y, groups=g)
            L = logistic_matrix(model, X, y, g)
            rows.append([100 * inside_share(B, clusters),
                         100 * model.score(X_test, y_test, groups=g_test),
                         100 * knn_share(L + L.T, clusters)])
        _mean_row(f"{n_inside} of {K} inside (graph share, accuracy, signal's 5-NN share)", rows)


class _Stump:
    """``+1`` where feature ``j`` exceeds ``t``, else ``-1``."""

    def __init__(self, j, t):
        self.j, self.t = j, t

    def __call__(self, X):
        return np.where(X[:, self.j] > self.t, 1.0, -1.0)


class _Corner:
    """The product of two stumps, on features ``i`` and ``j``: a depth-2 split."""

    def __init__(self, i, a, j, b):
        self.i, self.a, self.j, self.b = i, a, j, b

    def __call__(self, X):
        return (np.where(X[:, self.i] > self.a, 1.0, -1.0)
                * np.where(X[:, self.j] > self.b, 1.0, -1.0))


def corner_predictors(X, selected, n_base=200, corner_share=0.5):
    """Stumps evenly inside each selected feature's range and products of two
    stumps ("corners") on every pair of selected features, ``n_base`` in all."""
    lo, hi = X.min(axis=0), X.max(axis=0)

    def inner(j, n):
        return np.linspace(lo[j], hi[j], n + 2)[1:-1]

    pairs = [(i, j) for a, i in enumerate(selected) for j in selected[a + 1:]]
    side = int(np.sqrt(corner_share * n_base / len(pairs))) if pairs else 0
    corners = [_Corner(i, a, j, b) for i, j in pairs for a in inner(i, side)
               for b in inner(j, side)]
    per_feature = (n_base - len(corners)) // len(selected)
    return [_Stump(j, t) for j in selected for t in inner(j, per_feature)] + corners


def run_corners(family, seeds, forced=None, shares=(0.0, 0.5), beta=None, mu=None,
                two_stage=False):
    """Dada with stumps and corners on the vote's selected features.

    ``two_stage``: then Dada's defaults on the corners fit's graph, fixed."""
    knobs = {k: v for k, v in (("beta", beta), ("mu", mu)) if v is not None}
    rows = []
    for seed in seeds:
        X, X_test, y, y_test, g, g_test, clusters = load(family, seed)
        model = DecentralizedBoostingClassifier(200, random_state=seed).fit(X, y, groups=g)
        row = [100 * model.score(X_test, y_test, groups=g_test),
               100 * inside_share(model.collaboration_graph_.toarray(), clusters),
               np.count_nonzero(model.collaboration_graph_.toarray())]
        selected = forced or np.flatnonzero(model.selected_features_).tolist()
        for share in shares:
            model = DecentralizedBoostingClassifier(
                200, random_state=seed, **knobs,
                base_predictors=corner_predictors(X, selected, corner_share=share)).fit(
                    X, y, groups=g)
            W = model.collaboration_graph_.toarray()
            row += [100 * model.score(X_test, y_test, groups=g_test),
                    100 * inside_share(W, clusters), np.count_nonzero(W)]
            if two_stage:
                model = DecentralizedBoostingClassifier(200, random_state=seed, graph=W).fit(
                    X, y, groups=g)
                row.append(100 * model.score(X_test, y_test, groups=g_test))
        rows.append(row)
        print(f"seed {seed} (features {selected}): " + "  ".join(f"{v:.1f}" for v in row),
              flush=True)
    _mean_row(f"mean (defaults, then corner shares {list(shares)}: accuracy, inside, nnz"
              + (", the defaults' accuracy on that graph" if two_stage else "") + " each)", rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", nargs="?", default="ceiling",
                        choices=["ceiling", "ideal", "alternate", "prune", "linear", "oblique",
                                 "capacity", "fixed-point", "corners"])
    parser.add_argument("--family", default="noisy", help="noisy, iid "
                        "(dada_vote_evidence.py) or, but for ceiling and ideal, jitter")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--merge", type=float, default=45.0,
                        help="clusters closer than this many degrees count as one")
    parser.add_argument("--refit", action="store_true", help="alternate: refit Dada each step")
    parser.add_argument("--features", type=int, nargs="+", default=None,
                        help="corners: these features instead of the vote's")
    parser.add_argument("--two-stage", action="store_true",
                        help="corners: also the defaults on the corners fit's graph, fixed")
    parser.add_argument("--beta", type=float, default=None, help="corners: Dada's beta")
    parser.add_argument("--mu", type=float, default=None, help="corners: Dada's mu")
    parser.add_argument("--corner-shares", type=float, nargs="+", default=[0.0, 0.5],
                        help="corners: shares of the 200 base predictors given to corners")
    args = parser.parse_args(argv)
    if args.part == "ceiling":
        if args.family not in ("noisy", "iid"):
            raise ValueError(f"ceiling: --family noisy or iid, got {args.family!r}")
        run(args.seeds, args.merge, args.family)
    elif args.part == "ideal":
        run_ideal(args.seeds)
    elif args.part == "alternate":
        run_alternate(args.family, args.seeds, args.refit)
    elif args.part == "corners":
        run_corners(args.family, args.seeds, args.features, args.corner_shares,
                    args.beta, args.mu, args.two_stage)
    elif args.part == "fixed-point":
        run_fixed_point(args.family, args.seeds)
    elif args.part == "capacity":
        run_capacity(args.family, args.seeds)
    elif args.part == "oblique":
        run_oblique(args.family, args.seeds)
    elif args.part == "prune":
        run_prune(args.family, args.seeds)
    else:
        run_linear(args.family, args.seeds)


if __name__ == "__main__":
    main()
