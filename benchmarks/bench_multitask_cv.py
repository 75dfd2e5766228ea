"""FederatedMultiTaskClassifierCV against GridSearchCV of the same grid on HAR sitting.

The first 8 people of ``load_har(task="sitting")``, a per-person 70/30
split (seed 0); the searches (FederatedMultiTaskClassifierCV cold and warm, GridSearchCV) use 3 folds of WithinGroupKFold and the grid
[0.1, 1, 10, 100] with the defaults otherwise.  Prints C_, the held-out
accuracy of the refitted model, and the bytes (and rounds) of the search's
fits and of the final fit; and, for the final fit, the cold fit at C_ against
a warm path up to C_ on the full training data.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_multitask_cv.py
"""

import time
import warnings

import numpy as np
from sklearn.model_selection import GridSearchCV, train_test_split

from skfed import FederatedMultiTaskClassifier, FederatedMultiTaskClassifierCV
from skfed.datasets import load_har
from skfed.model_selection import WithinGroupKFold

warnings.simplefilter("ignore", FutureWarning)
X, y, groups = load_har(task="sitting", return_X_y=True)
keep = np.isin(groups, np.unique(groups)[:8])
X, y, groups = X[keep], y[keep], groups[keep]
Xtr, Xte, ytr, yte, gtr, gte = train_test_split(
    X, y, groups, test_size=0.3, stratify=groups, random_state=0)
Cs = [0.1, 1.0, 10.0, 100.0]
print(f"HAR sitting, 8 people: {len(ytr)} train / {len(yte)} test rows")

for warm in (False, True):
    t0 = time.perf_counter()
    cv = FederatedMultiTaskClassifierCV(Cs=Cs, warm_start=warm, random_state=0)
    cv.fit(Xtr, ytr, groups=gtr)
    t_cv = time.perf_counter() - t0
    print(f"CV warm_start={warm}: C_={cv.C_:g} mean cv "
          f"{cv.cv_results_['mean_test_score'].round(4)} test acc "
          f"{cv.score(Xte, yte, groups=gte):.4f} mode {cv.approximation_}")
    print(f"    search {cv.n_bytes_cv_ / 1e6:.2f} MB, {cv.n_iter_cv_path_.sum()} rounds; "
          f"final {cv.n_bytes_sent_ / 1e6:.2f} MB, {cv.n_iter_} rounds; total "
          f"{cv.n_bytes_total_ / 1e6:.2f} MB; {t_cv:.0f} s")
    print("    rounds per fold x C:", cv.n_iter_cv_path_.tolist())


def accuracy_and_bytes(estimator, X, y):
    return {"accuracy": estimator.score(X, y),
            "bytes": estimator.n_bytes_sent_, "rounds": estimator.n_iter_}


# The user guide's recipe: node ids in a column of X, so the scorer sees them.
# float32 as the data (the ids are small integers, exact in float32).
Xg_tr = np.column_stack([Xtr, gtr]).astype(Xtr.dtype)
Xg_te = np.column_stack([Xte, gte]).astype(Xte.dtype)
t0 = time.perf_counter()
search = GridSearchCV(
    FederatedMultiTaskClassifier(group_column=X.shape[1], random_state=0), {"C": Cs},
    cv=WithinGroupKFold(n_splits=3), scoring=accuracy_and_bytes, refit="accuracy",
).fit(Xg_tr, ytr, groups=gtr)
acc = search.best_estimator_.score(Xg_te, yte)
t_gs = time.perf_counter() - t0
r = search.cv_results_
gs_bytes = 3 * r["mean_test_bytes"].sum()
gs_rounds = 3 * r["mean_test_rounds"].sum()
best = search.best_estimator_
print(f"GridSearchCV (cold): C={search.best_params_['C']:g} mean cv "
      f"{r['mean_test_accuracy'].round(4)} test acc {acc:.4f}")
print(f"    search {gs_bytes / 1e6:.2f} MB, {gs_rounds:.0f} rounds; final "
      f"{best.n_bytes_sent_ / 1e6:.2f} MB, {best.n_iter_} rounds; total "
      f"{(gs_bytes + best.n_bytes_sent_) / 1e6:.2f} MB; {t_gs:.0f} s")

# Final fit: cold at C_ (what the CV class does) against the warm path to C_.
model = FederatedMultiTaskClassifier(warm_start=True, random_state=0)
path_bytes = path_rounds = 0
for C in [c for c in Cs if c <= cv.C_]:
    model.set_params(C=C).fit(Xtr, ytr, groups=gtr)
    path_bytes += model.n_bytes_sent_
    path_rounds += model.n_iter_
print(f"final fit at C_={cv.C_:g}: cold {cv.n_bytes_sent_ / 1e6:.2f} MB / {cv.n_iter_} rounds; "
      f"warm path up to C_ {path_bytes / 1e6:.2f} MB / {path_rounds} rounds")
