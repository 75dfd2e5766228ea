"""The methods ``skfed compare`` runs: one :class:`MethodSpec` line each.

Methods live in one table, ``_METHOD_TABLE`` below, registered in
:data:`METHODS`: a factory builds the estimator from a :class:`MethodContext`.
A method issue adds its line there (or calls :func:`register_method`);
nothing else changes.  Each factory imports its method's module inside, so a
broken optional method never breaks the others.
"""

from ._specs import ALL_TASKS, MethodSpec, register_method

# --------------------------------------------------------- baseline models
def _linear(ctx):
    """Standardized linear model: LinearSVC (hinge, as MOCHA; C=0.1) or Ridge (alpha=1).

    On HAR sitting-vs-rest this gives about 1.8 % error pooled and 1.4 % per
    node, the published reference of shared/data/README.md.
    """
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if ctx.is_classification:
        from sklearn.svm import LinearSVC

        model = LinearSVC(C=0.1, max_iter=10000, random_state=ctx.random_state)
    else:
        from sklearn.linear_model import Ridge

        model = Ridge(alpha=1.0)
    return make_pipeline(StandardScaler(), model)


def _svm(ctx):
    """Standardized kernel SVM at scikit-learn's defaults: ``SVC()`` or ``SVR()``.

    The rbf kernel with ``gamma="scale"`` and ``C=1``: the strongest of the
    standard choices on the nonlinear data sets (for example the moons).
    """
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if ctx.is_classification:
        from sklearn.svm import SVC

        return make_pipeline(StandardScaler(), SVC())
    from sklearn.svm import SVR

    return make_pipeline(StandardScaler(), SVR())


def _logistic(ctx):
    """Standardized ``LogisticRegression()``, or ``LassoCV()`` for regression.

    scikit-learn's defaults (``C=1``, lbfgs with ``max_iter`` raised to 1000
    so that the 561 HAR features converge; ``LassoCV``'s own 5-fold path).
    """
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if ctx.is_classification:
        from sklearn.linear_model import LogisticRegression

        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    from sklearn.linear_model import LassoCV

    return make_pipeline(StandardScaler(), LassoCV())


def _adaboost(ctx):
    """AdaBoost over decision stumps, the weak learners of Dada."""
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    return AdaBoostClassifier(
        DecisionTreeClassifier(max_depth=1),
        n_estimators=10 if ctx.quick else 100,
        random_state=ctx.random_state,
    )


def _local(make):
    def factory(ctx):
        from ..baselines import LocalEstimator

        return LocalEstimator(make(ctx), n_jobs=ctx.n_jobs)

    factory.__doc__ = f"LocalEstimator of {make.__name__}"
    return factory


def raw_data_bytes(estimator, X, y, groups):
    """Bytes to upload every node's raw training data once to a server.

    The honest price of the Global baseline under skfed's byte model
    (:func:`skfed.baselines.pooled_data_bytes`): every value of ``X`` at its
    dtype's size (4 bytes float32, 8 float64), 8 bytes a target, one 16-byte
    header per node.  The model itself is not sent back.
    """
    from ..baselines import pooled_data_bytes

    return pooled_data_bytes(X, y, groups)


def _online_kernel(ctx):
    """Decentralized online kernel SGD + KOMP (Koppel et al.), issues 6 and 15.

    The estimator's defaults (the classifier's kernel="auto": laplacian from
    10 features on, rbf below; gamma="median", the median heuristic per
    node; the "auto" step under the stability bound, alpha=1e-4, 30 passes,
    dictionaries of at most 100 centres, a ring, neighbours' copies
    refreshed once per pass), over the dataset's own graph when it has one.
    """
    from ..network import SimulatedNetwork
    from ..online import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor

    network = SimulatedNetwork(ctx.graph) if ctx.graph is not None else None
    params = dict(network=network, random_state=ctx.random_state)
    if ctx.is_classification:
        return DecentralizedKernelSGDClassifier(**params)
    return DecentralizedKernelSGDRegressor(**params)


ONLINE_DATASETS = ("gaussian-mixture", "har-activity", "har-sitting", "har-walking")


def _sparse_linear(ctx):
    """One-shot support recovery + federated least-squares refit (Barik & Honorio), issue 7.

    ``alpha="auto"`` (each client thresholds its standardized statistics),
    per-node intercepts; rounds: support bits, sufficient statistics on the
    support, coefficients back.
    """
    from ..support import FederatedSparseLinearRegression

    return FederatedSparseLinearRegression(random_state=ctx.random_state, n_jobs=ctx.n_jobs)


