"""Dada and Perso-lin at their defaults against tuning and the Local / Global baselines.

One part, ``defaults`` (the experiments of Zantedeschi, Bellet & Tommasi,
AISTATS 2020, on the estimators as a user gets them), writing its results
to one JSON file: the estimators' defaults against the tuning recipe of the
user guide (routed ``GridSearchCV`` with ``WithinGroupKFold``, selecting
beta and mu for Dada, mu and alpha for Perso-lin, refit anchored at the
defaults by :func:`skfed.model_selection.refit_prefer_defaults`, bytes of
every validation fit counted) and against Local / Global baselines
(scikit-learn's AdaBoost of stumps pooled and per node, the better of
LinearSVC, SVC and LogisticRegression on standardized features pooled and
per node, l1-boosting pooled and per node, each tuned by 3-fold
within-node CV; "best-base" is, run by run, the best of the six on the
test set), on the rotated moons (K = 100 nodes in clusters of
10/20/30/40, 3..14 training samples per node, D = 20, 200 stumps; seeds
0-4): the paper's two layouts (the 18 extra coordinates set to 0 as in
the paper's code; the defaults were chosen on seeds 10-14) and two
families held out for issue 33, "noisy" (four clusters at random angles at
least 30 degrees apart, every node's rotation jittered by N(0, 0.15 rad),
moons noise 0.15, 18 N(0, 1) features, 5 % label flips) and "jitter" (the
paper's layout with the same node jitter and flips), Computer buyers (5..10 training computers per person, shared random
permutation), School (official splits, scores > 20) and HAR walking (2 % of
every person's windows for training, as in the paper's code): runs 0-2,
the defaults chosen on runs 10-11, School splits 6-7 and HAR run 10.  It
reports the graph recovery on the moons (share of the learned weight
inside the true clusters, non-zeros against the oracle graph's).
Accuracies are pooled over all test samples of all nodes.

The former ``moons``, ``real`` and ``ceiling`` parts (hyper-parameters of
every method chosen by within-node CV over large grids, the paper's Table
1 figures beside them) were measured before issue 18 fixed the min/max
flooding of the feature ranges, so every Dada figure in them was invalid;
``defaults`` covers the same data sets and baselines and supersedes them.

Usage::

    python benchmarks/dada_experiments.py defaults --seeds 0 1 2 3 4 --runs 2

``--timing 1000 10000`` (the default) adds default fits of Dada, Perso-lin
and :class:`~skfed.graph.CollaborationGraphLearner` on the "noisy" family
at 1,000 and 10,000 nodes, each in a fresh process: CPU seconds and peak
memory of the fit.  ``--no-tune`` skips the tuned rows, ``--moons`` and
``--datasets`` choose the cases (several processes can share the work:
``python benchmarks/dada_experiments.py table A.json B.json`` prints the
tables of their results together), ``--reuse-baselines A.json`` refits only
Dada and Perso-lin.

Two diagnostic parts (issue 33), each one process, no baselines to tune::

    python benchmarks/dada_experiments.py har-gap 0 1 2
    python benchmarks/dada_experiments.py graph-variants noisy,jitter 0 1 2 3 4

``har-gap``: on HAR walking, the pooled linear baseline, pooled
l1-regularized logistic regression over all-feature stumps and over the
vote's stumps (what the dictionary allows a pooled model), Dada's
defaults, Dada on a fixed complete graph, and one-knob variants.
``graph-variants``: Dada's defaults and one-knob variants of its graph
learning on moons families, accuracy and share of the learned weight
inside the true clusters.  The timing rows also give the communication
log's pairs per node and size.

The current table of issue 33 (``--no-tune``) is in the user guide's
"Measured results"; the earlier ones are under "Measurement history"
below.  The table
below is the earlier one, with the tuned rows and without the linear
baselines, the held-out families or the feature vote:

Results (2 shared cores; ``--seeds 0 1 2 3 4 --runs 2``; test accuracy %,
mean over the runs in parentheses; "Dada CV": the tuning recipe, beta and
mu along ``mu * beta = 10`` by 3-fold within-node CV, the best setting
(the defaults on a tie, ``refit_prefer_defaults(n_se=0)``); last column:
runs where Dada's defaults beat the best of the four baselines).  Measured
with peer scoring and the first graph learned in ``10 * n_nodes`` steps
(the defaults since issue 18's second session), as three processes of
this part (``--moons paper --datasets``, ``--moons random --datasets``,
``--moons --runs 2``) because the machine was shared::

    test accuracy %                     Glob-Ada   Loc-Ada   Glob-l1    Loc-l1  Dada def   Dada CV    PL def
    moons, paper layout (0,1,2,3,4)        63.10     90.57     63.51     87.63     95.16     95.30     67.91  5/5
    moons, random layout (0,1,2,3,4)       62.35     68.01     61.20     64.45     73.92     74.32     63.12  5/5
    Computer buyers (0,1)                  66.05     65.58     66.05     65.48     67.45     67.51     66.32  1/2
    School (0,1)                           69.94     70.96     69.94     71.04     72.10     72.10     72.06  2/2
    HAR walking (0,1)                      98.96     92.79     99.40     95.63     99.61     99.61     99.87  2/2
    mean of the five rows                  72.08     77.58     72.02     76.85     81.65     81.77     73.86

Graph recovery on the moons (Dada defaults): 94.4 % (paper layout; per
seed 91, 92, 96, 97, 96) and 85.9 % (random; 87, 85, 88, 85, 85) of the
learned weight inside the true clusters, 453 and 435 non-zeros against
2,900 for the oracle graph (first graph in ``50 * n_nodes`` steps, the
former default: 93.9 % and 83.9 %, accuracy 95.24 and 73.60; tuned Dada:
99.4 % and 87.4 %).  Perso-lin defaults: 89.3 % and 69.7 %, 1,444 and 932
non-zeros.  Dada's defaults lose one run, Computer buyers split 0 (66.58
against 67.46 for Global AdaBoost).  The tuned Dada's validation fits
sent 244-258 MB (moons), 356 MB (Computer), 264 MB (School) and 37 MB
(HAR), against 27-31, 42, 31 and 4.3 MB for one default fit.  The former
recipe (``--full-grid --n-se 2``, the full beta x mu grid) trailed the
defaults by 0.10 point with 750-800 MB of validation on the moons.

Measurement history
-------------------

The user guide's former "Measured results" paragraphs, in the order
they were measured (moved here from ``doc/user_guide/boosting.rst`` on
2026-11-27 night, text unchanged: "above" and "below" refer to this
order; the guide keeps the current table and the measured limit).  The
"Vote or graph?" paragraph is in ``dada_graph_signal.py``.


Held-out check of the defaults (issue 33, measured 2026-11-27; moons: 100
nodes of 3-14 samples, 200 stumps, seeds 0-4 (jitter: 0-1); HAR walking:
two stumps per feature, runs 0-2; test accuracy %, mean over the seeds or
runs listed in parentheses; every baseline tuned by 3-fold within-node CV: AdaBoost of
stumps, the better of ``LinearSVC``, ``SVC`` and ``LogisticRegression``
on standardized features, and l1-boosting, each pooled (Glob) and per
node (Loc); "best-base": run by run, the best of the six on the test set;
"PL def": Perso-lin's defaults; last column: runs where Dada's defaults
beat "best-base").  "noisy" and "jitter" are generators the defaults were
not chosen on: four clusters at random angles at least 30 degrees apart,
each node's rotation jittered by N(0, 0.15 rad), moons noise 0.15, 18
N(0, 1) features and 5 % label flips ("noisy"); the paper's layout with
the same jitter and flips ("jitter")::

    python benchmarks/dada_experiments.py defaults --no-tune --moons noisy jitter --datasets har

    test accuracy %                     Glob-Ada   Loc-Ada  Glob-lin   Loc-lin   Glob-l1    Loc-l1 best-base  Dada def    PL def   wins
    moons, noisy (held out) (0,1,2,3,4)     61.91     53.37     57.01     55.37     61.75     60.16     65.34     66.12     58.04   3/5
    moons, jitter (held out) (0,1)         60.81     77.22     60.66     65.31     60.16     74.01     77.22     79.45     64.46   2/2
    HAR walking (0,1,2)                    99.28     92.22     99.85     98.59     99.51     88.23     99.85     99.49     99.88   0/3

On the held-out "noisy" family Dada's defaults beat every baseline on
the mean of the five seeds (66.12 % against 61.91 % for the best of them,
Global AdaBoost, and 53.37 % for Local AdaBoost), and the mean of the
run-by-run best of the six (65.34 %), which they beat on 3 of the 5 seeds; they lose seeds 2 and 4 to
Global AdaBoost (67.26 against 70.70, 59.01 against 69.98).  Before the
feature vote (issue 33) the defaults scored 62.9 % against 67.9 % for
Global AdaBoost on seeds of a similar family.  But the learned graph puts
only 58.1 % of its weight inside the true clusters (per seed 84, 63, 56,
49, 40; 436 non-zeros against 2,900 for the oracle graph): on this family
the graph does not find the clusters, the target of at least 85 % is not
met.  On the "jitter" family (seeds 0 and 1; seeds 2-4 did not finish on
the shared machine) the defaults beat the best baseline on both seeds
(79.45 against 77.22 for Local AdaBoost on the mean) with 81.5 % of the
weight inside the clusters (87.5 and 75.4; 444 non-zeros).  On HAR walking Dada's defaults (99.49) beat
pooled and per-node AdaBoost (99.28, 92.22) but not the pooled linear
baseline (99.85, ``LinearSVC(C=0.1)`` on the 137 pooled standardized
windows); Perso-lin's defaults (99.88) do.  The paper's two layouts,
Computer buyers and School were not measured again with the vote and the
linear baselines (the runs did not finish on the shared machine); the
vote leaves Dada's fits on the paper's layouts as they were (their 18
extra features are constant: two varying features, no vote).

**Who votes** (measured 2026-11-27, after the table above).  On the
"noisy" family the vote kept both informative features in 2 of 6 seeds:
nodes with 3 to 14 samples rank 20 features mostly at random, and their
chance ballots bury feature 1, which only part of the clusters find
relevant (the fit then has stumps on one feature, or, when nothing passes
the threshold, on all 20).  Now only the nodes with at least the median
number of distinct positive-weight samples vote
(``vote_min_samples_``; agreeing on the median costs one round trip up
and down the aggregation tree).  The test's threshold is unchanged (valid
for any set of voters).  Dada's defaults, Dada only (the baselines above
do not depend on it; same seeds)::

    python benchmarks/dada_experiments.py graph-variants noisy,jitter 0 1 2 3 4 -- defaults

    variant (acc %, inside %, non-zeros)       noisy                  jitter
    defaults, every node votes      66.12    58.1     436   80.05    83.4     440
    defaults, median voters         75.50    72.9     426   80.05    83.4     440

On "noisy" the defaults now reach 75.50 % against 65.34 % for the
run-by-run best of the six baselines and 61.91 % / 53.37 % for pooled /
per-node AdaBoost (the table above); the weight inside the true clusters
goes from 58.1 % to 72.9 % (per seed 84, 63, 66, 77, 75: seed 1 still
selects one feature).  "jitter" (two varying features, no vote) is
unchanged.  On real data, runs 0-1 of the variant against the former
vote: Computer buyers 71.30 and 71.30, School 71.31 and 71.31, HAR
walking 99.36 and 99.35 (Dada only, measured by a one-off script applying
the same rule before it was built in; the full table's real-data rows were
not re-run with it).
The 85 % target is still not met on "noisy" (72.9 %) and "jitter"
(83.4 %).  Other similarity signals for the graph step were measured
and not adopted: the distance between the models as functions (the
stumps' Gram matrix under the agreed feature ranges, a kernel on the
coefficients) instead of between their coefficients raises the k-nearest
neighbour purity of the first, purely local models from 0.47 to 0.72
(noisy seed 0) and the first graph's weight inside the clusters from 53
to 59 % (jitter 69 to 77 %), but the re-learned final graph is no better
(noisy 65.4 % against 67.4 %, jitter 81.6 % against 82.4 %, seeds 0-2);
``max_neighbors=3`` with the new vote gives 69.0 % and 80.3 %;
``graph_update_every=10 * n_nodes`` (a tenth of the graph bytes) 67.5 %
and 80.1 % at the same accuracy.

**Partial re-run of the Done-means table** (2026-11-27, machine load
about 34 on 2 cores; what finished before the session's stop; baselines
as in the table above, each tuned by 3-fold within-node CV; per-node
AdaBoost's ``n_estimators`` from {5, 10, 50})::

    python benchmarks/dada_experiments.py defaults --no-tune --moons --runs 3 --timing
    python benchmarks/dada_experiments.py defaults --no-tune --seeds 0 1 2 3 4 --moons paper --datasets --timing
    python benchmarks/dada_experiments.py defaults --no-tune --seeds 0 1 2 3 4 --moons noisy --datasets --timing

    test accuracy %         Glob-Ada  Loc-Ada  Glob-lin  Loc-lin  Glob-l1  Loc-l1  best-base  Dada def  PL def  wins
    moons, paper (0,1,2)       64.11    91.76     66.28    69.55    64.41   88.39      91.76     95.55   68.97   3/3
    moons, noisy (0,1)         58.33    52.95     55.62    55.64    58.85   65.08      65.17     72.73   57.63   2/2
    Computer buyers (0,1,2)    67.47    65.00     66.48    64.40    68.07   70.57      71.43     71.11   68.58   1/3

Dada's defaults beat pooled and per-node AdaBoost on the mean of every
row, and on Computer buyers lose the run-by-run best baseline (per-node
l1-boosting on two runs, pooled l1-boosting on one) by 0.3 point on the
mean.  The paper and Computer rows ran before the median-voter vote (the
paper layout has two varying features and holds no vote; on Computer
runs 0-1 the vote's change left Dada's accuracy as it was, above).  The
other noisy seeds, "jitter", School and HAR did not finish.  Timing with
the new vote (``timing-one dada 1000 0`` and ``10000 0``): 4.3 s of CPU
and 289 MB peak at 1,000 nodes (73.85 %, 81.2 % of the weight inside the
clusters); 61.1 s and 2,170 MB peak at 10,000 nodes, of which 1,310 MB
is the benchmark's data before the fit (73.65 %, 82.8 %) — just over
the 60 s and 2 GB targets at a load of 34 on 2 cores (51.5 s the
previous session).

**Why Dada trails the pooled linear model on HAR walking** (measured
2026-11-27, runs 0-2, test accuracy %, mean and per run)::

    python benchmarks/dada_experiments.py har-gap 0 1 2

    pooled LinearSVC(C=0.1), standardized                99.85   99.64  99.99  99.93
    pooled l1-logistic over stumps on all 561 features    99.87   99.78  99.89  99.93
    pooled l1-logistic over the vote's stumps             99.79   99.64  99.93  99.81
    Dada, defaults                                        99.48   99.47  99.22  99.76
    Dada, fixed complete graph                            99.60   99.32  99.75  99.72
    Dada, fixed complete graph, feature_selection=None    99.68   99.25  99.92  99.86
    Dada, feature_selection=None                          99.67   99.39  99.83  99.79
    Dada, max_iter = 300 n_nodes                          99.52   99.61  99.20  99.74
    Dada, n_estimators = 4 n_features                     99.47   99.40  99.22  99.79
    Dada, peer_scoring=False                              99.62   99.51  99.70  99.65

The stumps are not what is missing: a pooled model over the vote's
dictionary (4 to 7 selected features, each capped at the 137 training
windows, the other stumps one per remaining feature) reaches 99.79, within
0.1 point of all-feature stumps and of ``LinearSVC``.  The gap is the
personalization: every person holds 5 to 8 training windows, and the
errors concentrate on one to three persons per run (run 1: two persons
with 16 wrong windows each of Dada's 56), whose own few windows pull their
model away from the shared task.  Even on a fixed complete graph Dada
stays 0.25 point below the pooled model; the learned graph costs another
0.1 and the vote about 0.1 on this data.  None of the variants above beats
the defaults on all three runs, and those that help HAR on the mean
(``feature_selection=None``, no peer scoring) lose the held-out moons
(the vote: 77.77 against 60.89 on noisy seed 0, 73.05 against 66.58 on
Computer buyers run 0; peer scoring: 58.1 against 53.6 % of the graph's
weight inside the clusters, below).  HAR walking is one task shared by
every person (see "When not to use it"): Perso-lin's defaults (99.88) or
a pooled linear model fit it; Dada's defaults still beat pooled and
per-node AdaBoost there.

**Graph recovery on the held-out moons families** (Dada, one knob changed
from the defaults; test accuracy %, weight inside the true clusters %,
non-zeros; seeds 0-4; the oracle graph has 2,900 non-zeros)::

    python benchmarks/dada_experiments.py graph-variants noisy,jitter 0 1 2 3 4

    variant (acc %, inside %, non-zeros)                   noisy                  jitter   CPU s
    defaults                     66.12    58.1     436   80.05    83.4     440       6
    max_neighbors=3              64.88    53.7     268   80.34    80.3     270       6
    max_neighbors=10             65.48    51.8     331   79.96    74.1     448       7
    kappa=10                     66.47    56.6     427   80.15    83.3     434       9
    lambda_graph=0.3             66.14    57.2     440   80.31    84.8     443       8
    lambda_graph=3               66.13    59.5     442   80.27    83.6     443       8
    mu_graph=1                   65.97    56.2     428   80.40    81.3     433       7
    mu_graph=10                  66.40    58.3     441   80.67    83.9     440       6
    sparsify_graph=None          66.34    59.1     446   80.51    82.7     447       4
    peer_scoring=False           66.05    53.6     454   79.96    70.3     458       4
    graph_update_every=None      64.81    50.4     371   80.23    69.5     394       1
    max_iter=300*n_nodes         65.84    58.2     446   79.60    86.1     446      17

No knob of the graph learner brings the "noisy" family near the target of
85 % (per seed the defaults reach 84, 63, 56, 49 and 40 %: the seeds whose
nearest clusters are 30 to 40 degrees apart lose most); "jitter" is at
83 % (seeds 0-4: 88, 75, 84, 88, 82).  The graphs keep about 440
non-zeros, far fewer than the oracle's 2,900.  With 3 to 14 samples and
5 % flipped labels per node, a peer's score on a node's own samples
hardly separates two clusters 30 degrees apart; the target needs a better
similarity signal than the graph step's knobs, and is not met.

**Peer scores weighed alike** (issue 33, third session, 2026-11-27).
Node k's score of a peer's model, ``e_kl = s (L_k(alpha_l) -
L_k(alpha_k))``, was weighted by k's confidence ``c_k = m_k / max_l m_l``,
so the nodes with 3 to 5 samples, which most need the right neighbours,
hardly counted.  Every node's score now has the same weight ``s = 3``
(``peer_scoring=True``; a float sets ``s``).  Dada only, seeds 0-4 of
every moons family (test accuracy %, weight inside the true clusters %,
non-zeros; 2,900 for the oracle graph)::

    python benchmarks/dada_experiments.py graph-variants noisy,jitter,paper,random 0 1 2 3 4 -- defaults

    scores               paper              random             noisy (held out)   jitter (held out)
    c_k (before)     95.2  94.4  453    73.9  85.9  435    75.5  72.9  426    80.1  83.4  440
    s = 3            97.6  98.6  448    74.8  90.6  437    75.5  75.1  438    81.1  89.2  441
    s = 10           98.0  99.4  427    74.8  90.3  420    75.9  78.1  378    81.9  92.2  394
    s = 30           97.9  99.3  397    74.7  93.5  376    75.8  78.8  356    81.4  93.2  330
    s = 100          97.4  99.7  376    74.3  92.8  350    75.4  80.5  318    81.0  93.0  330

Real data (Dada's defaults, test accuracy %): Computer buyers runs 0-2
71.81 (``c_k``), 71.99 (3), 71.81 (10), 71.78 (30), 71.98 (100); HAR
walking runs 0-2 99.49, 99.41, 99.23, 98.83, 97.97; School runs 0-1
71.31, 71.60 (``s = 3``), 71.42 (10).  Larger weights recover more of the
held-out clusters but lose HAR walking, one task shared by every person,
where ``s = 10`` falls below pooled AdaBoost (99.28): ``s = 3`` was
chosen on the paper and random layouts and the real data (the held-out
families were measured at the same time, so they are not strictly held
out for this choice).  "jitter" now passes the 85 % target (89.2 %);
"noisy" does not (75.1 %; seed 1, whose vote keeps one of the two
informative features, stays at 56 %).  With the stronger scores a node
could lose its last link to the caps of its neighbours (Remark 2; one node
of the 40-node instance of ``test_learned_graph_leaves_no_node_alone``).
A cap that spared a neighbour's last link while it could drop another was
measured and reverted: HAR walking 99.47 / 96.49 / 98.72 (runs 0-2),
School 70.77 / 71.08, Computer 72.92 / 69.84 / 72.83.  With the
significance ballot of the feature vote the last link is now kept (below).

Against the baselines (tuned as in the tables above; the new defaults;
the baselines of seeds/runs that finished on the shared machine)::

    python benchmarks/dada_experiments.py defaults --no-tune --moons noisy jitter --seeds 0 2 3 4 --datasets school --runs 2 --timing

    test accuracy %                     Glob-Ada   Loc-Ada  Glob-lin   Loc-lin   Glob-l1    Loc-l1 best-base  Dada def    PL def   wins
    moons, noisy (held out) (0,2,3,4)      62.13     53.75     56.10     55.39     61.61     68.89     69.53     77.56     58.01   4/4
    moons, jitter (held out) (0,2,3,4)     61.08     78.51     62.59     67.32     61.05     75.70     78.51     81.66     65.54   4/4
    School (0,1)                           69.94     70.99     70.00     70.86     69.94     70.87     71.09     71.59     72.06   2/2

    graph recovery: noisy 79.8 % (438 non-zeros), jitter 90.5 % (438); oracle 2,900

HAR walking, School run 2 and the random layout's baselines did not finish.

**Graph re-learning schedule and bytes** (the same seeds, noisy / jitter,
with the former ``c_k`` scores; accuracy %, inside %, MB sent)::

    defaults (99 re-learnings of n_nodes steps)   75.5 72.9 27.7    80.1 83.4 27.2
    graph_update_every="geometric" (6)            74.6 58.4  2.8    80.0 62.8  2.7
    geometric, gap growth 1.25 (14)               75.3 67.0  4.4    80.2 71.9  4.3
    geometric 1.25, graph_iter=5 n_nodes (14)     74.8 71.1 13.7    80.5 83.2 13.3
    graph_update_every=10 n_nodes, graph_iter=10 n_nodes   74.3 69.3 24.1    80.2 84.0 23.4
    kappa=3 / 2 / 1                     75.0 72.4 17.8 / 75.4 70.2 12.6 / 75.1 68.9 7.4
                                        80.4 81.0 17.4 / 80.8 83.2 12.4 / 80.0 80.0 7.2

Accuracy hardly moves with the schedule, but the weight inside the
clusters follows the total number of graph steps (pairs evaluated), and
the bytes follow it too: no schedule keeps the graph recovery at a
fraction of the bytes, so the default stays ``"n_nodes"``;
``graph_update_every="geometric"`` is offered for fits where the bytes
matter more than the graph.

**Time and memory at 1,000 and 10,000 nodes** ("noisy" family, default
fits, one fresh process each; CPU seconds of the fit, peak resident
memory and what the fit adds to it; the communication log's pairs per
node and size)::

    python benchmarks/dada_experiments.py timing-one dada 10000 0   # and 1000; perso_lin, graph_learner

    timing (noisy moons, defaults)   nodes   CPU s   peak MB  fit adds MB   accuracy   inside %   non-zeros   pairs/node   log MB
    dada                               1000     4.1       343          127      73.85       81.2        4504          665     20.3
    perso_lin                          1000     0.6       278           61      57.78       45.3        8744          393     12.0
    graph_learner                      1000     0.5       321          104          -       59.7       11194          632     19.3
    dada                              10000    68.5      3104         1795      73.65       82.8       45322         1035    315.9
    perso_lin                         10000    12.4      2147          837      57.36       40.6      119366          488    149.0
    graph_learner                     10000    11.2      2873         1564          -       48.9      273752          952    290.6

With the default ``peer_view`` (a view of 200 peers a node, dada14,
2026-11-29, load about 12), ``timing-one dada``: 1,000 nodes 3.0 s, 281
MB peak, 75.52 %, 92.4 % inside, 4,508 non-zeros, 200.7 pairs a node,
4.6 MB log; 10,000 nodes 38.8 s, 1,084 MB peak, 75.47 %, 93.1 % inside,
44,830 non-zeros, 201.1 pairs a node, 46.1 MB log (the table's rows are
older fits, before the kernel graph signal too).  With a view of 100: 1,000 nodes 3.0 s, 267 MB, 75.13 %,
92.0 %, 3,516, 101.8 pairs a node; 10,000 nodes 39.3 s, 974 MB, 75.47 %,
91.4 %, 45,974, 102.0 pairs a node, 23.4 MB log.

From 1,000 to 10,000 nodes the memory the fit adds grows with slope 1.15
(Dada), 1.14 (Perso-lin) and 1.18 (graph learner) on a log-log scale, the
CPU time with slope 1.22, 1.31 and 1.35 (Dada's 68.5 s is above the 60 s
target of issue 33; the machine's load was 14 to 17 on 2 cores, and the
same fit took 58.9 s of CPU the day before).  No structure of the fit is
quadratic; what grows faster than the nodes is the communication
log, one record per (sender, receiver) pair that talked.  A node talks to
the peers it draws and to those that draw it, uniformly from the complete
topology, about 545 draws each way over a default fit (fitted to the
counts), so its distinct partners number about ``n_nodes (1 - exp(-1090 /
n_nodes))``:
665 per node at 1,000 nodes (saturated: a node meets most others), 1,035
at 10,000 (measured 1,034.5), and never more than about 1,090 whatever the
number of nodes, so the log is linear in the nodes beyond a few thousand
(316 MB kept at 10,000 nodes).  During the fit the pair counts live in the
communication layer's hash table (``skfed/_core/_comm.pyx``: 24 bytes a
slot, at most half full, doubled by rehashing): 2^21 slots (50 MB) at
1,000 nodes, 2^25 (805 MB, and 1.2 GB while rehashing from 2^24) at
10,000, which is most of the 1.8 GB the 10,000-node fit adds.

**The significance ballot and the last link** (issue 33, measured
2026-11-27 after the tables above; Dada's defaults only, the baselines do
not depend on them).  The ranking ballot alone (each voter's
``ceil(sqrt(n_varying))`` most relevant features) keeps only the two or
three strongest features when many carry signal: 3 to 7 of HAR's 561
features, 2 of 6 on a three-class linear family, 3 of 10 on a binary
one.  Each node now also votes for every feature whose correlation ratio
passes its own F test at level 0.05, and a feature is kept when either
count beats chance.  Both ballots travel in one message up the tree.
Test accuracy %, HAR walking runs 0-9 (Dada only,
``DecentralizedBoostingClassifier(1122, random_state=run)`` on
``load_run("har", run)`` of ``dada_experiments.py``)::

    ranking ballot, cap drops any link       98.93   (features kept: 1-7)
    ranking ballot, last link kept           98.42
    both ballots, cap drops any link         99.38   (379-403)
    both ballots, last link kept (default)   99.41

With the ranking ballot alone, keeping the last link cost half a point
on HAR (1.2 points on runs 0-2, the regression that made
``test_learned_graph_leaves_no_node_alone`` an expected failure); with
both ballots it costs nothing there, and the cap now never drops a
neighbour's last link (the node keeps more than ``max_neighbors``
instead).  Other data, the last link kept against dropped (both
ballots): School runs 0-1 71.31 / 71.31 against 71.54 / 71.44, Computer
buyers runs 0-2 72.92 / 69.93 / 72.49 against 73.09 / 69.55 / 73.34
(the vote keeps the same features there).  The moons, seeds 0-4
(accuracy %, weight inside the true clusters %; the ballots change
nothing there: "noisy" selects the same features, the other layouts have
two varying features)::

    python benchmarks/dada_experiments.py graph-variants noisy,jitter,paper,random 0 1 2 3 4 -- defaults

    last link    noisy          jitter         paper          random        nodes alone
    dropped      75.45  75.1    81.14  89.2    97.63  98.6    74.80  90.6    2 of 20 fits
    kept         75.95  76.4    81.26  90.9    97.09  99.1    74.83  90.3    0

"noisy" stays below the 85 % target (76.4 %; per seed 81, 59, 76, 81,
85).  Seed 1's vote keeps feature 0 only, and no per-node relevance
measured finds feature 1 there: its ranking count is 13 against up to 15
for the noise features, its significance count 3 against up to 10, and
ranks, the best single split and the partial correlation given feature 0
(all measured) do no better.  The cause is in the training samples, not
the vote: ``make_moons`` spaces a moon's points evenly along its arc, so
a node of 3 to 14 samples holds mostly the arcs' ends, where the
relation of the second coordinate with the label reverses; in seed 1's
largest cluster feature 1 explains 3 % of the label's variance on the
training samples and 29 % on the test samples.

The probe's families of related linear tasks (``python
benchmarks/dada_probe_families.py FAMILY 0 defaults balanced ...``;
seed 0, mean per-node accuracy, balanced accuracy for ``imbalance``;
Global and Local the best of ``LinearSVC``, ``SVC`` and
``LogisticRegression`` chosen on the test set)::

    family          Global  Local  ranking only  defaults  best variant
    three_class      .887   .825      .603        .662     .693 (beta=10, class-balanced weights)
    imbalance        .874   .767      .700        .720     .798 (class-balanced sample_weight)
    unbalanced       .882   .815      .773        .777     .827 (max_iter=500 n_nodes)
    alike_tiny       .939   .726      .666        .678     .704 (the complete graph)
    axis_rules       .618   .560      .611        .679     (Dada's own kind of task)

The ballots were a defect of the defaults (the ranking ballot cut
informative features); what remains is not fixed by a default.  Under
class imbalance the boosting loss counts every sample alike, so the
minority class is under-predicted: ``sample_weight`` that gives each
node's classes equal mass lifts Dada above Local (.798 against .767).
On nodes of very different sizes (2 to 2,000 samples) the 100 model
steps per node (``max_iter=None``) are too few for the large nodes:
500 per node beat Local (.827 against .815) at five times the CPU and
model messages.  On three classes the one-vs-rest sums of axis-aligned
stumps cannot follow the oblique boundaries of a dense linear task: no
variant (beta, smoothing, more stumps or steps, the complete graph)
comes within 0.13 of Local.  On 500 nearly alike nodes of 6 samples even
the complete graph (every node's model pulled toward all others) reaches
only .704 against .726 for Local and .939 for Global: 200 stumps on 3,000
pooled samples approximate a dense 5-feature linear rule poorly
(``mu=30`` .694, ``max_neighbors=20`` .684, 1,000 stumps .676).  These families are dense linear tasks,
where :ref:`choosing <choosing>` already sends the user to Perso-lin,
MOCHA or Global.

**Re-run with both ballots and the kept last link** (2026-11-27, load
about 30 on 2 cores; what finished before the session's stop; baselines
tuned by 3-fold within-node CV as above, per-node AdaBoost's
``n_estimators`` from {5, 10, 50})::

    python benchmarks/dada_experiments.py defaults --no-tune --moons noisy jitter random paper --seeds 0 1 2 3 4 --datasets --timing
    python benchmarks/dada_experiments.py defaults --no-tune --moons random --seeds 0 1 2 --datasets har school --runs 3 --timing
    python benchmarks/dada_experiments.py defaults --no-tune --moons --datasets har --runs 1 --timing

    test accuracy %          Glob-Ada  Loc-Ada  Glob-lin  Loc-lin  Glob-l1  Loc-l1  best-base  Dada def  PL def  wins
    moons, noisy (0-4)          61.91    53.37     57.01    55.37    61.75   67.54      68.09     75.95   58.69   5/5
    moons, random (0,1)         63.22    67.96     65.06    64.03    61.66   64.58      68.23     74.80   63.74   2/2
    HAR walking (0)             98.79    94.11     99.64    99.35    99.10   99.46      99.64     99.18   99.86   0/1

    graph recovery (Dada): noisy 76.4 % inside the clusters (per seed 81, 59, 76, 81, 85;
    422 non-zeros), random 88.5 % (87, 90; 432); the oracle graph has 2,900

Dada's defaults beat pooled and per-node AdaBoost on every row, and the
run-by-run best of the six baselines on every moons seed; on HAR
walking run 0 they lose to the pooled linear baseline (99.64) and to
Perso-lin (99.86).  "jitter", "paper", the random layout's seed 2-4,
School and HAR runs 1-2 did not finish.  A fit sends 27.7 MB on the
moons (unchanged: the graph steps dominate).

Timing at 10,000 nodes ("noisy", ``timing-one dada 10000 0``), first
with the significance count tested against Binomial(nodes tested, 0.05)
alone: 78.7 s of CPU (load 30) and 2,201 MB peak, accuracy 69.93 % and
78.3 % of the weight inside the clusters, against 73.65 % and 82.8 %
before the ballot.  With 9,566 nodes tested the binomial threshold is
540 votes (5.6 % of them), so the count test detects the smallest excess
of a node's false-positive rate: noise feature 18 passed with 548 votes
(5.73 %) and took a third of the stumps.

**Effect-size floor** (``significance_threshold``): the significance
count must also reach ``ceil(1.5 x 0.05 x nodes tested)``.  The margin
was chosen on the vote fractions (significance count / nodes tested) of
``python benchmarks/dada_ballot_margin.py 0.075 0.1 0.15``::

    case (seeds / runs)            nodes tested   binomial thr   noise features      informative features
    noisy moons, 100 nodes (0, 1)        98, 96      13 (13 %)   max 10.2 %, 10.4 %   5.1 / 11.2, 13.5 / 3.1 %
    noisy moons, 1,000 (0, 1)          959, 959      69 (7.2 %)  max 6.7 %, 5.8 %     9.1 / 17.9, 17.6 / 4.6 %
    noisy moons, 10,000 (0)               9,566     540 (5.6 %)  max 5.73 %, mean 5.1 %   7.8 / 14.8 %
    per-node F test, pure noise, 20,000 nodes of 3-14 samples:
        normal 4.9-5.3 %, binary (p = 0.2) 4.0-4.5 %, Student t(2) 4.2-4.4 %, lognormal 4.4-4.5 %

The test is conservative on non-normal noise and calibrated on normal
noise; the 5.73 % of noise feature 18 is a normal feature's chance
excess (3.2 standard deviations, the largest of 18).  The smallest
informative fraction the ballot must keep is 7.8 % (feature 0 at 10,000
nodes) and 8.4 % (``alike_tiny`` seed 1), so a floor of 1.5 x 0.05 =
7.5 % separates them; 2 x 0.05 would drop feature 0 from the
significance ballot at 1,000 and 10,000 nodes and two of three features
of ``alike_tiny`` seed 1.  The floor takes over above about 500 tested
nodes with 5 varying features, 720 with 20 and 1,250 with 561; below,
the binomial threshold is the larger (13 of 98 nodes, 7 of HAR's 21; at
959 nodes the floor raises it from 69 to 72), so the floor changes no selection in the probe families
(``three_class``, ``unbalanced``, ``imbalance``, ``alike_tiny``,
``axis_rules``, seeds 0-1), on HAR walking runs 0-2 (390, 393, 379
features kept, as before; the fits and accuracies are the same), or on
the noisy moons at 100 and 1,000 nodes; it only removes noise feature
18 at 10,000 nodes.  Measured after the change (2026-11-27, load about
2-4 on 2 cores)::

    python benchmarks/dada_experiments.py timing-one dada 10000 0
    python benchmarks/dada_experiments.py graph-variants noisy 0 1 -- defaults

    10,000 nodes: 67.6 s of CPU, 2,154 MB peak (1,310 MB of it the data before the fit),
                  accuracy 74.18 %, 84.8 % of the weight inside the clusters, 46,082 non-zeros
    1,000 nodes:  5.2 s of CPU, 289 MB peak, accuracy 74.39 %, 82.3 % inside, 4,568 non-zeros
    noisy seeds 0-1 (100 nodes): 72.25 % mean, 80.7 / 58.7 % inside, 430 non-zeros (unchanged)
    HAR walking run 0: 99.18 %, 390 features kept, thresholds [7, 7] (unchanged)

At 10,000 nodes accuracy and graph recovery are back above the values
before the ballot (73.65 %, 82.8 %); CPU and peak memory are still just
over the 60 s and 2 GB targets of issue 33 (the communication log's hash
table, above).  The unit test
``test_significance_ballot_rejects_slightly_miscalibrated_null_at_many_nodes``
checks the rule: at 10,000 nodes a feature voted by 5.7 % of them passes
the binomial threshold (563) but not the floor (750), one voted by 9 %
is kept.

**Time and memory at 10,000 nodes, measured for the fit** (issue 33,
2026-11-27, third session; load 20-25 on 2 cores, so CPU seconds are
inflated).  ``make_rotated_moons`` returns its oracle graph as a dense
``(n_nodes, n_nodes)`` float64 array, 800 MB at 10,000 nodes, which the
timing does not use but held during the fit: the "2,154 MB peak" above
was the data generation's 1,310 MB high-water mark plus that array.
``timing-one`` now frees it and resets the high-water mark after the data
are generated (Linux ``/proc/self/clear_refs``), so ``peak_mb`` is the
process's peak during the fit, the data it holds included::

    python benchmarks/dada_experiments.py timing-one dada 10000 0   # perso_lin, graph_learner

    method          CPU s   peak MB   before fit MB   generation peak MB   accuracy   inside %   non-zeros   pairs/node   log MB
    dada             69.9     1,422             543                1,311      74.18       84.8      46,082       1,034.5     237
    perso_lin        16.4       892             543                1,311      58.29       49.0      90,932         487.7     112
    graph_learner    10.7     1,227             543                1,311          -       48.9     273,752         951.7     218

All three fits are under 2 GB; Dada's CPU is not shown under 60 s (a
second run took 75.8 s and 1,437 MB at load 18-20; the same fit took
67.6 s at load 2-4 and 69.5 s at load 11 before the changes below, whose
results are bit for bit the same).  Where the time and memory
go (``python benchmarks/dada_fit_phases.py 10000``, load about 11): with
the data held (373 MB) the stump matrix brings the process to 506 MB
(627 MB while it is built), the graph phases grow it to 873 MB (the pair
table of the communication layer, 10.3 million pairs), and turning the
pair table into the fitted ``communication_`` peaks at 1,268 MB (the
table, the pair arrays and the CSR at once; 1,064 MB kept).  CPU: 44 s
of 71 in the 100 graph re-learnings (10,000 steps each, 44 us a step),
13 s in Frank-Wolfe, 4 s building the log, 2.9 s the vote, 1.7 s the
sparsifications.  A ``perf`` profile of the fit at 3,000 nodes: peer
scores 22 %, the step loop 10 % (half of it the dense squared distances),
the pair hash table 9 %, Frank-Wolfe 7 %, the degree cap 6 %.  The graph
steps now list every model's non-zero weights once per call (the models
are fixed during it): a peer score reads only those, and float64 models
at most half non-zero get their squared distances by merging two lists
(the same terms in the same order as the dense loop, so the same values;
``tests/core/test_graph_fast_sparse.py``).  A default fit at 1,000
nodes, main's build and this one interleaved four times in fresh
processes (the default fit of ``timing-one dada 1000 0``, the fit's
``time.process_time``, load about 22): 5.94 s of CPU against 4.78 s on average, a ratio of 0.80
(0.71 to 0.90 pair by pair), the same accuracy (74.39 %).  At 10,000
nodes, the two builds run side by side (the same benchmark script, load
15-18): 75.7 s against 83.0 s (0.91), the same results and the same
1,392 MB peak.  The remaining
lever is the communication layer's pair table (``_comm.pyx``, not part
of the boosting code): one record per (sender, receiver) pair, 10.3
million at 10,000 nodes, 9 % of the CPU and the largest block of the
fit's memory.

**Cheaper graph re-learnings** (issue 33, fourth session, 2026-11-27).  A
``perf`` profile at 10,000 nodes put the graph steps' time in memory
stalls: a peer score waited on the loads of the peer model's weights,
the pair table on its slot.  Two changes: (1) the peer scores read a
margin by feature group: the stumps of a feature, sorted by threshold,
are +1 on a prefix of them for every sample, so a model's margin is
``sum_f (2 S_f(c_if) - S_f(size_f))`` with ``S_f`` the prefix sums of
its weights on feature f (listed once per graph phase), one look-up a
feature with a non-zero weight instead of one product a non-zero stump
(``stump_groups``; ``tests/core/test_graph_fast_stumps.py`` checks the
groups, the prefix sums and the scores against NumPy and the
stump-by-stump path); (2) before a step uses its ``kappa`` peers, it
prefetches what it will read for each (row, degree, non-zero list, the
prefix sums the waking node's samples look up, the pair table's slots),
so the peers' cache misses overlap.  The scores equal the former ones
up to rounding (7e-15 on scores of size 15), and on every family of the
``defaults`` part the fits are the same: the same accuracy and bytes in
all 26 cases (moons paper / random / noisy / jitter seeds 0-4, Computer
buyers runs 0-2, School 0-1, HAR walking 0-2)::

    python benchmarks/dada_families_check.py run before.json   # main's build
    python benchmarks/dada_families_check.py run after.json    # this one
    python benchmarks/dada_families_check.py compare before.json after.json

At 10,000 nodes, main's build and this one alternated in fresh
processes (``python benchmarks/dada_fit_phases.py 10000``, load 14-17 on
2 cores)::

    build    fit CPU s   graph re-learnings s   Frank-Wolfe s   log s   peak MB
    main          38.9                  22.17            9.33    2.24     1,239
    this          32.0                  15.91            8.50    2.61     1,239
    main          39.8                  21.62           11.18    1.93     1,223
    this          31.2                  15.50            8.18    2.19     1,254

The graph re-learnings take 0.72 of their former CPU (31.4 s against
43.8 s over the two pairs), the whole fit 0.80 (63.2 s against 78.7 s);
the peak memory moves by at most 31 MB (the prefix sums take 16 MB
during a graph phase at 10,000 nodes).  (At this load the same default fit took 38-42 s on main's
build, not the 70-76 s measured at load 18-25 before: CPU seconds on
this shared machine move with the load, so only the ratios in one
sitting compare builds.)  The default fit of ``timing-one`` in the same
sitting (load 15-17), main's build then this one::

    python benchmarks/dada_experiments.py timing-one dada 10000 0

    build   CPU s   peak MB   accuracy %   inside %   non-zeros
    main     34.6     1,393        74.18       84.8      46,082
    this     29.8     1,424        74.30       84.6      46,140

At 10,000 nodes the rounding of the grouped scores does change the fit
a little (100 re-learnings of 10,000 steps compound it; at 100 nodes no
case changed): accuracy +0.12 points, 0.2 points less weight inside the
clusters, 58 more non-zeros.

The table of issue 33's Done line on this code (baselines of the
``--reuse-baselines`` file fitted by the same command without it,
earlier the same day; they do not depend on Dada)::

    python benchmarks/dada_experiments.py defaults --no-tune --moons noisy --seeds 0 1 2 3 4 --datasets school har --runs 3 --timing 1000 10000

    test accuracy %          Glob-Ada  Loc-Ada  Glob-lin  Loc-lin  Glob-l1  Loc-l1  best-base  Dada def  PL def  wins
    moons, noisy (0-4)          61.91    53.39     57.01    55.37    61.75   67.54      68.09     75.95   58.69   5/5
    School (0-2)                70.49    71.09     70.56    70.96    70.47   70.93      71.20     71.49   72.28   3/3
    HAR walking (0-2)           99.28    92.22     99.85    98.59    99.51   99.36      99.85     99.34   99.88   0/3

    graph recovery: noisy, Dada 76.4 % inside (422 non-zeros), Perso-lin 43.8 % (351); oracle 2,900

    nodes   method          CPU s   peak MB   accuracy %   inside %   non-zeros
    1,000   dada              1.9       279        74.39       82.3       4,568
    1,000   perso_lin         0.3       253        59.42       51.2       8,798
    1,000   graph_learner     0.2       261            -       59.7      11,194
    10,000  dada             32.5     1,408        74.30       84.6      46,140
    10,000  perso_lin         6.1       893        58.29       49.0      90,932
    10,000  graph_learner     5.1     1,229            -       48.9     273,752

Dada's defaults beat pooled and per-node AdaBoost on the mean of every
row (noisy 75.95 against 61.91 / 53.39, School 71.49 against 70.49 /
71.09, HAR walking 99.34 against 99.28 / 92.22) and the run-by-run best
of the six baselines on every noisy seed and School run; on HAR walking
the pooled linear baseline (99.85) and Perso-lin (99.88) stay ahead.
The three 10,000-node fits take under 60 s of CPU and 2 GB at this load
(15-17 on 2 cores).  The graph puts 76.4 % of its weight inside the
noisy family's clusters, below the 85 % target; on seed 1 (58.7 %) the
fit's ``selected_features_`` hold feature 0 only (``feature_votes_``:
feature 1 has 13 ranking votes for a threshold of 23 and 3
significance votes for 13), so its stumps cannot tell apart clusters
that differ along feature 1.

**Perso-lin re-measured on 2026-11-28**, after its local models (graph
input and starting point) became each node's optimum of ``F_k``
(accelerated gradient to ``LOCAL_TOL``) instead of 100 plain gradient
steps; the table above holds the old values, the user guide the new ones.
"PL def" (the lead's run of ``python benchmarks/persolin_local_models.py``
on the same loaders: moons noisy seeds 0-4, School and HAR walking runs
0-2): 58.69 -> 57.69, 72.28 -> 72.44, 99.88 -> 99.89.  Timing, one fresh
process each (``timing-one perso_lin 1000 0`` and ``10000 0``)::

    nodes   CPU s   peak MB   accuracy %   inside %   non-zeros   (old -> new)
    1,000   0.3 -> 0.3   253 -> 251   59.42 -> 57.56   51.2 -> 48.3    8,798 -> 8,520
    10,000  6.1 -> 6.0   893 -> 893   58.29 -> 56.81   49.0 -> 45.4   90,932 -> 90,656

At 1,000 and 10,000 nodes the solved local models cost 1.5-1.9 points of
accuracy and 3-4 points of weight inside the clusters on the noisy moons
(nodes of 3-14 samples and 20 features; the cause was not measured), at
the same CPU and memory.

**Graph recovery on the noisy family, more knobs** (seeds 0-4, 100
nodes; accuracy %, weight inside the clusters %, non-zeros; the target
of issue 33 is 85 % inside)::

    python benchmarks/dada_experiments.py graph-variants noisy 0 1 2 3 4 -- defaults max_neighbors=3 ...

    variant                           acc %   inside %   non-zeros   inside per seed
    defaults                          75.95      76.4        422     80.7 58.7 76.4 81.4 85.0
    max_neighbors=3                   75.31      78.0        269     87.4 60.6 72.3 83.6 85.9
    max_neighbors=10                  76.31      75.4        410     88.1 58.6 73.6 77.1 79.5
    lambda_graph=0.3                  75.76      75.6        418     82.2 58.4 74.0 79.2 84.0
    mu_graph=10                       76.14      76.0        436     85.0 60.0 74.2 78.9 82.0
    sparsify_graph=None               75.57      77.4        450     87.4 64.1 76.1 77.9 81.4
    peer_scoring=False                74.79      64.3        454     75.6 53.6 52.6 74.2 65.3
    peer_scoring=6                    75.82      78.3        393     88.9 60.5 77.7 81.1 83.1
    peer_scoring=10                   75.68      78.3        380     92.3 63.0 72.2 82.9 81.3
    max_neighbors=3, peer_scoring=6   74.77      74.7        268     84.3 59.0 73.9 75.1 81.4
    kappa=10                          75.70      78.0        431     90.3 63.3 72.2 80.9 83.3
    max_iter=300*n_nodes              75.63      80.0        386     91.5 63.4 73.7 85.1 86.4

No single knob reaches 85 %: seed 1 (clusters at 42, 188, 254 and 291
degrees, the last two 37 degrees apart, every node jittered by 8.6 degrees)
stays at 58-64 % whatever the knob, and heavier peer scores or three
times the steps buy 2-4 points of weight inside at no gain in accuracy.
The defaults are unchanged.
"""

