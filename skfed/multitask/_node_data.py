"""The rows the simulation keeps on the fitted nodes' behalf, and dropping them.

In a real federation each node keeps its own rows after the fit, and a
later join (:meth:`add_nodes`) asks the fitted nodes to rehearse a
newcomer on them (:mod:`skfed.multitask._rehearsal`).  In the simulation
the estimator plays every node, so the fitted estimator holds those rows,
and a copy or a pickle of it carries them.  :attr:`node_data_` shows what
it holds; :meth:`drop_node_data` removes it (before shipping the model),
after which a join that would ask the fitted nodes refuses by name.  The
models (``coef_``, ``intercept_``, ``predict``) never read these rows.
"""
import numpy as np

from .._node_ids import plain_label

__all__ = ["refuse_dropped_join"]


class _NodeDataMixin:
    """``node_data_`` and ``drop_node_data`` of the kernelized-MOCHA estimators."""

    @property
    def node_data_(self):
        """The fitted nodes' rows the estimator keeps on their behalf (dict).

        ``{node label: (Z, Y, sample_weight)}``: for each fitted node whose
        rows a later :meth:`add_nodes` rehearses newcomers on (linear or
        approximate modes with ``omega_mode_ == "shared"``), its design rows
        ``Z`` (the model's features, with the intercept column), its coded
        targets ``Y`` (one row per binary problem) and its weights.  Empty
        after :meth:`drop_node_data`, for a private fit and for an unfitted
        estimator.  (The simulation also keeps every sample's coded target
        and dual variable for ``warm_start=True``, and in the primal modes,
        whose models are ``coef_`` and ``intercept_``, the support indices
        and dual coefficients an exact-kernel fit would publish as
        ``support_`` and ``dual_coef_``: the sign of ``y_i alpha_i`` is a
        sample's label, so those two stay empty there and
        :meth:`drop_node_data` removes the kept copies too.)
        """
        out = {}
        rehearsal = getattr(self, "_join_rehearsal", None)
        if rehearsal is not None:
            nodes = np.asarray(self.nodes_)
            for t, part in rehearsal.data.items():
                out[plain_label(nodes[t])] = part
        return out

    def drop_node_data(self):
        """Remove the fitted nodes' rows the simulation keeps (see :attr:`node_data_`).

        The fitted models and predictions are unchanged.  Afterwards
        ``node_data_`` is empty, ``warm_start=True`` starts the next fit
        from zero (no earlier duals), and :meth:`add_nodes` raises a
        ``ValueError`` naming this method when its join would rehearse
        newcomers on the fitted nodes' rows (``omega_mode_ == "shared"``);
        a fit restores them.

        Returns
        -------
        self : object
            Without its nodes' rows.

        Examples
        --------
        >>> import pickle
        >>> import numpy as np
        >>> from skfed.multitask import FederatedMultiTaskClassifier
        >>> rng = np.random.RandomState(0)
        >>> X = rng.normal(size=(160, 2)); y = (X[:, 0] > 0).astype(int)
        >>> clf = FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=np.repeat(range(4), 40))
        >>> sorted(clf.node_data_), clf.support_vectors_.shape
        ([0, 1, 2, 3], (0, 2))
        >>> before = len(pickle.dumps(clf))
        >>> len(pickle.dumps(clf.drop_node_data())) < before, clf.node_data_
        (True, {})
        """
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self)
        self._node_data_dropped = (getattr(self, "_node_data_dropped", False)
                                   or getattr(self, "_join_rehearsal", None) is not None)
        self._join_rehearsal = None
        self._dual_state = None
        self._node_duals = None
        return self


def refuse_dropped_join(est):
    """Raise if a join would rehearse on rows :meth:`drop_node_data` removed."""
    if getattr(est, "_node_data_dropped", False) and est.omega_mode_ == "shared":
        raise ValueError(
            f"{type(est).__name__}.add_nodes rehearses newcomers on the fitted nodes' "
            "rows, which drop_node_data() removed from this estimator (in a real "
            "federation they stay on the nodes); fit again to add nodes."
        )
