"""How much a Dada pair signal separates the true clusters of the held-out moons (issue 33).

Issue 33 asks for at least 85 % of the learned graph's weight inside the
true clusters on the held-out moons.  Dada's defaults reach 76.4 % on
"noisy" (four clusters at random angles at least 30 degrees apart), 90.9 %
on "jitter" and 71.2 % on "noisy" with i.i.d. arc positions
(``dada_vote_evidence.py``).  This script measures where the gap comes
from, on seeds 0-4 of each family:

``costs``
    After a default fit, every pair signal the graph step could use, as a
    cost (lower: more alike), scored two ways: ``knn``, the share of the
    edges inside the true clusters when every node links to its 5 cheapest
    peers (symmetrized; 5 is ``max_neighbors``), and ``auc``, the
    probability that a cross-cluster pair costs more than a same-cluster
    pair.  Signals: ``z`` the squared distance of the models' coefficients
    (the graph step's model term), ``e`` the peer scores ``3 (L_k(alpha_l)
    - L_k(alpha_k))`` summed both ways (the graph step's score term),
    ``z+e`` the two as the step combines them (``mu / 2 = 1.5``),
    ``logistic`` the mean logistic loss of each model on the other node's
    samples, ``0-1`` its error rate, ``fdist`` the mean squared difference
    of the two models' margins on both nodes' samples, ``pooled`` the
    logistic loss pooled over k and its learned neighbours (what a
    neighbourhood vote on a peer could know) and ``oracle`` the same pooled
    over k's true cluster (a bound that needs the clusters).  ``learned``:
    the learned graph's own share (its weights).
``candidates``
    Dada's defaults on a topology that lets every node draw ``n_same`` of
    its cluster and ``n_other`` other nodes (symmetrized; seeded): the
    learned graph's share against the candidates' share.  How much the
    graph step itself rejects cross-cluster candidates.
``relative``
    Relative acceptance rules (issue 33's second shift): a peer judged
    against the node's other peers, not against an absolute cost level.
    The same ``knn`` / ``auc`` scores for ``rank(c)``, the mutual rank
    ``rank_k(l) + rank_l(k)`` of a cost; ``centred(c)``, each end's cost
    minus its median over every peer, summed over both ends; ``e1`` the
    one-end peer score and ``d`` the mean logistic-loss increase of k's
    samples under l's model; ``ucb(d)`` ``d + 2 se`` with ``se`` the
    standard error over k's samples (a confidence bound from the number
    of samples behind a score), ``t`` ``d / se``; ``profile`` ``1 -
    corr`` of two nodes' rows of the logistic cost (a second-order signal:
    nodes of one cluster score every other node's model alike),
    ``profile20`` the same on the models of 20 landmark nodes.
``centred``
    Dada's defaults with the per-node centring inside the graph step
    (:class:`centred_losses`: each node's loss shifted by a quantile of its
    peer scores, so every pair's cost is centred at both ends), for
    several quantiles and shift weights.
``profile-graph``
    Dada fitted on the fixed 5-nearest-neighbour graph of ``profile``
    (from the default fit's models): what the best relative signal's graph
    is worth in accuracy.
``oracle-models``
    The ``costs`` of Dada fitted on the oracle graph (``graph=`` the true
    clusters): how well the pair signals would separate the clusters if
    the models were the best the clusters allow.
``screen``
    Issue 33's fourth list of candidate signals (dada5, 2026-11-28), every
    one computable from what Dada already exchanges or from the models a
    node could fit itself, on the default fit: ``logistic`` as in
    ``costs`` (the reference); the cross loss at other temperatures,
    mean ``log(1 + exp(-t y f_l(x)))`` over k's samples with ``t`` =
    0.001 (``agree``: the margin's agreement with k's labels), 0.3 and 3;
    ``zstd`` the coefficient distance after dividing every stump's weight
    by its spread over the nodes (per-stump standardization); ``probe``
    the squared distance of the two models' margins on 2,000 public
    points drawn uniformly in the agreed feature range (a smoothed model
    distance that needs no data), ``probe-sign`` the share of those points
    where the two signs differ; ``local<b>`` the cross loss of models each
    node fits alone (100 Frank-Wolfe steps, l1 radius ``b`` = 0.3, 1, 3:
    stronger local regularization than the boosting models, NumPy
    :func:`local_frank_wolfe`); ``profile`` as in ``relative``;
    ``posterior`` the overlap ``sum_m P_k(m) P_l(m)`` of two nodes'
    posteriors over the 100 models as hypotheses, ``P_k(m)`` proportional
    to ``exp(-m_k L[k, m])`` (the Bayes oracle's pair probability with the
    nodes' models in place of the generator's clusters); ``spectral`` the
    distance in the top 4 eigenvectors of the normalized similarity of
    ``logistic`` (a global clustering: what transitivity could add at
    best); ``4 fits`` ``logistic`` averaged over Dada fits of four random
    states (the asynchronous order's noise averaged out: what a refresh
    averaged over the models' trajectory could gain at best), and "mean
    graph" the share of the four learned graphs' mean.
``rff``
    The cross loss with models of another class that a node fits alone:
    kernel ridge regression on 300 public random Fourier features of the
    selected features (standardized by their pooled mean and spread;
    bandwidth / ridge 0.3 / 1, 0.3 / 0.3, 0.5 / 1;
    :func:`rff_local_models`), the log-loss of ``sigmoid(3 f_l(x))`` over
    k's samples summed both ways (:func:`rff_cost`); on features 0-1
    ("f01", the true ones) and on the vote's ("vote"); then Dada's
    defaults on the fixed symmetrized 5-NN graph of the "vote" 0.3 / 1
    signal (a central computation over all pairs: a measurement of the
    signal, not a decentralized step).
``rff-graph``
    Dada's own graph steps (peer sampling, the same learner, bounded
    degrees, sparsification) with the ``rff`` models (bandwidth 0.3,
    ridge 1, vote's features) in place of the stump models: the graph's
    model term and its peer scores (log-sum-exp of ``scale y phi(x)^T
    w_l`` over k's samples, ``scale`` 1 and 3) read the kernel models
    (:class:`rff_graph_models`, a patch of ``_GraphRunner.run``); the
    boosting models, losses and everything else are the defaults'.  Also
    on School, HAR walking and Computer buyers (runs 0-2).
Usage::

    python benchmarks/dada_graph_signal.py costs [FAMILY ...]         # noisy iid jitter
    python benchmarks/dada_graph_signal.py candidates [FAMILY ...]    # noisy
    python benchmarks/dada_graph_signal.py oracle-models [FAMILY ...] # noisy iid
    python benchmarks/dada_graph_signal.py relative [FAMILY ...]      # noisy iid jitter
    python benchmarks/dada_graph_signal.py centred [FAMILY ...]       # noisy jitter iid random
    python benchmarks/dada_graph_signal.py profile-graph [FAMILY ...] # noisy iid
    python benchmarks/dada_graph_signal.py screen [FAMILY ...] [SEED ...]  # noisy; seeds 0-4
    python benchmarks/dada_graph_signal.py rff [FAMILY ...] [SEED ...]     # noisy; seeds 0-4
    python benchmarks/dada_graph_signal.py rff-graph [FAMILY|school|har|computer ...] [SEED ...] [D=300]

Results (2 shared cores, 2026-11-27, seeds 0-4; knn % / auc %)::

    family   learned   z          e          z+e        logistic   0-1        fdist      pooled     oracle
    noisy    76.4      72.7/80.7  73.3/79.6  73.5/79.9  75.5/85.5  72.9/85.7  74.3/81.1  73.8/84.7  87.8/93.2
    iid      71.2      69.8/64.9  71.7/75.6  71.4/75.0  70.3/85.1  67.5/86.4  71.4/80.7  70.6/84.4  85.3/93.0
    jitter   90.9      84.2/83.2  86.6/87.8  86.4/88.0  88.1/92.0  88.4/91.9  86.2/89.7  87.5/91.7  96.3/98.3

    noisy: candidates (other, same)   share of candidates in cluster   learned graph inside %
           8, 2                        0.20                             64.6
           complete topology           0.30                             76.4
           5, 5                        0.48                             86.5
           5, 9                        0.60                             92.0

    oracle-models  z          e          z+e        logistic   0-1        fdist      pooled
    noisy          99.9/99.9  84.3/84.9  87.9/86.7  85.3/90.5  82.2/89.9  87.5/87.3  96.3/96.8
    iid            98.9/96.8  80.8/83.6  82.6/84.5  80.3/89.4  76.8/89.7  84.3/87.9  95.1/97.2

No signal the models and one node's samples give separates the noisy
clusters better than the learned graph already does (5-nearest-neighbour
shares 67-76 % against 71-76 %); pooling a peer's loss over the node's
learned neighbours does not help (73.8 %), and only pooling over the true
cluster reaches 85 %.  Fitted on the oracle graph, the models' distance
mirrors that graph (99 %), while the scores on a node's own samples still
reach only 81-84 % (a node's 5 nearest peers by its score; "pooled" is
then over the oracle graph): the graph step's model term locks in the
graph the models were smoothed on.  The learned graph's share follows its
candidates'
(a peer drawn through a neighbour, which raises the share of same-cluster
candidates, was also measured, 2-5 of the 5 peers: 73.7-76.8 % on noisy,
68.7-71.6 % on i.i.d., code not kept).  Started from the oracle graph
(weights 0.1; the first graph learning replaced by it, a one-off prototype), the
re-learnings drift back to 76-78 % on noisy (defaults, ``mu_graph`` 0.3
or 1, ``max_neighbors=10``, ``peer_scoring=10``); the oracle graph kept
fixed scores 79.05 % against the defaults' 75.95 %.

Relative acceptance (issue 33, second shift, 2026-11-27 night; seeds
0-4; ``relative``: knn % / auc %)::

    family  learned  z+e        rank(z+e)  centred(z+e)  rank(e1)   centred(e1)  rank(d)    ucb(d)     rank(ucb)  t          profile    profile20
    noisy   76.4     73.5/79.9  73.5/82.8  75.2/83.3     73.7/82.4  75.1/83.0    75.1/84.4  74.1/81.6  73.7/82.4  70.5/82.1  77.6/87.1  77.1/86.1
    iid     71.2     71.4/75.0  70.9/79.6  71.6/81.1     71.0/79.2  71.4/81.4    72.0/84.1  71.2/81.2  70.9/81.1  67.0/76.7  76.8/87.4  74.6/86.3
    jitter  90.9     86.4/88.0  85.4/88.3  86.7/88.7     84.7/88.1  86.6/88.6    86.9/89.7  85.8/89.1  85.2/88.4  82.2/86.7  89.9/92.6  89.5/92.4

Judging a peer against the node's other peers raises the auc (79.9 to
82.8-84.4 % on noisy: the absolute level of a node's costs varies from
node to node) but not the share of a 5-nearest-neighbour graph, which is
already a per-node rank (73.5-75.2 % against the learned 76.4 %); a
confidence bound from the samples behind a score does no better (74.1 %,
the t statistic 70.5 %).  The second-order ``profile`` is the best
signal measured (77.6 % on noisy, 76.8 % on i.i.d. arcs against the
learned 71.2 %), still short of 85 %.

The centring inside the graph step (``centred``; accuracy %, inside %,
non-zeros; quantile / shift; the first row is the defaults)::

    variant        noisy              jitter             iid                random
    defaults       75.95 76.4 422     81.26 90.9 437     78.12 71.2 418     74.83 90.3 432
    0.50 / 1       76.44 78.3 439     81.30 90.2 448     78.24 73.0 422     74.78 90.4 439
    0.50 / 0.5     76.22 77.1 438     81.52 90.5 448     78.35 72.2 419     75.05 90.6 434
    0.50 / 2       75.88 76.7 446     81.48 90.4 444     78.32 73.2 446     74.65 87.9 440
    0.75 / 1       76.22 77.2 443     81.47 91.4 449     78.15 71.1 434     74.75 89.9 436
    0.25 / 1       75.57 75.4 444     81.63 90.1 451     78.35 73.8 427     74.60 88.7 438
    0.10 / 1       76.23 74.6 439     81.57 89.0 452     78.33 72.5 410     74.63 88.0 438

The median centring lifts noisy by 1.9 points of weight inside (per seed
89.3, 62.0, 75.3, 81.2, 83.7 against 80.7, 58.7, 76.4, 81.4, 85.0: two
seeds gain, three lose) and accuracy by 0.5 point, i.i.d. arcs by 1.8
points, and moves jitter and random by -0.7 and +0.1: within the
seed-to-seed spread, far from 85 %, and it would change the graph
objective the docs state (each ``l_k`` replaced by ``l_k - q_k``), so it
was not made the default and not run on the real data.  The fixed
``profile`` graph (``profile-graph``) scores 76.48 % on noisy against the
defaults' 75.95 % and 78.04 % on i.i.d. arcs against 78.12 % (77.6 and
76.8 % of its weight inside): the best relative signal is worth at most
half a point here.

The user guide's former "Vote or graph?" paragraph (moved here from
``doc/user_guide/boosting.rst`` on 2026-11-27 night, text unchanged; the
guide keeps the measured limit).

**Vote or graph?** (issue 33, measured 2026-11-27 night; no default
changed).  Pooling the nodes' evidence by magnitude instead of counting
ballots (each node's correlation ratio standardized by 200 permutations
of its own labels, summed over the nodes and divided by the square root
of their number) gives seed 1's feature 1 a score of 0.5, inside the
noise features' range (-1.5 to 0.7): no valid test finds it on these
training samples.  The same family with the moons' arc positions drawn
independently (same angles, jitter, sample counts, noise, padding and
flips) gives features 0 and 1 scores of 7 to 22, and the vote keeps
exactly those two on all five seeds (no noise feature on either
generator, counted by ``test_feature_vote_rejects_the_noisy_familys_noise_features``).
Seeds 0-4, Dada's defaults (test accuracy %, weight inside the true
clusters %, non-zeros)::

    python benchmarks/dada_vote_evidence.py

    generator            defaults              features 0-1 only     keeps feature 1
    "noisy"              75.95  76.4  422      77.21  79.1  416      4/5
    i.i.d. arcs          78.12  71.2  418      78.12  71.2  418      5/5

With the right features the graph still misses 85 %: on i.i.d. arcs
71.2 %.  Every pair signal the fitted models and a node's samples give
(coefficient distance, the peer scores, mean logistic loss, error rate,
margin distance, a peer's loss pooled over the node's learned
neighbours) puts 67-76 % of a 5-nearest-neighbour graph's edges inside
the clusters, about the learned graph's own share (71-76 %); pooling
over the true cluster would reach 85-88 %.  The learned share follows the share of
same-cluster peers among a node's candidates (64.6 % with 20 % of them,
86.5 % with 48 %, 92.0 % with 60 %, on restricted topologies), but
in one-off prototypes (not kept) drawing peers through neighbours (2 to
5 of the 5) did not raise it
(73.7-76.8 %), nor did peer scores weighed by the node's sample count
(73.5-75.8 %); peer scores by the mean logistic loss reach 79.2 and 80.3 %
(weights 10 and 30) at 0.2-0.3 point of accuracy, far from 85 %.  Nor
is it where the graph starts: started from the oracle graph (weights
0.1, another one-off prototype), the re-learnings drift back to 76-78 %
(at the defaults, ``mu_graph`` 0.3 or 1, ``max_neighbors=10`` or
``peer_scoring=10``), while that graph kept fixed scores 79.05 % against
the defaults' 75.95 %: the equilibrium of the graph step under these pair
costs, not its start, sets the share::

    python benchmarks/dada_graph_signal.py costs
    python benchmarks/dada_graph_signal.py candidates

A larger l1 ball with less smoothing (``mu * beta`` kept at 10) lifts
every moons family, the held-out ones included, but not to 85 % (seeds
0-4; test accuracy %, weight inside the true clusters %, non-zeros)::

    python benchmarks/dada_experiments.py graph-variants noisy,jitter,paper,random 0 1 2 3 4 -- defaults beta=5,mu=2 beta=10,mu=1

    variant            noisy               jitter              paper               random
    defaults        75.95  76.4  422    81.26  90.9  437    97.09  99.1  440    74.83  90.3  432
    beta=5,mu=2     76.32  76.7  402    81.62  90.5  388    97.77  99.2  419    76.01  91.3  428
    beta=10,mu=1    76.51  79.5  387    81.14  92.4  362    98.29  99.8  392    76.74  93.1  400

The fourth screen (``screen``; dada5, 2026-11-28; knn % / auc %; seeds
5-9 are the held-out judge)::

    python benchmarks/dada_graph_signal.py screen noisy 0 1 2 3 4
    python benchmarks/dada_graph_signal.py screen noisy 5 6 7 8 9
    python benchmarks/dada_graph_signal.py screen jitter iid

    signal        noisy 0-4   noisy 5-9   jitter 0-4   iid 0-4
    learned       76.4        72.1        90.9         71.2
    mean graph    78.2        72.0        90.1         71.5
    logistic      75.5/85.5   70.0/78.3   88.1/92.0    70.3/85.1
    agree         72.0/85.5   66.3/78.1   84.7/90.3    68.9/85.5
    t=0.3         73.9/85.7   68.8/78.4   86.4/91.1    70.2/85.7
    t=3           74.8/84.2   69.1/76.9   87.0/91.6    70.2/83.8
    zstd          70.7/67.8   65.4/66.4   82.9/69.2    68.5/65.3
    probe         72.8/81.3   64.9/70.2   83.3/81.8    71.7/81.0
    probe-sign    69.8/81.7   62.8/70.2   82.6/80.2    68.3/83.7
    local0.3      59.6/75.1   54.2/68.0   75.2/84.5    64.4/81.7
    local1        65.0/76.6   57.5/69.4   78.9/84.7    66.6/82.3
    local3        68.0/76.0   60.0/69.4   83.1/85.3    69.2/81.2
    profile       77.6/87.1   71.6/79.6   89.9/92.6    76.8/87.4
    posterior     77.4/88.8   71.4/81.8   85.6/92.3    73.3/88.5
    spectral      74.5/82.6   66.3/75.7   86.9/90.0    73.4/81.6
    4 fits        76.5/85.8   70.6/78.4   89.1/92.4    71.6/85.4

No signal of the screen puts more of its 5-nearest-neighbour graph inside
the held-out seeds' clusters than the learned graph already does (72.1
%): the best, ``profile`` and ``posterior``, 71.6 and 71.4 %.  Normalizing
the model distance (per stump, or functionally on public probe points)
does worse than the cross loss it would replace; a node's own models are
poorer still at any l1 radius (54-60 % held out), and the boosting models
re-fitted on the learned graph at ``mu`` 0.3 / 1 / 3 / 10 (``beta`` 3) or
``beta`` 1 / 10 (``mu`` 3) give the cross loss 73.5 / 75.1 / 75.2 / 73.5
and 71.9 / 74.3 % on noisy seeds 0-4 (a one-off script): no
regularization strength makes the models a better signal.  Averaging out
the asynchronous order (four fits) adds 1 point on seeds 0-4 and none
held out, and a global spectral clustering of the signal loses 1-4
points: the signal itself, not its noise or its use, is short.  Half of
the held-out gap is the vote: on seed 8 the vote keeps feature 0 only and
every signal stays at 34-43 %; on the four other held-out seeds the
learned graph holds 81.2 %.  A conditional ballot (a node's correlation
ratios within the two halves of its top feature, a one-off script) does
not find feature 1 either: on seeds 1 and 8 it gets 12 and 24 votes
against 25 and 33 for the most-voted noise feature; nor does a scale
ballot (the correlation ratio of ``|x - median|``, alone or the larger of
the two per feature: 15 / 15 and 13 / 21 votes against 31 / 33 and 34 /
32; the marginal ranking ballot itself gives feature 1 22 and 27 votes
against 32 and 31, critical count 36-37).  A graph refresh
after the models settle (a second fit whose local phase is replaced by
the first fit's final models, so its first graph is learned from scratch
on settled models by the graph learner itself; a one-off prototype that
patched ``_BoostingState.local_models``) learns a first graph of 77.8 %
on seeds 0-4 but 70.6 % held out, and ends at 76.2 % / 71.8 % with
accuracy 75.90 / 73.05 % against the defaults' 75.95 / 73.31 %.  Nothing
was adopted.

The lead (``rff``; dada5, 2026-11-28; 5-NN share %, and test accuracy %
of Dada's defaults on their learned graph / on the fixed 5-NN graph of
the "vote" 0.3 / 1 signal)::

    python benchmarks/dada_graph_signal.py rff noisy 0 1 2 3 4
    python benchmarks/dada_graph_signal.py rff noisy 5 6 7 8 9
    python benchmarks/dada_graph_signal.py rff jitter iid

    family        learned  f01 0.3/1  f01 0.3/0.3  f01 0.5/1  vote 0.3/1  vote 0.3/0.3  vote 0.5/1  accuracy learned / RFF graph
    noisy 0-4     76.4     87.9       87.3         86.3       83.5        81.9          82.2        75.95 / 77.45
    noisy 5-9     72.1     86.6       85.3         85.6       80.8        79.0          79.3        73.31 / 75.48
    jitter 0-4    90.9     93.6       92.3         92.9       93.6        92.3          92.9        81.26 / 84.66
    iid 0-4       71.2     83.1       82.8         84.1       83.1        82.8          84.1        78.12 / 79.08

A node's own kernel model, fitted on its 3-14 samples alone, carries the
cluster signal that Dada's smoothed additive stump models do not: on the
held-out seeds 80.8 % of its 5-NN graph lies inside (86.6 % with the true
features; 90.0 % on the four held-out seeds whose vote keeps both
features, 44.0 % on seed 8, which keeps one), against the learned graph's
72.1 %, and Dada fixed on that graph gains on every family (+2.2 points
held out, +3.4 on "jitter").  A plain kernel vote of node l's raw
samples (bandwidth 0.15 / 0.3 / 0.6 on features 0-1; a reference a node
could not send) gives 88.3 / 85.7 / 76.6 % on seeds 0-4 and 87.0 / 84.7 /
73.5 % held out: the kernel model loses nothing against the raw samples.
Not yet in Dada: the graph step would score these models (300 float64
each, against Dada's sparse stump models: counted per peer) in place of
or beside the stump models, under peer sampling, and the real data sets
(School's and Computer buyers' many selected features, HAR's) must not
lose; the vote still misses feature 1 on seeds 1 and 8.

In Dada's graph step (``rff-graph``; dada5, 2026-11-28; test accuracy %,
weight inside the true clusters %, non-zeros, MB sent; the oracle graph
has 2,900 non-zeros)::

    python benchmarks/dada_graph_signal.py rff-graph noisy 0 1 2 3 4
    python benchmarks/dada_graph_signal.py rff-graph noisy 5 6 7 8 9
    python benchmarks/dada_graph_signal.py rff-graph jitter paper random iid
    python benchmarks/dada_graph_signal.py rff-graph school har computer 0 1 2

    family / data set     defaults                    RFF graph, scale 1           RFF graph, scale 3
    noisy 0-4             75.95  76.4  422   27.7     76.26  85.1  428  269.1     76.48  84.8  310  268.8
    noisy 5-9 (held out)  73.31  72.1  412   28.3     74.38  85.4  413  269.2     74.50  84.9  365  269.0
    jitter 0-4            81.26  90.9  437   27.4     83.97  96.3  397  269.1     83.55  95.1  365  268.9
    paper 0-4             97.09  99.1  440   23.8     98.86  99.8  432  268.9     98.85  99.9  380  268.8
    random 0-4            74.83  90.3  432   28.0     75.65  98.7  420  269.1     75.57  98.2  421  268.9
    iid 0-4               78.12  71.2  418   27.1     78.95  84.7  423  269.1     78.90  84.6  361  268.9
    School 0-2            71.49     -  617   19.3     71.53     -  619  374.4     71.33     -  609  374.4
    HAR walking 0-2       99.34     -   80    2.3     99.46     -   42   29.0     99.55     -   43   29.0
    Computer buyers 0-2   71.78     -  855   25.9     71.88     -  866  511.8     71.67     -  868  511.8

At scale 1 the learned graph holds 85.4 % of its weight inside the
held-out seeds' clusters (issue 33's target; per seed 95.1, 90.0, 89.1,
54.7 (seed 8, one feature voted), 97.9) with 413 non-zeros, and no
family or data set loses on the mean (moons +0.3 to +2.7 points, School
+0.04, HAR +0.12, Computer buyers +0.10); scale 3 loses School and
Computer buyers.  The bandwidth, ridge and number of features were
chosen on seeds 0-4 (``rff``), scale 1 and 3 both shown.  The price is
the bytes: every graph-step request and answer carries a dense 300-float
model, 10 to 20 times the defaults' total.  The kernel models never
change during a fit, so a node would need to send its model to a peer
only once: the defaults' bytes plus 2,400 bytes per ordered pair that
talked in the fit's communication log (every pair of the complete
topology talks) give 52.1 MB on noisy 5-9 (1.8 times the defaults'
28.3), 65.4 on School (3.4 times), 3.3 on HAR walking (1.4 times) and
111.8 on Computer buyers (4.3 times), printed by the same command (a
count, not a run with a cache).  With 100 random features (``D=100``,
scale 1) the held-out share drops to 81.9 % (accuracy 74.14 %), School
71.51 and Computer buyers 71.89, at 36.2 / 34.7 / 54.5 MB counted once
per pair::

    python benchmarks/dada_graph_signal.py rff-graph noisy 5 6 7 8 9 D=100
    python benchmarks/dada_graph_signal.py rff-graph school computer 0 1 2 D=100
Not adopted this session: the caching of the models' messages, the
timing at 10,000 nodes (the scores cost O(``m_k D``) per received model
with ``D`` = 300 against 200 stumps) and the Done table
(``dada_experiments.py defaults``) with the change in the package are
open.  (Built by dada6, 2026-11-28, as ``graph_signal="kernel"``, Dada's
default, each model sent once per pair: ``benchmarks/dada_kernel_graph.py``.)

On the runs the defaults are chosen on (moons seeds 10-14, Computer
buyers runs 10-11, School splits 6-7, HAR walking run 10; Dada only, a
one-off script) ``beta=10, mu=1`` loses School (70.64 against 71.66) and
HAR walking (99.00 against 99.71), and ``beta=5, mu=2`` gains 0.19 point
on the mean of the five rows (82.60 against 82.41) while losing School
(71.23) and HAR (99.64): the defaults were not changed.
"""
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy.special import logsumexp, softmax
from scipy.stats import rankdata

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dada_experiments import moons_family
from dada_vote_evidence import iid_moons
from skfed._core._graph_fast import pair_scores