import argparse
import gc
import itertools
import json
import sys
import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.ensemble import AdaBoostClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier

from skfed import SingleNodeWarning
from skfed.baselines import LocalEstimator
from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.datasets import (
    load_computer_buyers,
    load_har,
    load_school,
    make_rotated_moons,
    train_test_split_per_node,
)
from skfed.model_selection import WithinGroupKFold


# ------------------------------------------------------------------ methods
def _grid(**axes):
    keys = list(axes)
    return [dict(zip(keys, values)) for values in itertools.product(*axes.values())]


class Method:
    """A method: how to build it from parameters, whether it sees node ids."""

    def __init__(self, name, build, grid, uses_groups=True):
        self.name, self.build, self.grid, self.uses_groups = name, build, grid, uses_groups

    def fit_score(self, params, X, y, g, X_test, y_test, g_test):
        model = self.build(**params)
        if self.uses_groups:
            model.fit(X, y, groups=g)
            return model.score(X_test, y_test, groups=g_test), model
        model.fit(X, y)
        return model.score(X_test, y_test), model


def select_and_fit(method, X, y, g, X_test, y_test, g_test, seed, log, cv_repeats=1):
    """3-fold within-node CV over ``method.grid``, refit the best, test it.

    With ``cv_repeats > 1`` the 3-fold split is repeated with as many
    shuffles and the scores averaged over all folds (less selection noise
    when nodes hold only a few samples).
    """
    folds = [
        fold
        for repeat in range(cv_repeats)
        for fold in WithinGroupKFold(
            3, shuffle=True, random_state=seed + 1000 * repeat
        ).split(X, y, groups=g)
    ]
    best, best_score = None, -np.inf
    if len(method.grid) > 1:
        for params in method.grid:
            scores = [
                method.fit_score(params, X[tr], y[tr], g[tr], X[va], y[va], g[va])[0]
                for tr, va in folds
            ]
            if np.mean(scores) > best_score:
                best, best_score = params, float(np.mean(scores))
    else:
        best = method.grid[0]
    start = time.perf_counter()
    accuracy, model = method.fit_score(best, X, y, g, X_test, y_test, g_test)
    result = {
        "accuracy": 100.0 * float(accuracy),
        "params": {k: (v if not isinstance(v, np.ndarray) else "array") for k, v in best.items()},
        "cv_accuracy": None if best_score == -np.inf else 100.0 * best_score,
        "fit_seconds": time.perf_counter() - start,
    }
    if hasattr(model, "n_bytes_sent_"):
        result["bytes_sent"] = int(model.n_bytes_sent_)
    if hasattr(model, "collaboration_graph_") and method.uses_groups:
        result["graph_nnz"] = int(model.collaboration_graph_.nnz)
    log(f"    {method.name:24s} {result['accuracy']:6.2f}  {result['params']}")
    return result, model