SPARSE_DATASETS = ("school-regression", "sparse-regression")


def _mocha(kernel):
    """Kernelized MOCHA (Caldas, Smith & Talwalkar; Smith et al. 2017), issues 4 and 28.

    The estimators' defaults (``C=1``, logistic loss, squared loss for
    regression, ``omega="auto"``: the shared model ``w_t = w_0 + v_t`` with
    the share learned in the primal modes, at most 1000 rounds, 8-bit round
    messages with error feedback); ``kernel="linear"`` is the default,
    ``"rbf"`` lets ``approximation="auto"`` choose between random Fourier
    features and the exact kernel mode by their bytes (random features on
    HAR, Landmine and School).
    """

    def factory(ctx):
        from ..multitask import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor

        params = dict(kernel=kernel, random_state=ctx.random_state, n_jobs=ctx.n_jobs)
        if not ctx.is_classification:
            return FederatedMultiTaskRegressor(**params)
        return FederatedMultiTaskClassifier(**params)

    return factory


MOCHA_DATASETS = ("har-sitting", "landmine", "school-regression")


# Dada's benchmarks, where boosted decision stumps are the reference baselines.
DADA_DATASETS = ("har-walking", "school-classification", "computer-classification", "moons")

_RAW_NOTE = (
    "raw-data upload: every node sends its training rows (4 B a float32, 8 B a "
    "float64 value) and targets (8 B) to a server once, plus a 16 B header per node"
)

# Dada and Perso-lin run with their defaults (chosen from evidence across
# these four datasets, issue 18; benchmarks/dada_experiments.py defaults):
# beta=3, mu=3, the learned graph re-learned every n_nodes iterations, capped
# at 5 neighbours, with peer scoring, and sparsified to connected; Perso-lin
# alpha=1e-2, its graph learned once.


def _no_oracle(dataset):
    raise ValueError(f"dada-oracle needs the dataset's own similarity graph, which {dataset!r} "
                     "does not have (moons and gaussian-mixture do); use dada-learned.")


def _dada(graph):
    """Dada (Zantedeschi, Bellet & Tommasi 2020), issue 5: decentralized FW boosting.

    ``graph="learned"``: the collaboration graph is learned jointly (the
    estimator's defaults); ``"oracle"``: the dataset's own graph (moons).
    Two stumps per feature (10 on moons, as the paper), the default 100
    wake-ups per node (20 with --quick); every other setting is the
    estimator's default.
    """

    def factory(ctx):
        from ..boosting import DecentralizedBoostingClassifier

        per_feature = 10 if ctx.dataset == "moons" else 2
        params = {}
        if graph == "oracle":
            params["graph"] = ctx.graph if ctx.graph is not None else _no_oracle(ctx.dataset)
        if ctx.quick:
            params["max_iter"] = 20 * ctx.n_nodes
        return DecentralizedBoostingClassifier(
            n_estimators=per_feature * ctx.n_features,
            random_state=ctx.random_state, n_jobs=ctx.n_jobs, **params,
        )

    return factory


def _perso_linear(ctx):
    """Perso-lin (Vanhaesebrouck et al. 2017) on a graph learned as in Dada, issue 5."""
    from ..boosting import PersonalizedLinearClassifier

    params = {"max_iter": 20 * ctx.n_nodes} if ctx.quick else {}
    return PersonalizedLinearClassifier(
        random_state=ctx.random_state, n_jobs=ctx.n_jobs, **params,
    )