from skfed.boosting import DecentralizedBoostingClassifier
from skfed.boosting._stumps import stump_predictions
from skfed.graph import _GraphRunner
from skfed.network import SimulatedNetwork

SEEDS = (0, 1, 2, 3, 4)


def load(family, seed):
    """``X, X_test, y, y_test, g, g_test, clusters`` of a family."""
    if family == "iid":
        return iid_moons(seed)
    X, X_test, y, y_test, g, g_test, _, clusters = moons_family(family, seed)
    return X, X_test, y, y_test, g, g_test, clusters


def inside_share(W, clusters):
    """Share of the weight of ``W`` between two nodes of the same cluster."""
    same = clusters[:, None] == clusters[None, :]
    return float(W[same].sum() / W.sum())


def knn_share(cost, clusters, k=5):
    """Share of the edges inside the clusters when each node links to its k cheapest peers."""
    n = len(clusters)
    cost = cost.astype(np.float64, copy=True)
    np.fill_diagonal(cost, np.inf)
    nearest = np.argsort(cost, axis=1, kind="stable")[:, :k]
    A = np.zeros((n, n))
    A[np.repeat(np.arange(n), k), nearest.ravel()] = 1.0
    return inside_share(np.maximum(A, A.T), clusters)


def auc(cost, clusters):
    """P(cost of a cross-cluster pair > cost of a same-cluster pair), ties half."""
    upper = np.triu_indices(len(clusters), 1)
    same = (clusters[:, None] == clusters[None, :])[upper]
    ranks = rankdata(cost[upper])
    n_cross, n_same = np.count_nonzero(~same), np.count_nonzero(same)
    return float((ranks[~same].sum() - n_cross * (n_cross + 1) / 2) / (n_cross * n_same))