def boosting_methods(n_estimators, n_nodes, max_iter, seed, beta_grid=(1.0, 3.0, 10.0)):
    """The four boosting baselines: AdaBoost and l1-boosting, pooled and per node."""
    D = DecentralizedBoostingClassifier
    empty = np.zeros((n_nodes, n_nodes))
    methods = [
        Method(
            "global_adaboost",
            lambda n_estimators: AdaBoostClassifier(
                DecisionTreeClassifier(max_depth=1), n_estimators=n_estimators,
                random_state=seed,
            ),
            _grid(n_estimators=[10, 50, 200]),
            uses_groups=False,
        ),
        Method(
            "local_adaboost",
            lambda n_estimators: LocalEstimator(
                AdaBoostClassifier(
                    DecisionTreeClassifier(max_depth=1, random_state=seed),
                    n_estimators=n_estimators, random_state=seed,
                )
            ),
            _grid(n_estimators=[5, 10, 50]),
        ),
        Method(
            "global_l1_boosting",
            lambda beta: D(n_estimators, beta=beta, max_iter=max_iter // 10 or 1,
                           random_state=seed),
            _grid(beta=list(beta_grid)),
            uses_groups=False,
        ),
        Method(
            "local_l1_boosting",
            lambda beta: D(n_estimators, beta=beta, mu=0.0, graph=empty, max_iter=max_iter,
                           random_state=seed),
            _grid(beta=list(beta_grid)),
        ),
    ]
    return methods


