"""A parameter search over a mixed kernel grid, and the Flower path's kernel check.

defects14: ``{"kernel": ["linear", "rbf"], "gamma": [...]}`` makes the
linear candidates fail (``check_kernel_settings`` refuses a ``gamma`` the
linear kernel ignores).  The refusal is kept ("no setting silently
ignored"); these tests pin that the search's failure carries the message,
that the list-of-dicts grid the message (and the user guide) proposes runs
every candidate, and that the Flower engine, whose loops resolve the kernel
themselves, refuses the same settings as the simulated fit (it accepted
``kernel="linear", gamma=0.5`` and ignored the gamma before).
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import GridSearchCV

from skfed import FederatedMultiTaskClassifier
from skfed.online import DecentralizedKernelSGDClassifier
from skfed.model_selection import WithinGroupKFold


def _data():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(3), 30)
    X = rng.randn(90, 2)
    y = (X[:, 0] + 0.3 * rng.randn(90) > 0).astype(int)
    Xg = np.column_stack([X, groups])
    return Xg, y, groups


def _search(grid, **kw):
    Xg, y, groups = _data()
    est = FederatedMultiTaskClassifier(group_column=2, random_state=0)
    return GridSearchCV(est, grid, cv=WithinGroupKFold(n_splits=2), **kw).fit(
        Xg, y, groups=groups)


def test_mixed_grid_raises_our_message_with_error_score_raise():
    with pytest.raises(ValueError, match=(
            r"gamma=0\.1 is not read by kernel='linear'.*give each kernel its own grid")):
        _search({"kernel": ["linear", "rbf"], "gamma": [0.1, 1.0]}, error_score="raise")


def test_mixed_grid_warns_with_our_message_and_scores_the_linear_candidates_nan():
    with pytest.warns(FitFailedWarning, match="is not read by kernel='linear'"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            search = _search({"kernel": ["linear", "rbf"], "gamma": [0.1, 1.0]})
    scores = search.cv_results_["mean_test_score"]
    kernels = np.asarray(search.cv_results_["param_kernel"], dtype=object)
    # 4 candidates: the 2 linear ones failed, the 2 rbf ones scored
    assert np.isnan(scores[kernels == "linear"]).all()
    assert np.isfinite(scores[kernels == "rbf"]).all()
    assert search.best_params_["kernel"] == "rbf"


def test_list_of_dicts_grid_runs_every_candidate():
    search = _search([{"kernel": ["linear"]}, {"kernel": ["rbf"], "gamma": [0.1, 1.0]}],
                     error_score="raise")
    assert len(search.cv_results_["params"]) == 3
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


def test_online_learner_refuses_gamma_for_linear_in_a_search():
    Xg, y, groups = _data()
    est = DecentralizedKernelSGDClassifier(group_column=2, random_state=0)
    with pytest.raises(ValueError, match=r"gamma=0\.5 is not read by kernel='linear'"):
        GridSearchCV(est, {"kernel": ["linear"], "gamma": [0.5]},
                     cv=WithinGroupKFold(n_splits=2), error_score="raise").fit(
            Xg, y, groups=groups)


@pytest.mark.parametrize("params, message", [
    ({"kernel": "linear", "gamma": 0.5}, r"^gamma=0\.5 is not read by kernel='linear'"),
    ({"kernel": "rbf", "degree": 2}, r"^degree=2 is not read by kernel='rbf'"),
    ({"kernel": "rbf", "coef0": 2.0}, r"^coef0=2\.0 is not read by kernel='rbf'"),
])
def test_flower_engine_refuses_what_the_simulated_fit_refuses(params, message):
    pytest.importorskip("flwr")
    from skfed.engines import flower

    est = FederatedMultiTaskClassifier(**params)
    Xg, y, groups = _data()
    with pytest.raises(ValueError, match=message):
        est.fit(Xg[:, :2], y, groups=groups)
    with pytest.raises(ValueError, match=message):
        flower.make_client_app(est)
    with pytest.raises(ValueError, match=message):
        flower.make_server_app(est)
    # a setting the kernel reads passes the engine's checks
    flower.make_client_app(FederatedMultiTaskClassifier(kernel="rbf", gamma=0.5))