def pair_costs(model, X, y, g, clusters):
    """Every pair signal of the module docstring, as an (n_nodes, n_nodes) cost."""
    coef = np.hstack([model.coef_, model.intercept_[:, None]])
    H = np.hstack([stump_predictions(X, model.stump_features_, model.stump_thresholds_),
                   np.ones((X.shape[0], 1))])
    margins = H @ coef.T  # margins[i, l]: node l's model on sample i
    n = coef.shape[0]
    lse, logistic, error, fdist = (np.zeros((n, n)) for _ in range(4))
    signs = np.where(y > 0, 1.0, -1.0)
    for k in range(n):
        rows = g == k
        m = signs[rows, None] * margins[rows]
        lse[k] = logsumexp(-m, axis=0)
        logistic[k] = np.logaddexp(0.0, -m).mean(axis=0)
        error[k] = (m <= 0).mean(axis=0)
        fdist[k] = ((margins[rows] - margins[rows][:, [k]]) ** 2).mean(axis=0)
    sq = (coef ** 2).sum(axis=1)
    z = np.maximum(sq[:, None] + sq[None, :] - 2.0 * coef @ coef.T, 0.0)
    e = 3.0 * (lse - np.diag(lse)[:, None])
    e = e + e.T
    links = (model.collaboration_graph_.toarray() > 0).astype(np.float64)
    oracle = (clusters[:, None] == clusters[None, :]).astype(np.float64) - np.eye(n)

    def pooled(B):
        P = (logistic + B @ logistic) / (1.0 + B.sum(axis=1))[:, None]
        return P + P.T

    return {"z": z, "e": e, "z+e": 1.5 * z + e, "logistic": logistic + logistic.T,
            "0-1": error + error.T, "fdist": fdist + fdist.T, "pooled": pooled(links),
            "oracle": pooled(oracle)}