LINEAR_KINDS = {
    "linearsvc": lambda C, seed: LinearSVC(C=C, max_iter=20000, random_state=seed),
    "svc": lambda C, seed: SVC(C=C, random_state=seed),
    "logistic": lambda C, seed: LogisticRegression(C=C, max_iter=5000),
}


def linear_methods(seed, C_grid=(0.1, 1.0, 10.0)):
    """The strongest plain baselines, pooled and per node.

    The better of ``LinearSVC``, ``SVC`` (RBF) and ``LogisticRegression``
    on standardized features, the estimator and ``C`` chosen together by
    the same 3-fold within-node CV as the boosting baselines.
    """

    def build(kind, C):
        return make_pipeline(StandardScaler(), LINEAR_KINDS[kind](C, seed))

    grid = _grid(kind=list(LINEAR_KINDS), C=list(C_grid))
    return [
        Method("global_linear", build, grid, uses_groups=False),
        Method("local_linear", lambda kind, C: LocalEstimator(build(kind, C)), grid),
    ]


# --------------------------------------------------------------------- real
def load_run(name, run):
    if name.startswith("computer"):
        X, X_test, y, y_test, g, g_test = load_computer_buyers(
            task="classification", split="dada", random_state=run, return_X_y=True
        )
        return X, X_test, y, y_test, g, g_test, 28
    if name == "school":
        X, X_test, y, y_test, g, g_test = load_school(
            task="classification", split=run + 1, return_X_y=True
        )
        return X, X_test, y, y_test, g, g_test, 34
    X_all, y_all, g_all = load_har(task="walking", return_X_y=True)
    X, X_test, y, y_test, g, g_test = train_test_split_per_node(
        X_all, y_all, groups=g_all, test_size=0.98, random_state=run
    )
    return X, X_test, y, y_test, g, g_test, 2 * X_all.shape[1]


