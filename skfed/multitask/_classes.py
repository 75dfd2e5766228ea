"""The multi-task estimators: :class:`FederatedMultiTaskClassifier` and
:class:`FederatedMultiTaskRegressor` (their shared machinery:
:class:`~skfed.multitask._base._BaseMultiTask`)."""

import numpy as np
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets

from .._base import FederatedClassifierMixin, FederatedRegressorMixin
from .._compat import StrOptions
from ._base import _BaseMultiTask
from ._multiclass import _MulticlassMixin
from ._state import _LOSSES


class FederatedMultiTaskClassifier(FederatedClassifierMixin, _MulticlassMixin, _BaseMultiTask):
    """Federated kernel multi-task classifier with a learned task relationship (kernelized MOCHA).

    Every node t (phone, user, hospital: the ``groups`` of its samples)
    learns its own classifier ``f_t(x) = w_t . phi(x)``; the node models are
    coupled by a task-relationship matrix ``Omega`` learned from the data
    (or fixed), and trained over a simulated network in which only dual
    updates, support vectors and small summaries travel.

    By default (``omega="auto"``, ``kernel="linear"``) every node's model
    is a shared part plus its own, ``w_t = w_0 + v_t``, and the fit chooses
    how much to share (``shared_weight_``; :mod:`skfed.multitask._shared`,
    Evgeniou & Pontil's multi-task kernel) by validation within the nodes
    (``share_selection_``): from one pooled model to independent node
    models.
    With ``omega="learn"`` (and in the exact kernel mode) it is MOCHA's
    objective (Caldas, Smith & Talwalkar; Smith et al. 2017)::

        min_{W, Omega}  sum_t (1 / n_t) sum_i loss(w_t . phi(x_ti), y_ti)
                        + (lam / 2) tr(W Omega W^T)
        s.t.  Sigma = Omega^{-1} positive definite,  tr(Sigma) = 1

    with dual (paper eq. 3), for fixed Omega, minimised over ``alpha``::

        (1 / (2 lam)) alpha^T K alpha + sum_t (1 / n_t) sum_i loss*(-alpha_ti)
        K[(t, i), (u, j)] = sigma_tu k(x_ti, x_uj) / (n_t n_u)

    Each round every participating node runs dual coordinate ascent on its
    local subproblem (MOCHA's eq. 4, with the safe scaling ``rho =
    lambda_max(D^-1/2 Sigma D^-1/2)``, ``D = diag(Sigma)``, at most MOCHA's
    ``max_t sum_u |sigma_tu| / sigma_tt``; in the primal modes, by default,
    with the coupling ratio measured on the last round's steps instead, the
    server then taking the exact best step along the nodes' combined step:
    ``aggregation``) and ships what changed; once that
    W-step is finished (relative duality gap ``10 tol``) the server sets
    ``Sigma = (W^T W)^{1/2} / tr((W^T W)^{1/2})`` (eqs. 5-6), keeping the
    dual variables (warm start).  ``lam = 1 / (C n_samples)``.  With sample weights ``s_ti`` the loss
    average of node t is weighted, ``(1 / sum_i s_ti) sum_i s_ti loss(...)``,
    and ``n_samples`` is the total weight: a weight is a per-sample ``C``
    and an integer weight a repeated row (see :meth:`fit`).
    The protocol and what it costs in bytes are described in
    :mod:`skfed.multitask`.

    Parameters
    ----------
    C : float > 0, default=1.0
        Inverse regularization per sample, as in :class:`~sklearn.svm.SVC`:
        ``lam = 1 / (C n_samples)``.  It means the same at any number of
        nodes and samples: with ``omega="independent"`` node t solves an
        SVM with ``C_t = C n_samples / (n_nodes n_t)`` (``C`` for equal
        node sizes), and when the learned Omega ties every node into one
        model the problem is the pooled SVM with this ``C``.
    lam : float > 0 or None, default=None
        The objective's ``lambda`` directly.

        .. deprecated:: 0.1
           ``lam`` is deprecated and will be removed in 0.3; use
           ``C = 1 / (lam n_samples)``, which gives exactly the same fit.
    loss : {"hinge", "squared_hinge", "logistic"}, default="logistic"
        ``logistic``: ``log(1 + exp(-y z))`` (the default, as for
        :class:`~sklearn.linear_model.LogisticRegression`; enables
        :meth:`predict_proba`; on Landmine's 6 % positives it ranks 0.008
        to 0.023 AUC above the squared hinge, which is what keeps the
        defaults ahead of Local there; see the user guide);
        ``squared_hinge``: ``max(0, 1 - y z)^2`` (as for
        :class:`~sklearn.svm.LinearSVC`; solved exactly by the nodes, so
        faster); ``hinge``: ``max(0, 1 - y z)`` (SVM; ranks rare positives
        poorly).
    multi_class : {"auto", "multinomial", "ovr"}, default="auto"
        How more than two classes are learned.  ``"multinomial"``: one
        softmax loss over the classes, ``log sum_k exp(z_k) - z_y`` with
        ``z_k = w_tk . phi(x)``, whose dual variable of a sample is a
        vector over the classes solved jointly by the nodes (each class's
        models share ``Sigma``, or the shared part ``w_0`` and the share,
        as the binary problems do); needs ``loss="logistic"`` and a primal
        mode (``kernel="linear"`` or an approximation), and no ``privacy``.
        ``"ovr"``: one binary problem per class (one-vs-rest), sharing one
        ``Sigma``.  ``"auto"``: ``"multinomial"`` where it runs, ``"ovr"``
        otherwise (``multi_class_`` says which; on the Flower engine
        ``"ovr"``).  On five held-out multiclass families the multinomial
        loss scored 0.5-2.8 points above one-vs-rest on four and 0.04
        point below on HAR activity, at 1.1-1.8 times its CPU (the user
        guide's "Multiclass" section).  Two classes are one binary problem
        either way.
    kernel : {"linear", "rbf", "poly", "sigmoid", "laplacian"} or callable, default="linear"
        The kernel, as in :func:`skfed.kernels.pairwise_kernel`.
        ``"linear"`` (the default) keeps the primal ``W`` and a round
        costs ``d`` values per node each way: on HAR, Landmine, School and
        the synthetic regimes it scored at least as well as the rbf
        kernel's random features, at 0.03-0.4 times the raw upload (the
        user guide has the evidence).  A nonlinear kernel runs with random
        features or exactly (``approximation``).
    gamma : {"scale", "auto"} or float > 0, default="scale"
        Kernel coefficient (rbf, poly, sigmoid, laplacian; refused with linear).
        ``"scale"`` is ``1 / (n_features * X.var())`` over the pooled training data (the
        nodes share three numbers each to compute it), ``"auto"`` is
        ``1 / n_features``.  Under ``privacy`` with a finite epsilon the
        pooled variance is not released: ``"scale"`` takes that of
        standardized features, 1 (the same as ``"auto"``).
    degree : float >= 1, default=3
        Degree of the poly kernel (moved from 3 for another kernel: refused).
    coef0 : float, default=1.0
        Independent term of the poly and sigmoid kernels (refused for others).
    omega : {"auto", "shared", "learn", "independent"} or array-like of shape (n_nodes, n_nodes), \
            default="auto"
        ``"shared"``: ``w_t = w_0 + v_t`` with the share of the
        regularization learned (the joint objective ``loss + (lam m / 2)
        (||w_0|| + ||V||_F)^2``: per-node models at ``C`` and the pooled
        model at ``C`` are its two ends); the server runs L-BFGS on ``w_0``
        and the share while every node solves its own part, so the rounds
        do not grow with the nodes (primal modes only, no ``privacy``).
        ``"auto"``: ``"shared"`` where it runs and nothing of MOCHA's
        W-step is set (``omega_update_every``, ``aggregation``),
        ``"learn"`` otherwise (the exact kernel mode, ``privacy``, the
        Flower engine); ``omega_mode_`` says which.  With ``"auto"`` the
        share is chosen by within-node validation (``share_selection_``)
        among the learned one and 0.5, 0.9 and 0.99: every node holds out
        its samples fold by fold (5 folds up to 20,000 samples, else one
        fold of a fifth), the candidates are fitted warm-started on the
        rest, each node reports its error and loss on its held-out samples
        (2 floats a candidate and fold, counted), the lowest mean error per
        node wins (ties: loss), and the model is refitted on all samples at
        that share (``warm_start=True`` keeps the learned share).  The
        selection spends at most a quarter of the raw upload's bytes (a fit
        runs only if, costing what the last one did, it stays within) and
        is skipped when two candidate fits would not fit: then, with at
        least 5 nodes, the personal parts' weight ``mu`` is selected
        instead at the fitted shared model (every node fits its own part
        for 6 weights, 1 to 10^6 times the learned one, on its folds and
        reports its error and loss for each in float32;
        ``share_selection_["shares"]`` are ``1 - lam n_nodes / mu``) and the
        model refitted at the chosen weight (the shared part's penalty
        stays the learned share's), and with fewer ``share_selection_ =
        None`` (the learned share).
        ``"learn"``: start from ``Sigma = I / n_nodes`` and learn ``Omega``;
        ``"independent"``: keep ``Omega = n_nodes I`` (purely local models,
        nothing but gap terms is communicated); an array: a fixed ``Omega``
        (symmetric positive definite, rows in the order of ``nodes_``),
        used as given (not rescaled to ``tr(Omega^{-1}) = 1``).
    omega_update_every : int >= 1 or None, default=None
        ``omega="learn"``: the Omega step is taken once the W-step's
        relative duality gap is at most ``10 tol``; with an int ``H``, also
        after ``H`` rounds without an Omega step (the paper's fixed
        schedule).  Under ``privacy`` with a finite epsilon no gap is sent,
        and None means every 5 rounds.
    approximation : {"auto", None, "nystroem", "rff"}, default="auto"
        ``"auto"``: ``"rff"`` for the rbf kernel (``kernel="linear"`` has
        nothing to approximate) when 100 rounds of quantized model vectors
        cost less than the exact mode's 100 rounds (every row sent to every
        node and every dual variable's change relayed to every node each
        round; under ``privacy`` always), with ``n_components="auto"``
        capped so that those rounds cost at most the raw upload when any
        number of features does (Landmine 119 features, School 83, HAR
        sitting the full 1,225; not under ``privacy``; nodes of a few rows,
        where no mode fits the raw upload, take at most 512, so that no
        node's bytes grow with the number of nodes);
        ``None`` otherwise (one node, and with a ``cache_size``); a number
        ``n_components`` asks for an approximation (``"rff"`` for the rbf
        kernel, ``"nystroem"`` for the others); the choice is
        ``approximation_`` and the user guide gives the evidence.  ``None``: the exact kernel, with
        support-vector exchange.
        ``"nystroem"``: linear MOCHA on the features
        ``z(x) = K(x, L) K(L, L)^{-1/2}`` of ``n_components`` landmarks ``L``
        drawn once, each node contributing a share proportional to its
        number of samples drawn uniformly from its own samples (the
        landmarks are sent to every node; their bytes are counted).
        ``"rff"``: linear MOCHA on random Fourier features
        ``sqrt(2 / D) cos(x V + b)``, ``V ~ N(0, 2 gamma)``, ``b ~ U(0, 2 pi)``
        from a seed all nodes share (rbf only; no data leaves a node).
    n_components : int or "auto", default="auto"
        Number of landmarks or random features; ``"auto"``: ``ceil(2
        sqrt(n) ln n)`` for ``n`` training samples (all nodes), the order
        with which random features and Nystroem landmarks keep the exact
        kernel method's learning rate (Rudi & Rosasco 2017; Rudi,
        Camoriano & Rosasco 2015), the factor 2 chosen on HAR (see the user
        guide): 5,137 samples give 1,225 (``approximation="auto"`` may cap
        it by the bytes, see there).  At most 4,096: the primal modes
        hold the ``n x D`` feature matrix (``8 n D`` bytes in float64), which
        would otherwise grow faster than the data.  A number whose
        features (and random weights) exceed the machine's physical memory
        is refused, naming ``n_components``; Nystroem uses at most ``n``
        landmarks.  The number used is ``n_components_``.
    landmarks : {"random", "kmeans"}, default="random"
        Nystroem landmarks (``approximation="nystroem"`` only; any other
        mode raises): ``"random"`` samples drawn by every node from its own
        samples; ``"kmeans"`` k-means centres computed once over the
        network (local k-means on every node, weighted k-means of the local
        centres at the server; see :mod:`skfed.multitask` for the bytes).
        k-means landmarks help most when few landmarks are affordable.
    fit_intercept : bool, default=True
        Add a bias: a constant feature ``intercept_scaling`` (the kernel
        becomes ``k(x, x') + intercept_scaling^2``).  The bias is part of
        ``w_t``, so it is regularized and coupled through Omega like the
        other weights (as in :class:`~sklearn.svm.LinearSVC`).
    intercept_scaling : float > 0, default=1.0
        Value of the constant bias feature.
    local_epochs : float > 0, default=10.0
        Passes over its samples a node makes per round (MOCHA's local
        iterations; stragglers of ``network`` do a random fraction of them).
    local_gap_target : float in (0, 1) or None, default=None
        MOCHA's theta: a node also stops its round as soon as (after a pass)
        its local duality gap is at most this fraction of its value at the
        start of the round.
    local_solver : {"auto", "exact", "coordinate"}, default="auto"
        How a node solves its subproblem in the primal modes.
        ``"coordinate"``: MOCHA's dual coordinate ascent, ``local_epochs``
        passes per round.  ``"exact"`` (hinge, squared hinge and squared
        loss): to optimality (projected gradient at most 1e-10 in margin
        units) by projected damped Newton on the node's Gram matrix
        ``Z_t Z_t^T``, which it keeps: ``n_t^2`` floats per node and
        ``O(n_t^3)`` per Newton iteration (a few to a few tens per round);
        ``local_epochs`` and ``local_gap_target`` then apply only to
        stragglers, which do their fraction of coordinate-ascent epochs.
        ``"auto"``: ``"exact"`` when the loss allows it on the nodes whose
        factorization costs little against a round of coordinate ascent:
        at most 256 samples, or at most 1,000 (8 MB of Gram matrix) with
        ``n_t^2 <= 100 local_epochs d'`` (``d'`` features, the intercept's
        included); ``"coordinate"`` otherwise.  So HAR, School and many
        small nodes solve exactly, and Landmine's nodes (about 357 samples
        in 10 dimensions) run coordinate ascent: with the hinge loss 0.16 s
        instead of 6.5 s for the same objective (the user guide has the
        measurements).  The exact kernel mode always runs coordinate ascent, and
        so does the Flower engine (``"auto"`` means ``"coordinate"`` there;
        ``"exact"`` is refused).
    aggregation : {"auto", "line_search", "add"}, default="auto"
        How the server combines the nodes' local steps.  ``"add"``:
        CoCoA+ adding, each node's subproblem scaled by the safe ``rho``
        (``rho_``), every step taken in full.  ``"line_search"`` (primal
        modes: ``kernel="linear"`` and the approximate modes): the nodes
        scale their subproblems by twice the coupling ratio the server
        measured on the previous round's steps (within [1, ``rho``]), and the
        server takes the step in [0, 1] along the sum of their steps that
        maximizes the dual exactly; each node sends one or two more floats
        (its conjugate's change) and gets the step back with its next
        message.  With a diagonal ``Sigma`` (``rho = 1``) both are the same
        and nothing is searched.  ``"auto"``: ``"line_search"`` in the
        primal modes without ``privacy`` (or with ``epsilon=inf``), ``"add"``
        otherwise (and on the Flower engine, whose server adds the steps).
        See the user guide.
    compression : {"auto", "none"} or int in [2, 32], default="auto"
        Precision of the primal modes' round messages (``w_t`` down,
        ``Delta v_t`` up).  An integer ``b``: each vector travels as one
        float64 scale and ``b``-bit integers (:func:`quantize`, ``8 +
        ceil(d' b / 8)`` bytes), with error feedback: node t keeps what
        rounding left out of its updates and sends it with the next one,
        and gets the difference between the server's ``w_t`` and the model
        it holds, so both errors stay within one rounding of the latest
        change.  The fitted model is the server's (its duality gap, the
        stopping rule's, is that of the returned model against the dual
        variables' dual objective, an honest certificate), delivered
        unquantized at the end.  ``"none"``: float64, as before.
        ``"auto"``: 8 bits in the primal modes, ``"none"`` under ``privacy``
        with a finite epsilon, in the exact kernel mode and on the Flower
        engine; an explicit number of bits there raises.  See the user guide.
    tol : float >= 0, default=1e-3
        Fixed Omega: stop when the duality gap is at most ``tol`` times the
        primal objective.  ``omega="learn"``: at every Omega step due after
        a W-step finished to a relative gap of ``10 tol``, the joint
        objective ``loss(W) + (lam / 2) ||W||_*^2`` of the models that
        W-step reached is evaluated; the fit stops there, without taking the
        step, when that value changed by at most ``tol`` (relative) since
        the previous such step, or is within ``tol`` (relative) of the best
        joint dual seen (a certified bound).  The models returned are those,
        with their best Omega; see the user guide for how close to the
        optimum that lands.
    max_rounds : int or "auto", default="auto"
        Maximum number of communication rounds of each fit the estimator
        runs; a :class:`~sklearn.exceptions.ConvergenceWarning` is raised
        when they run out.  ``"auto"``: 1,000, or 20 under ``privacy`` with
        a finite epsilon (a private fit runs all its rounds, and its noise
        grows with their number).  With the shared-component model chosen
        by ``omega="auto"`` (``omega_mode_ == "shared"``) the share
        selection runs up to 4 candidate fits on each of up to 5 validation
        folds before the final fit on all samples; each of them is bounded
        by ``max_rounds``, and ``n_iter_`` and the curves count the rounds
        of all of them, so ``n_iter_`` can exceed ``max_rounds``
        (``share_selection_`` tells whether a selection ran).
    cache_size : float >= 0 or None, default=None
        Exact kernel mode: a bound, in MB summed over all nodes, on the
        kernel rows of received support vectors the nodes cache (node u
        keeps at most ``cache_size / n_nodes`` MB, rows of ``n_u``
        values); None: every row is cached.  Rows beyond the bound are
        recomputed whenever their dual variable changes: each costs
        ``n_u d`` kernel operations per change instead of memory.  The fit
        (and its bytes) does not depend on it.  Not bounded by it: each
        node's own kernel block (``n_t^2`` values) and margin states
        (``n_problems n_nodes n_t`` floats).  Unbounded, the cache grows to
        ``n_SV n_t`` values per node (20 nodes of 1,000 samples: up to
        3 GB); any other mode raises.
    warm_start : bool, default=False
        Start from the previous fit's dual variables (and, with
        ``omega="learn"``, its ``Sigma``) instead of zero and ``I / n_nodes``:
        a path over ``C`` on the same data (they are feasible at any ``C``).
        After ``add_nodes``, a refit on the fitted and joined nodes starts from
        theirs too and the grown ``Sigma``.  They reach the other nodes as
        changes from zero, counted with the setup.  Other nodes, samples per
        node, targets or loss raise.
        What it saves along a path over ``C`` is measured by
        ``benchmarks/bench_multitask_cv.py``.
    group_column : int, str or None, default=None
        Column of ``X`` holding the node id of every sample.
    handle_unknown : {"global", "error"}, default="global"
        Nodes never seen in fit: ``"global"`` predicts with the average of
        the node models, ``"error"`` raises.
    network : SimulatedNetwork or None, default=None
        The simulated network (drops, stragglers); None is a perfect one.
        Rogue nodes are refused with an error (the paper defines none).
    random_state : int, RandomState instance or None, default=None
        Seeds the coordinate order of every node, the faults, landmarks and
        random features.
    n_jobs : int or None, default=None
        Nodes solved in parallel through joblib (threads by default: the
        node solvers release the GIL).  ``None`` means 1 unless inside a
        :func:`joblib.parallel_config` context.  In the primal modes
        (``kernel="linear"``, ``approximation="nystroem"`` or ``"rff"``)
        the node solves are pure, so any joblib backend works, Dask workers
        included (``parallel_config(backend="dask")``: one chunk of nodes
        per worker and round).  The exact kernel mode updates its kernel
        caches and margin states in place every round, so it requires
        shared memory and always runs on threads, even under the Dask
        backend.  Results do not depend on ``n_jobs`` or the backend.
        ``0`` is refused; more workers than nodes are not started.
    verbose : int, default=0
        Print the gap after every round, and at an Omega step the joint
        objective after it and that of the models the W-step reached
        before it.
    privacy : DifferentialPrivacy, default=None
        Make every node's messages ``(epsilon, delta)``-differentially
        private with respect to its whole data set (client level: the node's
        data set replaced by any other, of any size).  Every round a node
        clips its update ``Delta v_t`` (the change of ``v_t = sum_i alpha_ti
        x_ti / n_t``, all problems together) to Frobenius norm ``B =
        privacy.clip_norm`` and releases it through the discrete Gaussian
        mechanism (sensitivity ``2 B``; exact sampler on a grid, noise from
        the operating system's CSPRNG, never from ``random_state``;
        ``sigma`` calibrated in zCDP so that ``max_rounds`` releases spend
        the budget).  The release is not scaled by ``n_t``, so it does not
        reveal the node's size; the server adds it to its ``V``, and
        everything it sends is post-processing.  Each node keeps its exact
        ``v_t`` and solves, and predicts, with its own exact share in place
        of its noisy one.  The Omega step is noise-aware: the server removes
        the noise's bias from the diagonal of ``V^T V`` and keeps only the
        task relations that the (public) noise scale does not explain; when
        none survives it keeps ``Sigma`` (the nodes then learn from their own
        data alone, the ``omega="independent"`` fit, never from noise).
        No gap terms are sent, so a private fit runs ``max_rounds`` rounds
        (``"auto"``: 20) with an Omega step every ``omega_update_every``
        (None: 5); ``gamma="scale"`` releases no pooled variance (it means
        ``1 / n_features`` then).  The exact kernel and Nystroem modes send
        samples and are refused, as are ``sample_weight`` and
        ``warm_start=True``; ``approximation="auto"`` is random features.
        A private fit keeps no training row (``support_vectors_``,
        ``support_`` and ``dual_coef_`` are empty) and no exact objective or
        gap (the curves are None).  Sets ``privacy_spent_`` (epsilon per
        node, from the accountant, for the rounds it took part in),
        ``privacy_``, ``privacy_public_`` and ``privacy_guarantee_void_``.
        None: no privacy.

    Attributes
    ----------
    nodes_ : ndarray of shape (n_nodes,)
        Node labels seen in fit.
    classes_ : ndarray of shape (n_classes,)
        All classes seen in fit (over every node).
    multi_class_ : {"multinomial", "ovr"}
        The multiclass strategy the fit used (``multi_class="auto"``
        resolved; ``"ovr"`` for two classes, one binary problem).
    omega_ : ndarray of shape (n_nodes, n_nodes)
        The task-relationship matrix ``Omega`` (m x m by definition).  In
        linear mode with ``n_problems * (n_features + fit_intercept) <
        n_nodes`` the fit keeps it as identity plus low rank and forms this
        matrix only when it is read (``O(n_nodes^2)`` memory then).
    task_covariance_ : ndarray of shape (n_nodes, n_nodes)
        ``Sigma = Omega^{-1}`` (formed on access likewise).
    rho_ : float
        The safe scaling ``rho`` for the final ``Sigma``.
    dual_coef_ : ndarray of shape (n_problems, n_SV)
        Exact kernel mode: dual variables ``alpha`` of the support vectors (a
        row per binary problem); primal modes: no column (kept on the nodes).
    support_ : ndarray of shape (n_SV,)
        Exact kernel mode: indices (into the training ``X``) of the support
        vectors, node by node in ``nodes_`` order; primal modes: empty.
    support_vectors_ : ndarray of shape (n_SV, n_features) or (0, n_features)
    n_support_ : ndarray of shape (n_nodes,)
        Support vectors of each node.
    coef_ : ndarray of shape (n_nodes, n_features') or (n_nodes, n_classes, n_features')
        Per-node weights, in the primal modes (``kernel="linear"``: input
        features; approximate modes: the ``n_components`` features).
    intercept_ : ndarray of shape (n_nodes,) or (n_nodes, n_classes)
        Per-node bias (``intercept_scaling`` times the bias weight).
    components_ : ndarray of shape (n_components, n_features)
        Nystroem landmarks.
    normalization_ : ndarray of shape (n_components, n_components)
        ``K(L, L)^{-1/2}`` (Nystroem).
    random_weights_, random_offset_ : ndarray
        ``V`` and ``b`` of the random Fourier features.
    approximation_ : {None, "nystroem", "rff"}
        The mode the fit used (``approximation="auto"`` resolved).
    omega_mode_ : {"shared", "learn", "independent", "fixed"}
        The model the fit used (``omega="auto"`` resolved).
    shared_weight_ : float
        ``omega_mode_ == "shared"``: the learned share ``b`` in (0, 1) of
        the regularization on the shared part (near 1: nearly one pooled
        model; near 0: nearly independent node models): learned, or with
        ``omega="auto"`` the validated one.
    share_selection_ : dict
        ``omega="auto"`` with the shared model: ``shares`` (the candidates,
        NaN for the learned share), ``validation_error`` and
        ``validation_loss`` (mean over the nodes of their held-out error,
        or squared error for regression, and loss), ``n_folds`` and
        ``selected`` (NaN: the learned share).  On small nodes (the
        personal selection, when the share selection's fits would cost
        more than its byte budget): ``shares`` are the personal weight's
        candidates as shares, and ``shared_part_share`` the learned share
        that the shared part's penalty keeps in the refit (``omega_``,
        ``task_covariance_`` and ``joint_objective_`` are that problem's);
        when no node can hold a sample out (nodes of one sample) nothing is
        validated: ``n_folds`` is 0, the scores NaN and the learned weight
        stays.
        The curves and ``bytes_per_round_`` cover the candidates' fits,
        then the refit.
    shared_coef_, shared_intercept_ : ndarray
        ``omega_mode_ == "shared"``: the shared model ``w_0`` (also the
        model of nodes unseen in fit).
    n_components_ : int or None
        Landmarks or random features used (None in the exact kernel and
        linear modes).
    gamma_ : float or None
        The kernel width the fit used (``gamma="scale"`` or ``"auto"``
        resolved: ``1 / (n_features X.var())`` over the pooled training
        data, or ``1 / n_features``; ``1 / n_features`` for ``"scale"``
        under a finite privacy budget); None for ``kernel="linear"`` and a
        callable kernel.
    n_iter_ : int
        Communication rounds run, over every fit (the share selection's
        included, see ``max_rounds``).
    duality_gap_curve_ : ndarray of shape (n_iter_,)
        Duality gap after every round (after the Omega update of that round,
        if any).
    objective_curve_ : ndarray of shape (n_iter_,)
        Primal objective after every round.
    dual_objective_curve_ : ndarray of shape (n_iter_,)
        Dual objective after every round.
    joint_objective_curve_ : ndarray of shape (n_iter_,)
        ``omega="learn"``: the joint objective ``loss(W) + (lam / 2)
        ||W||_*^2`` of the models the W-step reached, at every round where
        an Omega step was due (evaluated before the step), NaN in between
        (fixed Omega: the primal objective).
    joint_objective_ : float
        Its last value: for a fit that met the rule, the joint objective of
        the returned models with the returned Omega.  The shared model
        (``omega_mode_ == "shared"``): the objective of the returned model,
        the joint one of the learned share, or with ``omega="auto"`` that
        of the fixed-share problem at the selected share (see
        ``share_selection_``), whose optimum the returned model is to
        within ``joint_duality_gap_``.
    joint_duality_gap_ : float
        A certified upper bound on ``joint_objective_`` minus the optimum:
        the gap to the best joint dual ``-sum conjugates - lambda_max(G) /
        (2 lam)`` seen during the fit (loose until Omega has settled: 12-17 %
        of the objective on HAR in linear mode); the duality gap for a
        fixed Omega.
    communication_, join_communication_ : CommunicationLog
        Bytes and messages per node and round: the fit's; every join's.
    n_bytes_sent_, n_messages_ : int
    bytes_per_round_ : ndarray of shape (n_iter_,), (n_iter_ + 1,) after a class vote (last)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
    privacy_spent_ : ndarray of shape (n_nodes,)
        Under ``privacy``: the epsilon each node spent, at the
        specification's delta (its releases and ``privacy_["class_vote"]``).
    privacy_ : dict
        Under ``privacy``: mechanism, noise, sensitivity, uses per node,
        composition, accountant, protection level and noise source.
    privacy_public_ : dict
        Under ``privacy``: what the fit treats as public (the total number
        of samples behind ``lam``, the class set, the feature map, the
        schedule, Omega and the server's models), each with why.
    privacy_guarantee_void_ : bool
        Under ``privacy``: True when the noise came from
        ``insecure_noise_seed`` (testing only).
    refit_choice_ : ndarray of shape (n_nodes, n_problems), dtype object
        Under a finite privacy budget (primal modes): the model each node
        kept, per binary problem, chosen on its own samples by
        cross-validation (one standard error rule) among the fit's loss and
        ``C`` and other candidates, with or without the part of its model
        the other nodes' releases make (e.g. ``"hinge C=1 +others"``); each
        node's ``coef_`` is that refit.  ``"local LinearSVC"``,
        ``"local rff-LinearSVC"`` (and so on) for a
        node that keeps a model it trained alone (``kept_local_models_``).
    kept_local_models_ : ndarray of shape (n_nodes,), dtype object
        Under a finite privacy budget (primal modes): the scikit-learn model
        a node trained alone on its raw features and predicts with, because
        it validated better than the refit by more than one standard error
        on the same folds: ``LinearSVC()``, ``LogisticRegression()`` or the
        rbf SVM in the primal (a ``Pipeline`` of 300 public random Fourier
        features, ``RBFSampler`` with ``gamma = 1 / n_features`` and
        directions from ``random_state``, and ``LinearSVC(C=10)``); None for a
        node that keeps its refit.  None stores a training row (no kernel
        model with support vectors).  Fitted on the class indices:
        ``classes_[model.predict(X)]`` are its labels.  Never sent (no budget), not private
        for the node's own samples (fitted on them), like a Local model.
    elected_local_class_ : str or None
        Under a finite privacy budget: the Local class the nodes' private
        vote or its pooled test elected for every node, or None (:mod:`skfed._class_vote_pooled`).

    See Also
    --------
    FederatedMultiTaskRegressor : The same method with the squared loss.
    skfed.baselines.LocalEstimator : One model per node, no communication.
    sklearn.svm.SVC : The global kernel SVM on pooled data.

    Notes
    -----
    Multiclass problems (``multi_class_``) are solved with the multinomial
    loss, or one-vs-rest, one binary problem per class; either way the
    classes share one Omega (the Omega step uses ``sum_k W_k^T W_k``) or,
    with the shared model, one share (the penalty is on ``||w_0||_F`` and
    ``||V||_F`` over every class).  Under the multinomial loss a node's
    local step visits one sample and solves its subproblem in the ``K``
    dual variables exactly (Newton's method on the multiplier of the
    simplex constraint, Lambert's W per class).

    ``omega_`` is never used by the solver (only ``Sigma`` is); the Omega
    step raises eigenvalues of ``W^T W`` below ``1e-7`` times the largest
    (MOCHA raises negative ones to ``1e-7``), so ``omega_`` stays finite.

    Node t's model is always ``W(alpha, Sigma) = V Sigma / lam`` for the
    current dual variables (with ``compression``, for the ``V`` the server
    received, within one rounding of the dual variables' own), so an Omega
    step changes the models at once and the reported duality gap is exact;
    a fit that meets the learned-Omega rule stops before that step and
    returns the models the W-step reached, which have the lower joint
    objective, with the step's Omega.  (MOCHA's reference code instead
    keeps ``W`` and adds later updates with the new ``Sigma``.)  The
    alternation of W and Omega steps approaches its fixed point slowly when
    the learned ``Sigma`` is nearly singular; a tight ``tol`` then needs many
    rounds, while the accuracy usually settles much earlier.

    Cost of the exact kernel mode: every node keeps its own kernel block
    (``n_t^2`` values) and the kernel rows of the support vectors it has
    received (``n_SV x n_t``), and each round costs one kernel row per new
    support vector and ``n_t`` operations per changed dual variable on every
    node; ``cache_size`` bounds the received rows, trading memory for
    recomputed kernel rows.  Every support vector eventually reaches every node that needs it,
    which for many support vectors is more bytes than the raw data; the
    approximate modes trade accuracy for bytes and memory.

    References
    ----------
    .. [1] S. Caldas, V. Smith, A. Talwalkar. "Federated Kernelized
       Multi-Task Learning". SysML 2018.
    .. [2] V. Smith, C.-K. Chiang, M. Sanjabi, A. Talwalkar. "Federated
       Multi-Task Learning". NeurIPS 2017.
    .. [3] A. Rudi, L. Rosasco. "Generalization Properties of Learning with
       Random Features". NeurIPS 2017.
    .. [4] A. Rudi, R. Camoriano, L. Rosasco. "Less is More: Nystrom
       Computational Regularization". NeurIPS 2015.
    .. [5] F. Seide, H. Fu, J. Droppo, G. Li, D. Yu. "1-Bit Stochastic
       Gradient Descent and its Application to Data-Parallel Distributed
       Training of Speech DNNs". Interspeech 2014 (error feedback).

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.multitask import FederatedMultiTaskClassifier
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(120, 2)); groups = np.repeat([0, 1, 2], 40)
    >>> y = (X[:, 0] + 0.3 * groups * X[:, 1] > 0).astype(int)
    >>> clf = FederatedMultiTaskClassifier(random_state=0)
    >>> clf.fit(X, y, groups=groups).score(X, y, groups=groups) > 0.9
    True
    >>> clf.omega_.shape
    (3, 3)
    """

    _parameter_constraints = {
        **_BaseMultiTask._parameter_constraints,
        "loss": [StrOptions({"hinge", "squared_hinge", "logistic"})],
        "multi_class": [StrOptions({"auto", "multinomial", "ovr"})],
    }

    def __init__(
        self,
        *,
        C=1.0,
        lam=None,
        loss="logistic",
        multi_class="auto",
        kernel="linear",
        gamma="scale",
        degree=3,
        coef0=1.0,
        omega="auto",
        omega_update_every=None,
        approximation="auto",
        n_components="auto",
        landmarks="random",
        fit_intercept=True,
        intercept_scaling=1.0,
        local_epochs=10.0,
        local_gap_target=None,
        local_solver="auto",
        aggregation="auto",
        compression="auto",
        tol=1e-3,
        max_rounds="auto",
        cache_size=None,
        warm_start=False,
        group_column=None,
        handle_unknown="global",
        network=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
        privacy=None,
    ):
        super().__init__(
            C=C, lam=lam, loss=loss, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
            omega=omega, omega_update_every=omega_update_every,
            approximation=approximation, n_components=n_components, landmarks=landmarks,
            fit_intercept=fit_intercept, intercept_scaling=intercept_scaling,
            local_epochs=local_epochs, local_gap_target=local_gap_target,
            local_solver=local_solver, aggregation=aggregation, compression=compression,
            tol=tol,
            max_rounds=max_rounds, cache_size=cache_size, warm_start=warm_start,
            group_column=group_column,
            handle_unknown=handle_unknown, network=network, random_state=random_state,
            n_jobs=n_jobs, verbose=verbose, privacy=privacy,
        )
        self.multi_class = multi_class

    def fit(self, X, y, groups=None, sample_weight=None):
        """Fit the per-node classifiers and Omega over the simulated network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample.  ``None`` (and no ``group_column``)
            means one node, with a :class:`~skfed.SingleNodeWarning`.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; every node needs a positive total.  A
            weight multiplies its sample's loss term, as a per-sample ``C``
            in :class:`~sklearn.svm.SVC`: node t's loss is ``(1 / S_t)
            sum_i s_ti loss_ti`` (``S_t`` its total weight) and ``lam = 1 /
            (C S)`` with ``S`` the total weight (the number of samples
            without weights), so with one node the objective is ``C sum_i
            s_i loss_i + ||w||^2 / 2``.  An integer weight k therefore equals
            repeating the row k times (to the solver's tolerance) wherever
            the fit sees the rows only through this objective: the linear
            kernel, the exact kernel mode, and random features with a
            numeric ``gamma`` and ``n_components``.  Rows of weight 0 are
            removed before the fit reads anything, so weight 0 is exactly
            dropping the row.  Repetition does not equal weighting exactly
            where the fit reads the rows themselves: ``gamma="scale"`` (the
            unweighted variance of the rows of positive weight, as in ``SVC``),
            ``n_components="auto"``, ``approximation="auto"`` and the Nystroem
            landmarks (drawn among the rows), and ``omega="auto"``'s
            held-out folds (a repeated row may fall in another fold than its
            twin).

        Returns
        -------
        self : FederatedMultiTaskClassifier
        """
        self._validate_params()
        X, y, sample_weight, layout = self._validate_fit_data(X, y, groups, sample_weight)
        check_classification_targets(y)
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(
                "The number of classes has to be greater than one; got 1 class "
                f"({self.classes_.tolist()[0]!r}) over all nodes."
            )
        Xs = layout.sort(X)
        codes = layout.sort(y_codes.ravel())
        if len(self.classes_) == 2:
            Y = np.where(codes == 1, 1.0, -1.0)[None, :]
        else:
            Y = np.where(codes[None, :] == np.arange(len(self.classes_))[:, None], 1.0, -1.0)
        sw = layout.sort(sample_weight) if sample_weight is not None else None
        return self._fit(Xs, np.ascontiguousarray(Y), sw, layout)

    def decision_function(self, X, groups=None):
        """Score of each sample under its node's personalized model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (not needed with ``group_column`` or
            after a one-node fit).

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes, positive means ``classes_[1]``.
        """
        scores = self._raw_decision(X, groups)
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X, groups=None):
        """Class of each sample under its node's personalized model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        scores = self._raw_decision(X, groups)
        if scores.shape[1] == 1:
            return self.classes_[(scores[:, 0] > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    @available_if(_MulticlassMixin._has_proba)
    def predict_proba(self, X, groups=None):
        """Class probabilities (``loss="logistic"`` only).

        Binary: the logistic function of the score; multiclass: the
        softmax of the scores (``multi_class_="multinomial"``, the model's
        own probabilities) or the one-vs-rest logistic probabilities,
        normalized to sum to one.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        return self._proba(X, groups)

    @available_if(_MulticlassMixin._has_proba)
    def predict_log_proba(self, X, groups=None):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
        """
        return np.log(self.predict_proba(X, groups=groups))


class FederatedMultiTaskRegressor(FederatedRegressorMixin, _BaseMultiTask):
    """Federated kernel multi-task regression with a learned task relationship (kernelized MOCHA).

    The regression counterpart of :class:`FederatedMultiTaskClassifier`,
    with the squared loss::

        min_{W, Omega}  sum_t (1 / n_t) sum_i (w_t . phi(x_ti) - y_ti)^2 / 2
                        + (lam / 2) tr(W Omega W^T)
        s.t.  Sigma = Omega^{-1} positive definite,  tr(Sigma) = 1

    (for fixed Omega a multi-task kernel ridge regression).  The dual
    coordinate step is closed form: ``delta = (y - p - alpha) / (1 + q)``.
    Protocol, modes and byte counts as in :mod:`skfed.multitask`.

    Parameters
    ----------
    C : float > 0, default=1.0
        ``lam = 1 / (C n_samples)`` (see the classifier).
    lam : float > 0 or None, default=None
        The objective's ``lambda`` directly.

        .. deprecated:: 0.1
           Use ``C = 1 / (lam n_samples)``; removed in 0.3.
    loss : {"squared"}, default="squared"
        ``(z - y)^2 / 2``.
    kernel : {"linear", "rbf", "poly", "sigmoid", "laplacian"} or callable, default="linear"
        See :class:`FederatedMultiTaskClassifier`.
    gamma : {"scale", "auto"} or float > 0, default="scale"
    degree : float >= 1, default=3
    coef0 : float, default=1.0
    omega : {"auto", "shared", "learn", "independent"} or array-like of shape (n_nodes, n_nodes), \
            default="auto"
        See :class:`FederatedMultiTaskClassifier` (``"auto"``: the shared
        model ``w_t = w_0 + v_t`` in the primal modes).
    omega_update_every : int >= 1 or None, default=None
    approximation : {"auto", None, "nystroem", "rff"}, default="auto"
        Exact kernel or an approximation (see the classifier).
    n_components : int or "auto", default="auto"
        Number of landmarks or random features (see the classifier).
    landmarks : {"random", "kmeans"}, default="random"
        Nystroem landmarks (see the classifier).
    fit_intercept : bool, default=True
        Regularized bias through a constant feature (see the classifier).
        Targets are not centred: for targets far from zero use a larger
        ``intercept_scaling`` or centre ``y``.
    intercept_scaling : float > 0, default=1.0
    local_epochs : float > 0, default=10.0
    local_gap_target : float in (0, 1) or None, default=None
    local_solver : {"auto", "exact", "coordinate"}, default="auto"
        How a node solves its subproblem (see the classifier); with the
        squared loss the exact solve is one linear system per node.
    aggregation : {"auto", "line_search", "add"}, default="auto"
        How the server combines the nodes' steps (see the classifier).
    compression : {"auto", "none"} or int in [2, 32], default="auto"
        Precision of the primal modes' round messages (see the classifier).
    tol : float >= 0, default=1e-3
        Stopping rule, as for the classifier.
    max_rounds : int or "auto", default="auto"
    cache_size : float >= 0 or None, default=None
        Memory bound (MB, all nodes) on the cached kernel rows of the exact
        kernel mode (see the classifier).
    warm_start : bool, default=False
        Start from the previous fit's dual variables and ``Sigma`` (see the
        classifier).
    group_column : int, str or None, default=None
    handle_unknown : {"global", "error"}, default="global"
    network : SimulatedNetwork or None, default=None
    random_state : int, RandomState instance or None, default=None
    n_jobs : int or None, default=None
    verbose : int, default=0
    privacy : DifferentialPrivacy, default=None
        See :class:`FederatedMultiTaskClassifier`.

    Attributes
    ----------
    nodes_ : ndarray of shape (n_nodes,)
    omega_ : ndarray of shape (n_nodes, n_nodes)
    task_covariance_ : ndarray of shape (n_nodes, n_nodes)
    rho_ : float
    dual_coef_ : ndarray of shape (1, n_SV)
    support_ : ndarray of shape (n_SV,)
    support_vectors_ : ndarray of shape (n_SV, n_features) or (0, n_features)
    n_support_ : ndarray of shape (n_nodes,)
    coef_ : ndarray of shape (n_nodes, n_features')
        Primal modes only.
    intercept_ : ndarray of shape (n_nodes,)
    n_iter_ : int
    duality_gap_curve_, objective_curve_, dual_objective_curve_ : ndarray of shape (n_iter_,)
    joint_objective_curve_ : ndarray of shape (n_iter_,)
    joint_objective_, joint_duality_gap_ : float
    communication_, join_communication_ : CommunicationLog
    n_bytes_sent_, n_messages_ : int
    bytes_per_round_ : ndarray of shape (n_iter_,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
    gamma_ : float or None
        The kernel width the fit used (see the classifier).
    shared_weight_, share_selection_, shared_coef_, shared_intercept_
        The shared model's (see the classifier).
    privacy_spent_, privacy_, privacy_public_, privacy_guarantee_void_, refit_choice_,
    kept_local_models_
        Under ``privacy`` (see the classifier; the models a node trains
        alone here are ``Ridge()``, kernel ridge in the primal on the same
        public random features and ``LassoCV()``).

    See Also
    --------
    FederatedMultiTaskClassifier : The classifier, with the full description.
    sklearn.kernel_ridge.KernelRidge : The global kernel ridge on pooled data.

    References
    ----------
    .. [1] S. Caldas, V. Smith, A. Talwalkar. "Federated Kernelized
       Multi-Task Learning". SysML 2018.
    .. [2] V. Smith, C.-K. Chiang, M. Sanjabi, A. Talwalkar. "Federated
       Multi-Task Learning". NeurIPS 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.multitask import FederatedMultiTaskRegressor
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(300, 3)); groups = np.repeat(["a", "b", "c"], 100)
    >>> y = X @ [1.0, -1.0, 0.5] + 0.1 * rng.normal(size=300)
    >>> reg = FederatedMultiTaskRegressor(kernel="linear", random_state=0)
    >>> reg.fit(X, y, groups=groups).score(X, y, groups=groups) > 0.95
    True
    """

    _parameter_constraints = {
        **_BaseMultiTask._parameter_constraints,
        "loss": [StrOptions({"squared"})],
    }

    def __init__(
        self,
        *,
        C=1.0,
        lam=None,
        loss="squared",
        kernel="linear",
        gamma="scale",
        degree=3,
        coef0=1.0,
        omega="auto",
        omega_update_every=None,
        approximation="auto",
        n_components="auto",
        landmarks="random",
        fit_intercept=True,
        intercept_scaling=1.0,
        local_epochs=10.0,
        local_gap_target=None,
        local_solver="auto",
        aggregation="auto",
        compression="auto",
        tol=1e-3,
        max_rounds="auto",
        cache_size=None,
        warm_start=False,
        group_column=None,
        handle_unknown="global",
        network=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
        privacy=None,
    ):
        super().__init__(
            C=C, lam=lam, loss=loss, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
            omega=omega, omega_update_every=omega_update_every,
            approximation=approximation, n_components=n_components, landmarks=landmarks,
            fit_intercept=fit_intercept, intercept_scaling=intercept_scaling,
            local_epochs=local_epochs, local_gap_target=local_gap_target,
            local_solver=local_solver, aggregation=aggregation, compression=compression,
            tol=tol,
            max_rounds=max_rounds, cache_size=cache_size, warm_start=warm_start,
            group_column=group_column,
            handle_unknown=handle_unknown, network=network, random_state=random_state,
            n_jobs=n_jobs, verbose=verbose, privacy=privacy,
        )

    def _loss_object(self, n_problems):
        """The Cython loss of the fit (the squared loss)."""
        return _LOSSES[self.loss]()

    def _fitted_loss(self):
        """The Cython loss of the fitted model (for nodes that join later)."""
        return _LOSSES[self.loss]()

    def fit(self, X, y, groups=None, sample_weight=None):
        """Fit the per-node regressors and Omega over the simulated network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (see the classifier).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights, a per-sample ``C``: an integer weight
            equals a repeated row (see the classifier's ``fit``).

        Returns
        -------
        self : FederatedMultiTaskRegressor
        """
        self._validate_params()
        X, y, sample_weight, layout = self._validate_fit_data(
            X, y, groups, sample_weight, y_numeric=True
        )
        Y = layout.sort(np.asarray(y, dtype=np.float64).ravel())[None, :]
        sw = layout.sort(sample_weight) if sample_weight is not None else None
        return self._fit(X=layout.sort(X), Y=np.ascontiguousarray(Y), sample_weight=sw,
                         layout=layout)

    def predict(self, X, groups=None):
        """Prediction of each sample's node model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        return self._raw_decision(X, groups)[:, 0]