# ------------------------------------------------------------ THE method table
# One line per method.  Method issues register their estimators here, e.g.
#   MethodSpec("mocha", _mocha_factory, tasks=("binary", "regression")),
_METHOD_TABLE = (
    MethodSpec(
        "global-linear", _linear, tasks=ALL_TASKS, pooled=True,
        communication=raw_data_bytes, bytes_note=_RAW_NOTE,
        description="Global baseline: standardized LinearSVC (Ridge for "
        "regression) on the pooled data of all nodes",
        param_grid={"linearsvc__C": [0.01, 0.1, 1.0, 10.0]},
        baseline="global",
        behind_note="one linear model shared by every node cannot follow node-specific "
        "decision boundaries (in a regression: node-specific functions)",
    ),
    MethodSpec(
        "local-linear", _local(_linear), tasks=ALL_TASKS,
        description="Local baseline: one standardized LinearSVC (Ridge) per node, "
        "nothing communicated",
        param_grid={"estimator__linearsvc__C": [0.01, 0.1, 1.0, 10.0]},
        baseline="local",
        behind_note="every node fits its model on its own training samples only",
    ),
    # The other standard baselines: Global and Local are each the best of
    # LinearSVC / SVC / LogisticRegression (Ridge / SVR / LassoCV), so every
    # method is read against all of them.
    MethodSpec(
        "global-svm", _svm, tasks=ALL_TASKS, pooled=True,
        communication=raw_data_bytes, bytes_note=_RAW_NOTE,
        description="Global baseline: standardized SVC() (SVR() for regression), rbf "
        "kernel at scikit-learn's defaults, on the pooled data",
        param_grid={"svc__C": [0.1, 1.0, 10.0]},
        baseline="global",
        behind_note="one kernel model shared by every node cannot follow node-specific "
        "decision boundaries (in a regression: node-specific functions)",
    ),
    MethodSpec(
        "local-svm", _local(_svm), tasks=ALL_TASKS,
        description="Local baseline: one standardized SVC() (SVR()) per node, nothing "
        "communicated",
        param_grid={"estimator__svc__C": [0.1, 1.0, 10.0]},
        baseline="local",
        behind_note="every node fits its model on its own training samples only",
    ),
    MethodSpec(
        "global-logistic", _logistic, pooled=True,
        communication=raw_data_bytes, bytes_note=_RAW_NOTE,
        description="Global baseline: standardized LogisticRegression() on the pooled data",
        param_grid={"logisticregression__C": [0.01, 0.1, 1.0, 10.0]},
        baseline="global",
        behind_note="one linear model shared by every node cannot follow node-specific "
        "decision boundaries",
    ),
    MethodSpec(
        "local-logistic", _local(_logistic),
        description="Local baseline: one standardized LogisticRegression() per node, "
        "nothing communicated",
        param_grid={"estimator__logisticregression__C": [0.01, 0.1, 1.0, 10.0]},
        baseline="local",
        behind_note="every node fits its model on its own training samples only",
    ),
    MethodSpec(
        "global-lassocv", _logistic, tasks=("regression",), pooled=True,
        communication=raw_data_bytes, bytes_note=_RAW_NOTE,
        description="Global baseline: standardized LassoCV() on the pooled data",
        baseline="global",
        behind_note="one sparse linear model shared by every node",
    ),
    MethodSpec(
        "local-lassocv", _local(_logistic), tasks=("regression",),
        description="Local baseline: one standardized LassoCV() per node, nothing "
        "communicated",
        baseline="local",
        behind_note="every node fits its model on its own training samples only",
    ),
    MethodSpec(
        "global-adaboost", _adaboost, pooled=True,
        communication=raw_data_bytes, bytes_note=_RAW_NOTE,
        description="Global baseline: AdaBoost over decision stumps on the pooled data",
        default_datasets=DADA_DATASETS,
        baseline="global",
        behind_note="one ensemble of decision stumps (axis-aligned thresholds) shared by "
        "every node",
    ),
    MethodSpec(
        "local-adaboost", _local(_adaboost),
        description="Local baseline: AdaBoost over decision stumps per node",
        default_datasets=DADA_DATASETS,
        baseline="local",
        behind_note="every node boosts 100 stumps on its own training samples only",
    ),
    MethodSpec(
        "online-kernel", _online_kernel, tasks=ALL_TASKS,
        description="Decentralized online kernel SGD with consensus penalty and KOMP "
        "(Koppel et al.) at its defaults, peer-to-peer bytes counted",
        param_grid={"kernel": ["auto", "rbf"], "gamma": ["median", "scale"],
                    "alpha": [3e-5, 1e-4, 3e-4], "eta0": ["auto", 0.3],
                    "max_dictionary_size": [100, 150], "consensus_penalty": [0.0, 0.1, 0.3],
                    "max_epochs": [10, 30]},
        default_datasets=ONLINE_DATASETS,
        behind_note="streaming SGD, not a converged batch solver: every node learns "
        "from one sample at a time (30 passes) with at most 100 kernel centres",
        bytes_why="its messages carry kernel centres, i.e. the node's own training rows: "
        "a node sends each row at most once to each of its ring neighbours (the raw "
        "upload sends it once, to the server), plus its centres' weights once per pass",
    ),
    MethodSpec(
        "fed-sparse-linear", _sparse_linear, tasks=("regression",),
        description="One-shot federated support recovery (Barik & Honorio, alpha='auto': "
        "per-client t-tests, a binomial vote test) + least-squares refit on the "
        "support, per-node intercepts",
        param_grid={"alpha": ["auto"], "auto_z": [None, 0.5, 2.0],
                    "rogue_tolerance": [None, 0.0, 0.2]},
        default_datasets=SPARSE_DATASETS,
        behind_note="a least-squares refit on the features of one support shared by all "
        "nodes (per-node intercepts only)",
        bytes_why="support votes (a bit per feature), then every node's sufficient "
        "statistics on the support, then the coefficients back",
    ),
    MethodSpec(
        "mocha-linear", _mocha("linear"), tasks=ALL_TASKS,
        description="Federated multi-task learning (MOCHA, linear) at its defaults: a "
        "shared model plus each node's own part, the share learned; server-coordinated, "
        "model vectors each round",
        param_grid={"C": [0.1, 1.0, 10.0, 100.0]},
        default_datasets=MOCHA_DATASETS,
        behind_note="a linear model per node (C=1): a part shared with the other nodes "
        "plus its own, the share learned",
        bytes_why="every round each node receives and returns a model vector "
        "(n_features + 1 values, 8-bit quantized), for as many rounds as its stopping "
        "rule takes",
    ),
    MethodSpec(
        "mocha-rbf", _mocha("rbf"),
        description="Kernelized MOCHA, rbf kernel (gamma='scale') at its defaults: "
        "approximation='auto' (here random Fourier features from a shared seed, "
        "ceil(2 sqrt(n) ln n) of them), 8-bit messages with error feedback, the shared "
        "model; "
        "one model vector each way per node and round, no data leaves a node",
        param_grid={"C": [0.1, 1.0, 10.0, 100.0]},
        default_datasets=("har-sitting",),
        behind_note="a linear model per node on random Fourier features of the rbf kernel "
        "(a part shared with the other nodes plus its own)",
        bytes_why="every round each node receives and returns a model vector over the "
        "random features (8-bit quantized), for as many rounds as its stopping rule takes",
    ),
    MethodSpec(
        "dada-learned", _dada("learned"),
        description="Dada: per-node l1 boosting of decision stumps by asynchronous "
        "decentralized Frank-Wolfe, collaboration graph learned jointly; peer-to-peer "
        "bytes counted",
        param_grid={"beta": [3.0, 10.0, 30.0], "mu": [0.3, 1.0, 3.0]},
        default_datasets=DADA_DATASETS,
        behind_note="each node's model is an l1-bounded (beta=3) combination of stumps "
        "built by 100 Frank-Wolfe wake-ups per node and pulled toward its learned "
        "neighbours' models (mu=3)",
        bytes_why="every wake-up sends a stump index and a step to each graph neighbour, "
        "and every graph update exchanges whole models with up to kappa=5 sampled peers",
    ),
    MethodSpec(
        "dada-oracle", _dada("oracle"),
        description="Dada on the dataset's oracle similarity graph (moons)",
        param_grid={"beta": [3.0, 10.0, 30.0], "mu": [0.3, 1.0, 3.0]},
        default_datasets=("moons",),
        behind_note="each node's model is an l1-bounded (beta=3) combination of stumps "
        "built by 100 Frank-Wolfe wake-ups per node and pulled toward its neighbours' "
        "models on the given graph (mu=3)",
        bytes_why="every wake-up sends a stump index and a step to each neighbour of the "
        "given graph",
    ),
    MethodSpec(
        "perso-linear", _perso_linear,
        description="Perso-lin: personalized logistic models smoothed over a graph learned "
        "as in Dada (asynchronous block coordinate descent)",
        param_grid={"mu": [0.1, 1.0, 10.0], "alpha": [1e-3, 1e-2]},
        default_datasets=DADA_DATASETS,
        behind_note="a logistic model per node (l2 alpha=1e-2, unstandardized features) "
        "pulled toward its learned neighbours' models (mu=1)",
        bytes_why="every wake-up sends the node's model (n_features + 1 values) to its "
        "graph neighbours, and the graph learning exchanges models with up to kappa=5 "
        "sampled peers",
    ),
)

for _spec in _METHOD_TABLE:
    register_method(_spec)