# ----------------------------------------------------------------- defaults
def tuning_splitter(cv, seed):
    """The validation splits of the tuning recipe.

    ``"kfold"`` (the recipe's): 3-fold
    :class:`~skfed.model_selection.WithinGroupKFold` (each validation fit
    sees two thirds of every node's samples); ``"holdout"``:
    :class:`~skfed.model_selection.WithinGroupShuffleSplit`, 5 splits each
    holding out one sample of every node (all but one of them).
    """
    from skfed.model_selection import WithinGroupShuffleSplit

    if cv == "holdout":
        return WithinGroupShuffleSplit(5, test_size=1, random_state=seed)
    return WithinGroupKFold(3, shuffle=True, random_state=seed)


def tune_by_grid_search(estimator, grid, X, y, groups, seed, cv="kfold", refit="defaults",
                        n_se=0.0):
    """The documented tuning recipe: routed GridSearchCV, within-node validation.

    Returns the refitted best estimator, its parameters and the bytes sent
    by all the validation fits (each fit's ``n_bytes_sent_``, recorded by a
    second scorer), the refit excluded.  ``refit="defaults"`` (the recipe's
    default) keeps the estimator's defaults unless a setting beats them by
    more than ``n_se`` standard errors
    (:func:`skfed.model_selection.refit_prefer_defaults`; 0: the best
    setting, the defaults on a tie); ``refit="accuracy"`` takes the best
    mean validation accuracy.
    """
    import sklearn
    from sklearn.model_selection import GridSearchCV

    from skfed.model_selection import make_group_scorer, refit_prefer_defaults

    def bytes_sent(fitted, X, y):
        return fitted.n_bytes_sent_

    splitter = tuning_splitter(cv, seed)
    n_splits = splitter.get_n_splits()
    with sklearn.config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            estimator, grid,
            cv=splitter,
            scoring={"accuracy": make_group_scorer(), "bytes": bytes_sent},
            refit=(refit_prefer_defaults(estimator, "accuracy", n_se=n_se)
                   if refit == "defaults" else refit),
        )
        search.fit(X, y, groups=groups)
    validation_bytes = int(round(search.cv_results_["mean_test_bytes"].sum() * n_splits))
    return search.best_estimator_, search.best_params_, validation_bytes


