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

Usage::

    python benchmarks/dada_graph_ceiling.py [--seeds 0 1 2 3 4] [--merge 45]

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
"""
import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dada_experiments import MOONS_FAMILIES, cluster_angles, moons_family  # noqa: E402

from skfed.boosting import DecentralizedBoostingClassifier  # noqa: E402

CLUSTER_SIZES = (10, 20, 30, 40)
JITTER = MOONS_FAMILIES["noisy"]["angle_jitter"]
NOISE = MOONS_FAMILIES["noisy"]["noise"]
FLIPS = MOONS_FAMILIES["noisy"]["label_noise"]
CENTRE = np.array([0.5, 0.25])
K = 5


def node_angles(seed, n_train, n_nodes=100):
    """True rotation angle of every node of the "noisy" family's seed."""
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


def log_likelihood(X2, y, thetas, n_arc=181):
    """``sum_i log p(x_i, y_i | theta)`` for every angle of ``thetas``.

    The moons of ``make_moons`` (upper: ``(cos t, sin t)``, label -1;
    lower: ``(1 - cos t, 0.5 - sin t)``, label +1), arc positions uniform
    on ``[0, pi]``, centred, rotated by ``theta`` as ``make_rotated_moons``
    does (``x @ [[c, s], [-s, c]]``), Gaussian noise ``NOISE``, either moon
    half the time, labels flipped with probability ``FLIPS``.
    """
    t = np.linspace(0.0, np.pi, n_arc)
    upper = np.c_[np.cos(t), np.sin(t)] - CENTRE
    lower = np.c_[1.0 - np.cos(t), 0.5 - np.sin(t)] - CENTRE
    c, s = np.cos(thetas), np.sin(thetas)
    total = np.zeros(len(thetas))
    for x, label in zip(X2, y):
        # Rotating the sample back by -theta equals rotating the arcs by theta.
        back = np.c_[x[0] * c + x[1] * s, -x[0] * s + x[1] * c]     # (n_theta, 2)
        dens = []
        for arc in (upper, lower):
            d2 = ((back[:, None, :] - arc[None, :, :]) ** 2).sum(-1)
            dens.append(np.exp(-d2 / (2 * NOISE ** 2)).mean(1) / (2 * np.pi * NOISE ** 2))
        own, other = (dens[1], dens[0]) if label == 1 else (dens[0], dens[1])
        total += np.log(0.5 * ((1 - FLIPS) * own + FLIPS * other) + 1e-300)
    return total


def bayes_scores(X, y, g, angles, n_grid=720):
    """Posterior over the cluster (known angles) and over the angle (uniform prior)."""
    thetas = np.linspace(0.0, 2 * np.pi, n_grid, endpoint=False)
    n_nodes = g.max() + 1
    log_post = np.array([log_likelihood(X[g == k, :2], y[g == k], thetas)
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


def run(seeds, merge_deg):
    rows = []
    for seed in seeds:
        X, X_test, y, y_test, g, g_test, _, clusters = moons_family("noisy", seed)
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--merge", type=float, default=45.0,
                        help="clusters closer than this many degrees count as one")
    args = parser.parse_args(argv)
    run(args.seeds, args.merge)


if __name__ == "__main__":
    main()