def mutual_rank(cost):
    """``rank_k(l) + rank_l(k)``: where each end ranks the other among its peers (0: first)."""
    c = cost.astype(np.float64, copy=True)
    np.fill_diagonal(c, np.inf)
    ranks = np.argsort(np.argsort(c, axis=1, kind="stable"), axis=1, kind="stable")
    return (ranks + ranks.T).astype(np.float64)


def centred(cost):
    """``c_kl - median_l c_kl``, then summed over both ends (each end centres its own)."""
    c = cost.astype(np.float64, copy=True)
    np.fill_diagonal(c, np.nan)
    c = c - np.nanmedian(c, axis=1)[:, None]
    np.fill_diagonal(c, 0.0)
    return c + c.T


def profile_cost(cost, columns=None):
    """``1 - corr(c_k., c_l.)``: how differently k and l score the same models.

    Node k's row of ``cost`` (its scores of every model, or of the models
    of ``columns`` only: a few landmark nodes whose models every node
    would score), centred, against node l's: a second-order signal, two
    nodes of one cluster rank the other nodes' models alike.
    """
    rows = cost - cost.mean(axis=1, keepdims=True)
    if columns is not None:
        rows = rows[:, columns]
    return 1.0 - np.corrcoef(rows)


def relative_costs(model, X, y, g, seed=0):
    """The relative acceptance rules of ``relative``, as (n_nodes, n_nodes) costs.

    ``d[k, l]`` (one end: how much worse node k's samples are fit by l's
    model than by k's, mean logistic loss) and its per-sample standard error
    ``se[k, l]`` over k's ``m_k`` samples; ``e1`` the graph step's one-end
    score ``3 (L_k(alpha_l) - L_k(alpha_k))`` (log-sum-exp).
    """
    coef = np.hstack([model.coef_, model.intercept_[:, None]])
    H = np.hstack([stump_predictions(X, model.stump_features_, model.stump_thresholds_),
                   np.ones((X.shape[0], 1))])
    margins = H @ coef.T
    n = coef.shape[0]
    d, se, lse, logistic = (np.zeros((n, n)) for _ in range(4))
    signs = np.where(y > 0, 1.0, -1.0)
    for k in range(n):
        rows = g == k
        m = signs[rows, None] * margins[rows]
        per = np.logaddexp(0.0, -m)
        diff = per - per[:, [k]]
        d[k] = diff.mean(axis=0)
        logistic[k] = per.mean(axis=0)
        se[k] = diff.std(axis=0, ddof=1) / np.sqrt(rows.sum()) if rows.sum() > 1 else 0.0
        lse[k] = logsumexp(-m, axis=0)
    e1 = 3.0 * (lse - np.diag(lse)[:, None])
    sq = (coef ** 2).sum(axis=1)
    z = np.maximum(sq[:, None] + sq[None, :] - 2.0 * coef @ coef.T, 0.0)
    ze = 1.5 * z + e1 + e1.T
    return {"z+e": ze, "rank(z+e)": mutual_rank(ze), "centred(z+e)": centred(0.75 * z + e1),
            "rank(e1)": mutual_rank(e1), "centred(e1)": centred(e1),
            "rank(d)": mutual_rank(d), "ucb(d)": (d + 2 * se) + (d + 2 * se).T,
            "rank(ucb)": mutual_rank(d + 2 * se), "t": d / np.maximum(se, 1e-12)
            + (d / np.maximum(se, 1e-12)).T,
            "profile": profile_cost(logistic + logistic.T),
            "profile20": profile_cost(logistic + logistic.T, np.random.RandomState(seed).choice(
                n, min(20, n), replace=False))}