# Dada's smoothing pulls with mu * beta: the recipe moves beta along mu * beta
# about 10 (the defaults' 9), the scale-free direction, instead of the full
# beta x mu grid, whose over-smoothed corner (mu * beta 30-90) small
# validation fits prefer and the final fit does not want.
DADA_TUNE_GRID = [{"beta": [3.0], "mu": [3.0]}, {"beta": [10.0], "mu": [1.0]},
                  {"beta": [30.0], "mu": [0.3]}]
DADA_FULL_GRID = {"beta": [3.0, 10.0, 30.0], "mu": [0.3, 1.0, 3.0]}
PERSO_TUNE_GRID = {"mu": [0.1, 1.0, 10.0], "alpha": [1e-3, 1e-2]}


# Every baseline of the table; "strongest_baseline" is, per run, the best
# of them on the test set (the baselines' side of every comparison).
BASELINES = ("global_adaboost", "local_adaboost", "global_linear", "local_linear",
             "global_l1_boosting", "local_l1_boosting")


def _defaults_cases(seeds, runs, layouts=("paper", "random"),
                    datasets=("computer", "school", "har")):
    cases = [(f"moons-{layout}", seed) for layout in layouts for seed in seeds]
    cases += [(name, run) for name in datasets for run in runs]
    return cases


# The moons families: the paper's two layouts (zero padding, as the authors'
# code) and two held-out generators (issue 33): "noisy", four clusters at
# uniformly random angles with a per-node jitter, 18 N(0, 1) features and
# label flips; "jitter", the paper's diagonal clusters with a per-node jitter
# and label flips (zero padding).
MOONS_FAMILIES = {
    "paper": dict(layout="paper", padding_std=0.0),
    "random": dict(layout="random", padding_std=0.0),
    "noisy": dict(layout="random", padding_std=1.0, noise=0.15, angle_jitter=0.15,
                  label_noise=0.05, angles="uniform"),
    "jitter": dict(layout="paper", padding_std=0.0, noise=0.15, angle_jitter=0.15,
                   label_noise=0.05),
}


# Least angle between two clusters of the "noisy" family: 30 degrees, about
# 3.5 standard deviations of the nodes' jitter.  Uniform angles put two
# clusters closer than the jitter spreads a cluster's own nodes (seed 0: 3
# degrees): their tasks are then one task, which no graph can split.
MIN_CLUSTER_GAP = np.pi / 6


def cluster_angles(seed, n_clusters=4, min_gap=MIN_CLUSTER_GAP):
    """Uniform angles in [0, 2 pi), redrawn until every two are ``min_gap`` apart.

    From a stream of their own (seed ``10_000 + seed``).
    """
    rng = np.random.RandomState(10_000 + seed)
    while True:
        angles = rng.uniform(0.0, 2.0 * np.pi, n_clusters)
        ordered = np.sort(angles)
        if np.diff(np.r_[ordered, ordered[0] + 2.0 * np.pi]).min() >= min_gap:
            return angles


def moons_family(family, seed, n_nodes=100, cluster_sizes=(10, 20, 30, 40)):
    """One draw of a moons family: ``make_rotated_moons``' eight arrays.

    ``angles="uniform"``: the clusters' angles from :func:`cluster_angles`
    (nearby clusters, down to 30 degrees apart).
    """
    params = dict(MOONS_FAMILIES[family])
    if params.get("angles") == "uniform":
        params["angles"] = cluster_angles(seed, len(cluster_sizes))
    if n_nodes != 100:
        base = np.asarray(cluster_sizes) * n_nodes // 100
        base[-1] += n_nodes - base.sum()
        cluster_sizes = base.tolist()
    return make_rotated_moons(
        n_nodes, cluster_sizes=list(cluster_sizes), n_samples_range=(3, 14), n_features=20,
        random_state=seed, **params,
    )


def _load_case(name, run):
    if name.startswith("moons"):
        X, X_test, y, y_test, g, g_test, oracle, clusters = moons_family(
            name.split("-")[1], run)
        return X, X_test, y, y_test, g, g_test, 200, clusters
    X, X_test, y, y_test, g, g_test, n_estimators = load_run(name, run)
    return X, X_test, y, y_test, g, g_test, n_estimators, None


def _graph_recovery(model, clusters):
    W = model.collaboration_graph_.toarray()
    same = clusters[:, None] == clusters[None, :]
    np.fill_diagonal(same, False)
    return {"weight_inside_clusters": float(W[same].sum() / max(W.sum(), 1e-300)),
            "graph_nnz": int((W > 0).sum()), "oracle_nnz": int(same.sum())}


def run_defaults(seeds, runs, log, tune=True, layouts=("paper", "random"),
                 datasets=("computer", "school", "har"), refit="defaults", cv="kfold",
                 n_se=0.0, full_grid=False, save=None, reuse=None):
    """Defaults against tuned Dada / Perso-lin and the Local / Global baselines.

    Baselines are tuned by 3-fold within-node CV (``select_and_fit``);
    ``*_defaults`` are fitted once with the estimator's defaults (only
    ``n_estimators``, two stumps per feature on real data and 200 on moons,
    and ``random_state`` are set); ``*_tuned`` follow the user guide's
    recipe (:func:`tune_by_grid_search`).  ``save``: called with the result
    so far after every case (a long run keeps what it measured).  ``reuse``:
    per-run rows of an earlier result whose baselines (which do not depend
    on skfed's Dada or Perso-lin) are taken instead of refitted.
    """
    reused = {(r["case"], r["run"]): r for r in (reuse or [])}
    rows = []
    for name, run in _defaults_cases(seeds, runs, layouts, datasets):
        X, X_test, y, y_test, g, g_test, n_estimators, clusters = _load_case(name, run)
        K = len(np.unique(g))
        log(f"{name} {run}: {X.shape[0]} train / {X_test.shape[0]} test, {K} nodes")
        row = {"case": name, "run": run}
        for method in boosting_methods(n_estimators, K, 100 * K, run) + linear_methods(run):
            if (name, run) in reused:
                for key in (method.name, f"{method.name}_params"):
                    row[key] = reused[(name, run)][key]
                continue
            result, _ = select_and_fit(method, X, y, g, X_test, y_test, g_test, run,
                                       lambda message: None, 1)
            row[method.name] = result["accuracy"]
            row[f"{method.name}_params"] = result["params"]
        row["strongest_baseline"] = max(row[name] for name in BASELINES)
        fits = {
            "dada": (DecentralizedBoostingClassifier(n_estimators, random_state=run),
                     DADA_FULL_GRID if full_grid else DADA_TUNE_GRID),
            "perso_lin": (PersonalizedLinearClassifier(random_state=run), PERSO_TUNE_GRID),
        }
        for key, (estimator, grid) in fits.items():
            model = clone(estimator).fit(X, y, groups=g)
            row[f"{key}_defaults"] = 100.0 * model.score(X_test, y_test, groups=g_test)
            row[f"{key}_defaults_bytes"] = int(model.n_bytes_sent_)
            if clusters is not None:
                row[f"{key}_defaults_graph"] = _graph_recovery(model, clusters)
            if tune:
                best, params, validation_bytes = tune_by_grid_search(
                    clone(estimator), grid, X, y, g, run, cv=cv, refit=refit, n_se=n_se)
                row[f"{key}_tuned"] = 100.0 * best.score(X_test, y_test, groups=g_test)
                row[f"{key}_tuned_params"] = params
                row[f"{key}_tuned_bytes"] = int(best.n_bytes_sent_)
                row[f"{key}_validation_bytes"] = validation_bytes
                if clusters is not None:
                    row[f"{key}_tuned_graph"] = _graph_recovery(best, clusters)
        log("    " + " ".join(f"{k}={v:.2f}" for k, v in row.items()
                              if isinstance(v, float)))
        rows.append(row)
        if save is not None:
            save(_summarize(rows))
    return _summarize(rows)