def run_relative(families):
    for family in families:
        rows = []
        for seed in SEEDS:
            X, _, y, _, g, _, clusters = load(family, seed)
            model = DecentralizedBoostingClassifier(200, random_state=seed).fit(
                X, y, groups=g)
            costs = relative_costs(model, X, y, g, seed)
            rows.append([100 * inside_share(model.collaboration_graph_.toarray(), clusters)]
                        + [100 * f(c, clusters) for c in costs.values()
                           for f in (knn_share, auc)])
        mean = np.mean(rows, axis=0)
        print(f"{family:8s} learned {mean[0]:.1f}  " + "  ".join(
            f"{name} {mean[1 + 2 * i]:.1f}/{mean[2 + 2 * i]:.1f}"
            for i, name in enumerate(costs)), flush=True)


class centred_losses:
    """Within the block, every graph phase's losses become ``l_k - shift * q_k``.

    ``q_k`` is the ``quantile`` of node k's peer scores ``e_kl`` of every
    other node's model (``_graph_fast.pair_scores``, as the graph step
    computes them).  The loss enters each pair's cost as ``l_k + l_l``, so
    this centres the scores at both ends of every pair: a peer is then
    judged against the node's other peers, not against an absolute level.
    A measurement of a variant that is not in skfed (it patches
    ``_GraphRunner.run``; restored on exit).
    """

    def __init__(self, quantile, shift):
        self.quantile, self.shift = quantile, shift

    def __enter__(self):
        self.original = original = _GraphRunner.run
        quantile, shift = self.quantile, self.shift

        def run(runner, models, losses, n_steps, *, score_data=None, **kwargs):
            if score_data is not None and shift > 0:
                models = np.ascontiguousarray(models)
                K = models.shape[0]
                rows, cols = np.nonzero(~np.eye(K, dtype=bool))
                out = np.zeros(rows.size)
                pair_scores(models, *score_data[:5], rows.astype(np.intp),
                            cols.astype(np.intp), out, *score_data[5:])
                q = np.quantile(out.reshape(K, K - 1), quantile, axis=1)
                losses = np.asarray(losses, dtype=np.float64) - shift * q
            return original(runner, models, losses, n_steps, score_data=score_data,
                            **kwargs)

        _GraphRunner.run = run
        return self

    def __exit__(self, *exc):
        _GraphRunner.run = self.original


def run_centred(families, settings=((0.5, 0.0), (0.5, 1.0), (0.5, 0.5), (0.5, 2.0),
                                    (0.75, 1.0), (0.25, 1.0), (0.1, 1.0))):
    for family in families:
        for quantile, shift in settings:
            acc, inside, nnz = [], [], []
            with centred_losses(quantile, shift):
                for seed in SEEDS:
                    X, X_test, y, y_test, g, g_test, clusters = load(family, seed)
                    model = DecentralizedBoostingClassifier(200, random_state=seed).fit(
                        X, y, groups=g)
                    W = model.collaboration_graph_.toarray()
                    acc.append(100 * np.mean(model.predict(X_test, groups=g_test) == y_test))
                    inside.append(100 * inside_share(W, clusters))
                    nnz.append(np.count_nonzero(W))
            print(f"{family:8s} quantile {quantile:.2f} shift {shift:.1f}: accuracy "
                  f"{np.mean(acc):.2f}, inside {np.mean(inside):.1f} % "
                  f"{np.round(inside, 1).tolist()}, non-zeros {np.mean(nnz):.0f}", flush=True)


def knn_graph(cost, k=5):
    """Symmetrized graph linking every node to its ``k`` cheapest peers (weights 1)."""
    n = cost.shape[0]
    c = cost.astype(np.float64, copy=True)
    np.fill_diagonal(c, np.inf)
    nearest = np.argsort(c, axis=1, kind="stable")[:, :k]
    A = np.zeros((n, n))
    A[np.repeat(np.arange(n), k), nearest.ravel()] = 1.0
    return np.maximum(A, A.T)


def run_profile_graph(families):
    for family in families:
        rows = []
        for seed in SEEDS:
            X, X_test, y, y_test, g, g_test, clusters = load(family, seed)
            model = DecentralizedBoostingClassifier(200, random_state=seed).fit(X, y, groups=g)
            A = knn_graph(relative_costs(model, X, y, g, seed)["profile"])
            fixed = DecentralizedBoostingClassifier(200, random_state=seed, graph=A).fit(
                X, y, groups=g)
            rows.append([100 * np.mean(model.predict(X_test, groups=g_test) == y_test),
                         100 * np.mean(fixed.predict(X_test, groups=g_test) == y_test),
                         100 * inside_share(A, clusters)])
        mean = np.mean(rows, axis=0)
        print(f"{family:8s} defaults {mean[0]:.2f}, profile graph fixed {mean[1]:.2f} "
              f"(inside {mean[2]:.1f} %)", flush=True)


def run_costs(families, oracle=False):
    for family in families:
        rows = []
        for seed in SEEDS:
            X, _, y, _, g, _, clusters = load(family, seed)
            graph = None
            if oracle:
                graph = (clusters[:, None] == clusters[None, :]).astype(np.float64)
                np.fill_diagonal(graph, 0.0)
            model = DecentralizedBoostingClassifier(200, random_state=seed, graph=graph).fit(
                X, y, groups=g)
            costs = pair_costs(model, X, y, g, clusters)
            rows.append([100 * inside_share(model.collaboration_graph_.toarray(), clusters)]
                        + [100 * f(c, clusters) for c in costs.values()
                           for f in (knn_share, auc)])
        mean = np.mean(rows, axis=0)
        print(f"{family:8s} learned {mean[0]:.1f}  " + "  ".join(
            f"{name} {mean[1 + 2 * i]:.1f}/{mean[2 + 2 * i]:.1f}"
            for i, name in enumerate(costs)), flush=True)


# --------------------------------------------------------------- screen
def local_frank_wolfe(H, signs, g, n_nodes, beta, n_steps):
    """Every node boosting alone: Frank-Wolfe on its log-sum-exp loss.

    Node k minimizes ``log sum_i exp(-[A_k a]_i)``, ``A_k = diag(y) H_k``,
    over the l1 ball of radius ``beta`` with steps ``2 / (t + 2)`` (Dada's
    local phase, in NumPy; unit sample weights).  Returns ``(n_nodes,
    n_base)`` models.
    """
    models = np.zeros((n_nodes, H.shape[1]))
    for k in range(n_nodes):
        A = signs[g == k, None] * H[g == k]
        a = models[k]
        for t in range(n_steps):
            m = A @ a
            grad = -(A.T @ np.exp(-m - logsumexp(-m)))
            j = int(np.argmax(np.abs(grad)))
            step = 2.0 / (t + 2.0)
            a *= 1.0 - step
            a[j] -= step * beta * np.sign(grad[j])
    return models


def cross_logistic(margins, signs, g, n_nodes, temperature=1.0):
    """``L[k, l]``: mean ``log(1 + exp(-t y f_l(x)))`` over node k's samples."""
    L = np.zeros((n_nodes, n_nodes))
    for k in range(n_nodes):
        m = signs[g == k, None] * margins[g == k]
        L[k] = np.logaddexp(0.0, -temperature * m).mean(axis=0)
    return L


def squared_distances(F):
    """Squared Euclidean distances between the rows of ``F``."""
    sq = (F ** 2).sum(axis=1)
    return np.maximum(sq[:, None] + sq[None, :] - 2.0 * F @ F.T, 0.0)


def spectral_cost(cost, dim=4):
    """Distance of the nodes in the top ``dim`` eigenvectors of the normalized
    similarity ``exp(-cost / median)`` (a global clustering of the signal: a
    bound on what transitivity could add, not a decentralized step)."""
    c = cost.astype(np.float64, copy=True)
    np.fill_diagonal(c, np.nan)
    S = np.exp(-cost / np.nanmedian(c))
    np.fill_diagonal(S, 0.0)
    d = S.sum(axis=1)
    _, V = np.linalg.eigh(S / np.sqrt(np.outer(d, d)))
    E = V[:, -dim:]
    return squared_distances(E / np.linalg.norm(E, axis=1, keepdims=True))