def _summarize(rows):
    """Means over the runs of every case, beside the per-run rows."""
    summary = {}
    for case in sorted({r["case"] for r in rows}):
        mine = [r for r in rows if r["case"] == case]
        entry = {}
        for key, value in mine[0].items():
            if isinstance(value, float):
                entry[key] = float(np.mean([r[key] for r in mine]))
            elif key.endswith("_graph"):
                entry[key] = {k: float(np.mean([r[key][k] for r in mine])) for k in value}
            elif key.endswith("_bytes"):
                entry[key] = float(np.mean([r[key] for r in mine]))
        entry["runs"] = [r["run"] for r in mine]
        entry["dada_defaults_wins"] = int(sum(
            r["dada_defaults"] > r["strongest_baseline"] for r in mine))
        summary[case] = entry
    return {"summary": summary, "per_run": rows}


# ------------------------------------------------------------------- timing
TIMED = ("dada", "perso_lin", "graph_learner")


def _rss_mb(field):
    """``VmRSS`` / ``VmHWM`` of this process from ``/proc/self/status``, MB (None elsewhere)."""
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        return None
    return None


def _reset_peak_rss():
    """Reset the process's resident high-water mark (Linux ``clear_refs`` 5); success."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
    except OSError:
        return False
    return _rss_mb("VmHWM") is not None


def _fit_peak_mb(reset):
    """Peak resident MB since the reset (else since the process started)."""
    import resource

    if reset:
        return _rss_mb("VmHWM")
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def timing_one(method, n_nodes, seed=0):
    """One default fit at ``n_nodes`` nodes of the "noisy" moons family, measured.

    Run in a fresh process (:func:`run_timing`) so that its peak resident
    memory is its own.  ``"graph_learner"``: a
    :class:`~skfed.graph.CollaborationGraphLearner` at its defaults on
    every node's local linear model ``sum_i y_i x_i / m_k`` (20 numbers)
    with zero losses.  Returns CPU seconds of the fit
    (``time.process_time``), the process's peak resident memory during the
    fit (``peak_mb``: the high-water mark reset after the data are
    generated and the unused dense oracle graph freed, so it counts the
    data the process holds plus what the fit adds) and its resident memory
    before the fit (``mb_before_fit``), the peak of the data generation
    (``generation_peak_mb``), test accuracy (scored after the peak is
    read) and the graph recovery.
    """
    import resource

    from skfed.graph import CollaborationGraphLearner

    X, X_test, y, y_test, g, g_test, oracle, clusters = moons_family("noisy", seed, n_nodes)
    # The generator's oracle graph is dense (8 n_nodes^2 bytes: 800 MB at
    # 10,000 nodes) and not used here: freed before the fit, and the
    # high-water mark of the generation reset (Linux), so that ``peak_mb``
    # is the process's peak during the fit (the data it holds included).
    del oracle
    gc.collect()
    generation_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    reset = _reset_peak_rss()
    before = _rss_mb("VmRSS") if reset else generation_peak
    out = {"method": method, "n_nodes": n_nodes, "n_train": int(X.shape[0]),
           "generation_peak_mb": generation_peak}
    start = time.process_time()
    if method == "graph_learner":
        counts = np.bincount(g, minlength=n_nodes).astype(float)
        models = np.zeros((n_nodes, X.shape[1]))
        np.add.at(models, g, np.where(y == y.max(), 1.0, -1.0)[:, None] * X)
        models /= counts[:, None]
        model = CollaborationGraphLearner(random_state=seed).fit(models, losses=np.zeros(n_nodes))
        out["cpu_seconds"] = time.process_time() - start
        W = model.collaboration_graph_
    else:
        # "dada_boosting": Dada with graph_signal="boosting" (the graph
        # signal before the kernel graph models), for ratios in one sitting.
        estimator = (DecentralizedBoostingClassifier(200, random_state=seed)
                     if method == "dada" else
                     DecentralizedBoostingClassifier(200, random_state=seed,
                                                     graph_signal="boosting")
                     if method == "dada_boosting"
                     else PersonalizedLinearClassifier(random_state=seed))
        model = estimator.fit(X, y, groups=g)
        out["cpu_seconds"] = time.process_time() - start
        out["peak_mb"] = _fit_peak_mb(reset)
        # Scored in slices, so that the test set's stump predictions (100
        # test samples per node) do not count as the fit's memory.
        correct = 0
        for part in np.array_split(np.arange(X_test.shape[0]), max(1, n_nodes // 500)):
            correct += int((model.predict(X_test[part], groups=g_test[part])
                            == y_test[part]).sum())
        out["accuracy"] = 100.0 * correct / X_test.shape[0]
        W = model.collaboration_graph_
    if "peak_mb" not in out:
        out["peak_mb"] = _fit_peak_mb(reset)
    # What the fitted estimator keeps beyond its models: the communication
    # log, one record per (sender, receiver) pair that talked.  Peers are
    # drawn uniformly on the complete topology, so a node's distinct partners
    # grow as n_nodes (1 - exp(-2 D / n_nodes)) for D peer draws per node:
    # saturated below n_nodes ~ 2 D, about 2 D per node above (linear).
    log = model.communication_
    pair_matrices = [m for m in (getattr(log, "pair_bytes_sparse", None),
                                 getattr(log, "pair_messages_sparse", None)) if m is not None]
    out["pairs_talked"] = int(pair_matrices[0].nnz) if pair_matrices else 0
    out["pairs_per_node"] = out["pairs_talked"] / n_nodes
    out["log_mb"] = sum(m.data.nbytes + m.indices.nbytes + m.indptr.nbytes
                        for m in pair_matrices) / 2.0**20
    W = W.tocoo()
    inside = clusters[W.row] == clusters[W.col]
    out["weight_inside_clusters"] = float(W.data[inside].sum() / max(W.data.sum(), 1e-300))
    out["graph_nnz"] = int(W.nnz)
    out["mb_before_fit"] = before
    return out


def run_timing(node_counts, log, seed=0, methods=TIMED, save=None):
    """:func:`timing_one` of every method at every node count, each in a new process."""
    import subprocess

    rows = []
    for n_nodes in node_counts:
        for method in methods:
            done = subprocess.run(
                [sys.executable, __file__, "timing-one", method, str(n_nodes), str(seed)],
                capture_output=True, text=True, check=True,
            )
            row = json.loads(done.stdout.strip().splitlines()[-1])
            log(f"timing {method} {n_nodes}: " + " ".join(
                f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
            rows.append(row)
            if save is not None:
                save(rows)
    return rows


# ------------------------------------------------------------------ har gap
def har_gap(runs, log):
    """Where Dada's defaults lose to the pooled linear baseline on HAR walking.

    Per run (2 % of every person's windows for training): the pooled
    ``LinearSVC(C=0.1)`` on standardized features; pooled l1-regularized
    logistic regression (C by 3-fold CV) over stumps on every feature (4 per
    feature, ``"range"`` placement) and over the stumps of Dada's default fit
    (the vote's dictionary): the best a pooled model does with each
    dictionary; Dada's defaults; Dada on a fixed complete graph (uniform
    weights; no graph learning); the same with ``feature_selection=None``;
    and the default-fit variants ``max_iter = 300 * n_nodes``,
    ``n_estimators = 4 * n_features`` and ``peer_scoring=False``.  Returns
    the accuracies (%) per run and their means.
    """
    from sklearn.linear_model import LogisticRegressionCV

    from skfed.boosting import make_stumps, stump_predictions

    rows = []
    for run in runs:
        X, X_test, y, y_test, g, g_test, n_estimators = load_run("har", run)
        K = len(np.unique(g))
        complete = (np.ones((K, K)) - np.eye(K)) / (K - 1)
        row = {"run": run}
        linear = make_pipeline(StandardScaler(), LinearSVC(C=0.1, max_iter=20000))
        row["pooled_linearsvc"] = 100 * linear.fit(X, y).score(X_test, y_test)
        dada = DecentralizedBoostingClassifier(n_estimators, random_state=run).fit(
            X, y, groups=g)
        row["dada_defaults"] = 100 * dada.score(X_test, y_test, groups=g_test)
        dictionaries = {
            "all_features": make_stumps(X.min(axis=0), X.max(axis=0), 4 * X.shape[1]),
            "dada_vote": (dada.stump_features_, dada.stump_thresholds_),
        }
        for name, (features, thresholds) in dictionaries.items():
            l1 = LogisticRegressionCV(Cs=8, penalty="l1", solver="liblinear", cv=3)
            l1.fit(stump_predictions(X, features, thresholds), y)
            row[f"pooled_l1_stumps_{name}"] = 100 * l1.score(
                stump_predictions(X_test, features, thresholds), y_test)
        variants = {
            "dada_complete_graph": dict(graph=complete),
            "dada_complete_graph_no_vote": dict(graph=complete, feature_selection=None),
            "dada_no_vote": dict(feature_selection=None),
            "dada_max_iter_300": dict(max_iter=300 * K),
            "dada_4_stumps_per_feature": dict(n_estimators=4 * X.shape[1]),
            "dada_no_peer_scoring": dict(peer_scoring=False),
        }
        for name, params in variants.items():
            params = dict(dict(n_estimators=n_estimators, random_state=run), **params)
            model = DecentralizedBoostingClassifier(**params).fit(X, y, groups=g)
            row[name] = 100 * model.score(X_test, y_test, groups=g_test)
        log(f"har run {run}: " + " ".join(f"{k}={v:.2f}" for k, v in row.items()
                                          if k != "run"))
        rows.append(row)
    means = {k: float(np.mean([r[k] for r in rows])) for k in rows[0] if k != "run"}
    return {"per_run": rows, "mean": means}


# ------------------------------------------------------------- graph knobs
GRAPH_VARIANTS = {
    "defaults": {},
    "max_neighbors=3": dict(max_neighbors=3),
    "max_neighbors=10": dict(max_neighbors=10),
    "kappa=10": dict(kappa=10),
    "lambda_graph=0.3": dict(lambda_graph=0.3),
    "lambda_graph=3": dict(lambda_graph=3.0),
    "mu_graph=1": dict(mu_graph=1.0),
    "mu_graph=10": dict(mu_graph=10.0),
    "sparsify_graph=None": dict(sparsify_graph=None),
    "peer_scoring=False": dict(peer_scoring=False),
    "peer_scoring=6": dict(peer_scoring=6.0),
    "peer_scoring=10": dict(peer_scoring=10.0),
    "max_neighbors=3,peer_scoring=6": dict(max_neighbors=3, peer_scoring=6.0),
    "graph_update_every=None": dict(graph_update_every=None),
    "graph_update_every=10*n_nodes": dict(graph_update_every=1000),
    "max_iter=300*n_nodes": dict(max_iter=30000),
    "beta=5,mu=2": dict(beta=5.0, mu=2.0),
    "beta=10,mu=1": dict(beta=10.0, mu=1.0),
}


def graph_variants(families, seeds, names, log):
    """Dada's defaults and one-knob variants on moons families: accuracy and graph recovery.

    No baselines (they do not depend on the knobs): test accuracy %, share of
    the learned weight inside the true clusters and non-zeros, means over
    the seeds, per family; CPU seconds of every variant's fits.
    """
    data = {(family, seed): moons_family(family, seed) for family in families
            for seed in seeds}
    result = {}
    for name in names:
        start = time.process_time()
        per_family = {}
        for (family, seed), arrays in data.items():
            X, X_test, y, y_test, g, g_test, _, clusters = arrays
            model = DecentralizedBoostingClassifier(
                200, random_state=seed, **GRAPH_VARIANTS[name]).fit(X, y, groups=g)
            graph = _graph_recovery(model, clusters)
            per_family.setdefault(family, []).append(
                (100 * model.score(X_test, y_test, groups=g_test),
                 100 * graph["weight_inside_clusters"], graph["graph_nnz"]))
        result[name] = {family: [float(v) for v in np.mean(rows, axis=0)]
                        for family, rows in per_family.items()}
        result[name]["inside_per_seed"] = {
            family: [round(r[1], 1) for r in rows] for family, rows in per_family.items()}
        result[name]["cpu_seconds"] = time.process_time() - start
        log(f"{name}: {result[name]}")
    return result


# ------------------------------------------------------------------- tables
CASE_NAMES = {"moons-paper": "moons, paper layout", "moons-random": "moons, random layout",
              "moons-noisy": "moons, noisy (held out)", "moons-jitter": "moons, jitter (held out)",
              "computer": "Computer buyers", "school": "School", "har": "HAR walking"}
COLUMNS = (("global_adaboost", "Glob-Ada"), ("local_adaboost", "Loc-Ada"),
           ("global_linear", "Glob-lin"), ("local_linear", "Loc-lin"),
           ("global_l1_boosting", "Glob-l1"), ("local_l1_boosting", "Loc-l1"),
           ("strongest_baseline", "best-base"), ("dada_defaults", "Dada def"),
           ("perso_lin_defaults", "PL def"))


def format_tables(result):
    """The accuracy table, the graph recovery and the timing as plain text."""
    summary = result["summary"]
    lines = ["test accuracy %".ljust(34) + "".join(f"{title:>10s}" for _, title in COLUMNS)
             + "   wins"]
    for case in [c for c in CASE_NAMES if c in summary]:
        entry = summary[case]
        runs = ",".join(str(r) for r in entry["runs"])
        lines.append(f"{CASE_NAMES[case]} ({runs})".ljust(34)
                     + "".join(f"{entry.get(key, float('nan')):10.2f}" for key, _ in COLUMNS)
                     + f"   {entry['dada_defaults_wins']}/{len(entry['runs'])}")
    lines.append("")
    lines.append("graph recovery (defaults)".ljust(34)
                 + "weight inside clusters %, non-zeros / oracle non-zeros")
    for case in [c for c in CASE_NAMES if c in summary and c.startswith("moons")]:
        entry = summary[case]
        parts = []
        for key, title in (("dada", "Dada"), ("perso_lin", "PL")):
            graph = entry.get(f"{key}_defaults_graph")
            if graph:
                parts.append(f"{title} {100 * graph['weight_inside_clusters']:.1f} % "
                             f"{graph['graph_nnz']:.0f}/{graph['oracle_nnz']:.0f}")
        lines.append(CASE_NAMES[case].ljust(34) + "   ".join(parts))
    if result.get("timing"):
        lines.append("")
        lines.append("timing (noisy moons, defaults)   nodes   CPU s   peak MB  fit adds MB   "
                     "accuracy   inside %   non-zeros   pairs/node   log MB")
        for row in result["timing"]:
            lines.append(f"{row['method']:32s} {row['n_nodes']:6d} {row['cpu_seconds']:7.1f} "
                         f"{row['peak_mb']:9.0f} {row['peak_mb'] - row['mb_before_fit']:12.0f} "
                         f"{row.get('accuracy', float('nan')):10.2f} "
                         f"{100 * row['weight_inside_clusters']:10.1f} {row['graph_nnz']:11d} "
                         f"{row.get('pairs_per_node', float('nan')):12.0f} "
                         f"{row.get('log_mb', float('nan')):8.1f}")
    return "\n".join(lines)


def merge_results(paths):
    """One result from the JSON files of several processes of this part.

    Also takes the output of ``timing-one`` (one JSON row).
    """
    rows, timing = {}, []
    for path in paths:
        with open(path) as handle:
            part = json.load(handle)
        if "method" in part:  # one timing-one row
            part = {"timing": [part]}
        # A later file's row of the same case and run replaces an earlier one.
        rows.update({(r["case"], r["run"]): r for r in part.get("per_run", [])})
        timing.extend(part.get("timing", []))
    merged = _summarize(sorted(rows.values(), key=lambda r: (r["case"], r["run"])))
    merged["timing"] = sorted(timing, key=lambda r: (r["n_nodes"], TIMED.index(r["method"])))
    return merged


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "table":
        print(format_tables(merge_results(argv[1:])))
        return
    if argv and argv[0] == "har-gap":
        warnings.simplefilter("ignore")
        runs = [int(r) for r in argv[1:]] or [0, 1, 2]
        result = har_gap(runs, lambda message: print(message, file=sys.stderr, flush=True))
        for key, value in result["mean"].items():
            print(f"{key:36s} {value:7.2f}   " + " ".join(
                f"{r[key]:6.2f}" for r in result["per_run"]))
        return
    if argv and argv[0] == "graph-variants":
        # graph-variants FAMILY[,FAMILY] SEED [SEED ...] [-- NAME ...]
        warnings.simplefilter("ignore")
        rest = argv[2:]
        names = list(GRAPH_VARIANTS)
        if "--" in rest:
            names = rest[rest.index("--") + 1:]
            rest = rest[:rest.index("--")]
        result = graph_variants(argv[1].split(","), [int(s) for s in rest], names,
                                lambda message: print(message, file=sys.stderr, flush=True))
        print("variant (acc %, inside %, non-zeros)".ljust(26) + "".join(
            f"{family:>24s}" for family in argv[1].split(",")) + "   CPU s")
        for name, entry in result.items():
            print(name.ljust(26) + "".join(
                "{:>8.2f}{:>8.1f}{:>8.0f}".format(*entry[family])
                for family in argv[1].split(",")) + f"{entry['cpu_seconds']:8.0f}")
        return
    if argv and argv[0] == "timing-one":
        warnings.simplefilter("ignore", SingleNodeWarning)
        print(json.dumps(timing_one(argv[1], int(argv[2]), int(argv[3]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=["defaults"])
    parser.add_argument("--moons", nargs="*", default=list(MOONS_FAMILIES),
                        help="defaults part: moons families (%(default)s; none: no moons)")
    parser.add_argument("--timing", type=int, nargs="*", default=[1000, 10000],
                        help="defaults part: node counts of the timing of the default "
                        "fits (%(default)s; none: no timing)")
    parser.add_argument("--no-tune", action="store_true",
                        help="defaults part: skip the tuned Dada / Perso-lin rows")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--datasets", nargs="*", default=["computer", "school", "har"])
    parser.add_argument("--out", default=None)
    parser.add_argument("--reuse-baselines", nargs="*", default=[],
                        help="result files of earlier runs: their baselines are reused "
                        "for the same cases (only Dada and Perso-lin are refitted)")
    parser.add_argument("--run-ids", type=int, nargs="*", default=None,
                        help="defaults part: these real-data runs instead of 0 .. runs-1")
    parser.add_argument("--cv", choices=["kfold", "holdout"], default="kfold",
                        help="tuned rows: 3-fold within-node CV (default), or hold out "
                        "one sample of every node, 5 times")
    parser.add_argument("--n-se", type=float, default=0.0,
                        help="tuned rows: standard errors by which a setting must beat "
                        "the defaults (default 0: the best, the defaults on a tie)")
    parser.add_argument("--full-grid", action="store_true",
                        help="tuned Dada: the full beta x mu grid instead of mu * beta = 10")
    parser.add_argument("--refit", choices=["defaults", "accuracy"], default="defaults",
                        help="tuned rows: keep the defaults unless beaten by two standard "
                        "errors (default), or take the best validation accuracy")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", SingleNodeWarning)
    warnings.simplefilter("ignore", FutureWarning)

    def log(message):
        print(message, file=sys.stderr, flush=True)

    start = time.perf_counter()
    runs = list(range(args.runs)) if args.run_ids is None else args.run_ids
    def save(result):
        if args.out:
            with open(args.out, "w") as handle:
                handle.write(json.dumps(result, indent=1, default=float))

    result = run_defaults(args.seeds, runs, log, tune=not args.no_tune,
                          layouts=args.moons, datasets=args.datasets, refit=args.refit,
                          cv=args.cv, n_se=args.n_se, full_grid=args.full_grid, save=save,
                          reuse=merge_results(args.reuse_baselines)["per_run"])
    if args.timing:
        result["timing"] = run_timing(args.timing, log,
                                      save=lambda rows: save(dict(result, timing=rows)))
    result["seconds"] = time.perf_counter() - start
    save(result)
    print(format_tables(result))


if __name__ == "__main__":
    main()