def screen_costs(model, X, y, g, seed, n_probe=2000):
    """The signals of ``screen``, as (n_nodes, n_nodes) costs (module docstring)."""
    coef = np.hstack([model.coef_, model.intercept_[:, None]])
    H = np.hstack([stump_predictions(X, model.stump_features_, model.stump_thresholds_),
                   np.ones((X.shape[0], 1))])
    n = coef.shape[0]
    signs = np.where(y > 0, 1.0, -1.0)
    sizes = np.bincount(g, minlength=n).astype(np.float64)
    margins = H @ coef.T
    L = cross_logistic(margins, signs, g, n)
    costs = {"logistic": L + L.T}
    for t, name in ((1e-3, "agree"), (0.3, "t=0.3"), (3.0, "t=3")):
        Lt = cross_logistic(margins, signs, g, n, t)
        costs[name] = Lt + Lt.T
    spread = coef.std(axis=0)
    costs["zstd"] = squared_distances(coef / np.where(spread > 1e-12, spread, 1.0))
    lo, hi = model.feature_range_
    probe = np.random.RandomState(1000 + seed).uniform(lo, hi, size=(n_probe, X.shape[1]))
    F = np.hstack([stump_predictions(probe, model.stump_features_, model.stump_thresholds_),
                   np.ones((n_probe, 1))]) @ coef.T
    costs["probe"] = squared_distances(F.T) / n_probe
    S = np.sign(F)
    costs["probe-sign"] = 1.0 - S.T @ S / n_probe
    for beta in (0.3, 1.0, 3.0):
        Ll = cross_logistic(H @ local_frank_wolfe(H, signs, g, n, beta, 100).T, signs, g, n)
        costs[f"local{beta:g}"] = Ll + Ll.T
    costs["profile"] = profile_cost(L + L.T)
    P = softmax(-sizes[:, None] * L, axis=1)
    costs["posterior"] = -(P @ P.T)
    costs["spectral"] = spectral_cost(L + L.T)
    return costs


def run_screen(families, seeds):
    for family in families:
        rows = []
        for seed in seeds:
            X, _, y, _, g, _, clusters = load(family, seed)
            model = DecentralizedBoostingClassifier(200, random_state=seed).fit(X, y, groups=g)
            costs = screen_costs(model, X, y, g, seed)
            signs = np.where(y > 0, 1.0, -1.0)
            # The same signal pooled over Dada fits of four random states
            # (the asynchronous order's noise averaged out) and their mean graph.
            graphs, pooled = [model.collaboration_graph_.toarray()], [costs["logistic"]]
            for r in (1, 2, 3):
                other = DecentralizedBoostingClassifier(200, random_state=seed + 100 * r).fit(
                    X, y, groups=g)
                H = np.hstack([stump_predictions(X, other.stump_features_,
                                                 other.stump_thresholds_),
                               np.ones((X.shape[0], 1))])
                coef = np.hstack([other.coef_, other.intercept_[:, None]])
                L = cross_logistic(H @ coef.T, signs, g, coef.shape[0])
                graphs.append(other.collaboration_graph_.toarray())
                pooled.append(L + L.T)
            costs["4 fits"] = np.mean(pooled, axis=0)
            rows.append([100 * inside_share(graphs[0], clusters),
                         100 * inside_share(np.mean(graphs, axis=0), clusters)]
                        + [100 * f(c, clusters) for c in costs.values()
                           for f in (knn_share, auc)])
            print(f"  {family} seed {seed}: learned {rows[-1][0]:.1f}, "
                  + " ".join(f"{name} {rows[-1][2 + 2 * i]:.1f}"
                             for i, name in enumerate(costs)), flush=True)
        mean = np.mean(rows, axis=0)
        print(f"{family:8s} seeds {seeds}: learned {mean[0]:.1f}, mean graph of 4 fits "
              f"{mean[1]:.1f}  " + "  ".join(
                  f"{name} {mean[2 + 2 * i]:.1f}/{mean[3 + 2 * i]:.1f}"
                  for i, name in enumerate(costs)), flush=True)


RFF_FEATURES = 300


def rff_local_models(X, y, g, n_nodes, features, bandwidth=0.3, ridge=1.0,
                     n_features=RFF_FEATURES, seed=7):
    """Every node's kernel ridge model on public random Fourier features.

    The selected ``features`` are standardized by their pooled mean and
    standard deviation (a federated sum: two float64 per feature); ``phi(x)
    = sqrt(2 / D) cos(W^T x + b)``, ``W ~ N(0, 1 / bandwidth^2)``, ``b ~
    U(0, 2 pi)`` from a public seed.  Node l solves ``min ||Phi_l w - y_l||^2
    + ridge ||w||^2`` (labels +-1) alone, in its dual (``m_l`` unknowns).
    Returns ``(phi, models)``: the feature map of every sample and the
    ``(n_nodes, D)`` weights (the message a node would send).
    """
    Z = X[:, features]
    Z = (Z - Z.mean(axis=0)) / np.where(Z.std(axis=0) > 0, Z.std(axis=0), 1.0)
    rng = np.random.RandomState(seed)
    W = rng.normal(scale=1.0 / bandwidth, size=(Z.shape[1], n_features))
    b = rng.uniform(0.0, 2.0 * np.pi, n_features)
    phi = np.sqrt(2.0 / n_features) * np.cos(Z @ W + b)
    signs = np.where(y > 0, 1.0, -1.0)
    models = np.zeros((n_nodes, n_features))
    for l in range(n_nodes):
        P = phi[g == l]
        dual = np.linalg.solve(P @ P.T + ridge * np.eye(P.shape[0]), signs[g == l])
        models[l] = P.T @ dual
    return phi, models


def rff_cost(phi, models, y, g, n_nodes, scale=3.0):
    """Log-loss of ``sigmoid(scale f_l(x))`` over k's samples, summed both ways."""
    signs = np.where(y > 0, 1.0, -1.0)
    F = phi @ models.T
    L = np.stack([np.logaddexp(0.0, -scale * signs[g == k, None] * F[g == k]).mean(axis=0)
                  for k in range(n_nodes)])
    return L + L.T


def run_rff(families, seeds, settings=((0.3, 1.0), (0.3, 0.3), (0.5, 1.0))):
    for family in families:
        rows = []
        for seed in seeds:
            X, X_test, y, y_test, g, g_test, clusters = load(family, seed)
            model = DecentralizedBoostingClassifier(200, random_state=seed).fit(X, y, groups=g)
            n = model.coef_.shape[0]
            row = [100 * inside_share(model.collaboration_graph_.toarray(), clusters),
                   100 * np.mean(model.predict(X_test, groups=g_test) == y_test)]
            for features in ([0, 1], list(model.selected_features_)):
                for bandwidth, ridge in settings:
                    phi, models = rff_local_models(X, y, g, n, features, bandwidth, ridge)
                    row.append(100 * knn_share(rff_cost(phi, models, y, g, n), clusters))
            phi, models = rff_local_models(X, y, g, n, list(model.selected_features_),
                                           *settings[0])
            A = knn_graph(rff_cost(phi, models, y, g, n))
            fixed = DecentralizedBoostingClassifier(200, random_state=seed, graph=A).fit(
                X, y, groups=g)
            row.append(100 * np.mean(fixed.predict(X_test, groups=g_test) == y_test))
            rows.append(row)
            print(f"  {family} seed {seed}: " + " ".join(f"{v:.1f}" for v in row), flush=True)
        mean = np.mean(rows, axis=0)
        names = ([f"f01 {b:g}/{r:g}" for b, r in settings]
                 + [f"vote {b:g}/{r:g}" for b, r in settings])
        print(f"{family:8s} seeds {seeds}: learned {mean[0]:.1f} (accuracy {mean[1]:.2f})  "
              + "  ".join(f"{nm} {v:.1f}" for nm, v in zip(names, mean[2:-1]))
              + f"  Dada on the vote-RFF 5-NN graph: accuracy {mean[-1]:.2f}", flush=True)


class rff_graph_models:
    """Within the block, Dada's graph steps score and compare the nodes'
    :func:`rff_local_models` instead of their stump models.

    Every ``_GraphRunner.run`` gets the kernel models (the graph's model
    term ``(mu / 2) ||w_k - w_l||^2`` and its peer scores, the log-sum-exp
    of ``scale y phi(x)^T w_l`` over k's samples) in place of the stump
    models; the losses ``l_k`` stay Dada's.  The model messages of the
    graph steps are then the kernel models (300 float64, counted by the
    runner).  A measurement of a variant that is not in skfed (it patches
    ``_GraphRunner.run``; restored on exit).
    """

    def __init__(self, X, y, g, features, scale=1.0, n_features=RFF_FEATURES):
        nodes, node_of = np.unique(g, return_inverse=True)
        order = np.argsort(node_of, kind="stable")
        K = nodes.size
        phi, self.models = rff_local_models(X[order], y[order], node_of[order], K, features,
                                            n_features=n_features)
        self.H = np.ascontiguousarray(scale * phi)
        self.Y = np.where(y[order] > 0, 1.0, -1.0)[None, :].copy()
        self.offsets = np.r_[0, np.cumsum(np.bincount(node_of, minlength=K))].astype(np.intp)

    def __enter__(self):
        self.original = original = _GraphRunner.run
        H, Y, offsets, models = self.H, self.Y, self.offsets, self.models

        def run(runner, _models, losses, n_steps, *, score_data=None, **kwargs):
            if score_data is not None:
                score_data = (H, Y, np.ones(H.shape[0]), offsets, score_data[4], None, None,
                              None)
            return original(runner, models, losses, n_steps, score_data=score_data, **kwargs)

        _GraphRunner.run = run
        return self

    def __exit__(self, *exc):
        _GraphRunner.run = self.original


def run_rff_graph(names, seeds, scales=(1.0, 3.0), n_features=RFF_FEATURES):
    from dada_experiments import load_run

    for name in names:
        rows = []
        for seed in seeds:
            if name in ("school", "har", "computer"):
                X, X_test, y, y_test, g, g_test, n_estimators = load_run(name, seed)
                clusters = None
            else:
                X, X_test, y, y_test, g, g_test, clusters = load(name, seed)
                n_estimators = 200
            if np.unique(y).size != 2:
                raise SystemExit(f"{name}: binary labels only")
            model = DecentralizedBoostingClassifier(n_estimators, random_state=seed).fit(
                X, y, groups=g)
            fits = [model]
            for scale in scales:
                with rff_graph_models(X, y, g, list(model.selected_features_), scale,
                                      n_features):
                    fits.append(DecentralizedBoostingClassifier(
                        n_estimators, random_state=seed).fit(X, y, groups=g))
            row = []
            for fit in fits:
                G = fit.collaboration_graph_.toarray()
                row += [100 * np.mean(fit.predict(X_test, groups=g_test) == y_test),
                        100 * inside_share(G, clusters) if clusters is not None else np.nan,
                        np.count_nonzero(G), fit.n_bytes_sent_ / 1e6]
            # Each kernel model sent once per ordered pair that talked (the
            # models never change during a fit): the bytes with a cache.
            pairs = np.count_nonzero(np.asarray(fits[1].communication_.pair_bytes))
            row.append((model.n_bytes_sent_ + pairs * 8 * n_features) / 1e6)
            rows.append(row)
            print(f"  {name} seed {seed}: " + " ".join(f"{v:.2f}" for v in row), flush=True)
        mean = np.mean(rows, axis=0)
        print(f"{name:8s} with the kernel models sent once per pair: {mean[-1]:.1f} MB")
        mean = mean[:-1]
        labels = ["defaults"] + [f"RFF graph, scale {c:g}" for c in scales]
        print(f"{name:8s} seeds {seeds}: " + "  |  ".join(
            f"{lab}: accuracy {mean[4 * i]:.2f}, inside {mean[4 * i + 1]:.1f}, "
            f"non-zeros {mean[4 * i + 2]:.0f}, MB {mean[4 * i + 3]:.2f}"
            for i, lab in enumerate(labels)), flush=True)


def candidate_topology(clusters, n_other, n_same, seed):
    rng = np.random.RandomState(100 + seed)
    n = len(clusters)
    A = np.zeros((n, n))
    for k in range(n):
        others = np.flatnonzero(clusters != clusters[k])
        same = np.flatnonzero((clusters == clusters[k]) & (np.arange(n) != k))
        A[k, rng.choice(others, n_other, replace=False)] = 1.0
        A[k, rng.choice(same, min(n_same, same.size), replace=False)] = 1.0
    return np.maximum(A, A.T)


def run_candidates(families, settings=((8, 2), (5, 5), (5, 9))):
    for family in families:
        for n_other, n_same in settings:
            shares, inside = [], []
            for seed in SEEDS:
                X, _, y, _, g, _, clusters = load(family, seed)
                A = candidate_topology(clusters, n_other, n_same, seed)
                model = DecentralizedBoostingClassifier(
                    200, random_state=seed, network=SimulatedNetwork(topology=A),
                ).fit(X, y, groups=g)
                shares.append(inside_share(A, clusters))
                inside.append(100 * inside_share(model.collaboration_graph_.toarray(),
                                                 clusters))
            print(f"{family:8s} candidates ({n_other} other, {n_same} same): share "
                  f"{np.mean(shares):.2f}, learned graph inside {np.mean(inside):.1f} % "
                  f"{np.round(inside, 1).tolist()}", flush=True)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    part = sys.argv[1] if len(sys.argv) > 1 else "costs"
    if part == "costs":
        run_costs(sys.argv[2:] or ["noisy", "iid", "jitter"])
    elif part == "oracle-models":
        run_costs(sys.argv[2:] or ["noisy", "iid"], oracle=True)
    elif part == "relative":
        run_relative(sys.argv[2:] or ["noisy", "iid", "jitter"])
    elif part == "profile-graph":
        run_profile_graph(sys.argv[2:] or ["noisy", "iid"])
    elif part == "centred":
        run_centred(sys.argv[2:] or ["noisy", "jitter", "iid", "random"])
    elif part == "candidates":
        run_candidates(sys.argv[2:] or ["noisy"])
    elif part == "rff":
        args = sys.argv[2:]
        families = [a for a in args if not a.isdigit()] or ["noisy"]
        run_rff(families, [int(a) for a in args if a.isdigit()] or list(SEEDS))
    elif part == "rff-graph":
        # Optional "D=100": the number of random Fourier features (scale 1 only).
        args = [a for a in sys.argv[2:] if not a.startswith("D=")]
        D = [int(a[2:]) for a in sys.argv[2:] if a.startswith("D=")]
        names = [a for a in args if not a.isdigit()] or ["noisy"]
        seeds = [int(a) for a in args if a.isdigit()] or list(SEEDS)
        if D:
            run_rff_graph(names, seeds, scales=(1.0,), n_features=D[0])
        else:
            run_rff_graph(names, seeds)
    elif part == "screen":
        args = sys.argv[2:]
        families = [a for a in args if not a.isdigit()] or ["noisy"]
        run_screen(families, [int(a) for a in args if a.isdigit()] or list(SEEDS))
    else:
        raise SystemExit("usage: dada_graph_signal.py {costs,relative,centred,profile-graph,candidates,oracle-models,screen,rff,rff-graph} [FAMILY ...]")
