"""Loaders of the real per-node datasets shipped with skfed.

Every loader reads a compact copy stored inside the package
(``skfed/datasets/data/*.npz``, written by ``_make_shipped.py``) and never
touches the network.  Each returns a :class:`~sklearn.utils.Bunch` with
``data``, ``target``, ``groups`` (the node id of every sample),
``feature_names``, ``target_names`` (classification tasks) and ``DESCR``, or
``(X, y, groups)`` with ``return_X_y=True``.  Loaders with official
train/test splits return, for ``split=...``, the six arrays of
:func:`~skfed.datasets.train_test_split_per_node` (``X_train, X_test,
y_train, y_test, groups_train, groups_test``) with ``return_X_y=True``, or
the same names as Bunch fields.
"""

import numbers
import random
from importlib import resources
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch, check_random_state

__all__ = [
    "load_har",
    "load_school",
    "load_computer_buyers",
    "load_landmine",
    "shipped_datasets",
    "DATA_DIR",
]

DATA_DIR = Path(__file__).resolve().parent / "data"
DESCR_DIR = Path(__file__).resolve().parent / "descr"

_SHIPPED = {
    "har": "har.npz",
    "school": "school.npz",
    "computer_buyers": "computer_buyers.npz",
    "landmine": "landmine.npz",
}


def shipped_datasets():
    """Names of the datasets whose compact copy is present in this installation."""
    return [name for name, file in _SHIPPED.items() if (DATA_DIR / file).is_file()]


def _load_npz(name):
    """Arrays of the shipped copy of dataset ``name`` (a dict of ndarrays)."""
    if name not in _SHIPPED:
        raise ValueError(
            f"skfed does not ship a dataset called {name!r}; shipped datasets are "
            f"{sorted(_SHIPPED)}."
        )
    path = DATA_DIR / _SHIPPED[name]
    if not path.is_file():
        raise FileNotFoundError(
            f"The compact copy of the {name!r} dataset ({path.name}) is not part of "
            f"this skfed installation (looked in {DATA_DIR}). skfed never downloads "
            "data: reinstall skfed with its package data, or regenerate the copy "
            "from the original files with "
            "`python -m skfed.datasets._make_shipped --source <folder>`."
        )
    with np.load(path, allow_pickle=False) as npz:
        return {key: npz[key] for key in npz.files}


def _descr(name):
    try:
        return resources.files("skfed.datasets").joinpath("descr", f"{name}.rst").read_text(
            encoding="utf-8"
        )
    except (FileNotFoundError, ModuleNotFoundError):  # pragma: no cover
        path = DESCR_DIR / f"{name}.rst"
        return path.read_text(encoding="utf-8") if path.is_file() else ""


def _check_option(value, name, options):
    if value not in options:
        raise ValueError(f"{name} must be one of {list(options)}, got {value!r}.")


def _pandas(loader):
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - exercised without pandas
        raise ImportError(
            f"{loader}(as_frame=True) needs pandas; install it (pip install pandas) "
            "or use as_frame=False."
        ) from exc
    return pd


def _to_frame(pd, X, y, groups, feature_names, target_name, group_name, index=None):
    frame_X = pd.DataFrame(X, columns=list(feature_names), index=index)
    frame_y = pd.Series(y, name=target_name, index=frame_X.index)
    frame_g = pd.Series(groups, name=group_name, index=frame_X.index)
    return frame_X, frame_y, frame_g


def _finish(
    loader,
    *,
    X,
    y,
    groups,
    feature_names,
    target_name,
    group_name,
    name,
    return_X_y,
    as_frame,
    target_names=None,
    split=None,
    extra=None,
):
    """Assemble the Bunch / tuple of a loader, whole data or one split.

    ``split`` is ``None`` or ``(train_idx, test_idx)`` (row numbers into X).
    """
    feature_names = np.asarray(feature_names, dtype=object)
    pd = _pandas(loader) if as_frame else None

    def wrap(rows):
        Xp, yp, gp = X[rows], y[rows], groups[rows]
        if pd is not None:
            Xp, yp, gp = _to_frame(pd, Xp, yp, gp, feature_names, target_name, group_name)
        return Xp, yp, gp

    if split is None:
        X_out, y_out, g_out = wrap(slice(None))
        if return_X_y:
            return X_out, y_out, g_out
        bunch = Bunch(data=X_out, target=y_out, groups=g_out)
        if pd is not None:
            bunch.frame = pd.concat([X_out, y_out, g_out], axis=1)
    else:
        train_idx, test_idx = split
        X_tr, y_tr, g_tr = wrap(train_idx)
        X_te, y_te, g_te = wrap(test_idx)
        if return_X_y:
            return X_tr, X_te, y_tr, y_te, g_tr, g_te
        X_all, y_all, g_all = wrap(slice(None))
        bunch = Bunch(
            data=X_all,
            target=y_all,
            groups=g_all,
            data_train=X_tr,
            data_test=X_te,
            target_train=y_tr,
            target_test=y_te,
            groups_train=g_tr,
            groups_test=g_te,
            train_indices=np.asarray(train_idx),
            test_indices=np.asarray(test_idx),
        )
    bunch.feature_names = feature_names
    if target_names is not None:
        bunch.target_names = np.asarray(target_names, dtype=object)
    bunch.DESCR = _descr(name)
    if extra:
        bunch.update(extra)
    return bunch


# ----------------------------------------------------------------------- HAR
HAR_ACTIVITIES = (
    "WALKING",
    "WALKING_UPSTAIRS",
    "WALKING_DOWNSTAIRS",
    "SITTING",
    "STANDING",
    "LAYING",
)


def _unique_names(names):
    """Make the 42 repeated UCI HAR names unique.

    ``features.txt`` names the ``bandsEnergy()`` features of the X, Y and Z
    axes alike; the three occurrences (in file order) get ``-X``, ``-Y`` and
    ``-Z`` appended, the other names are unchanged.
    """
    counts = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    seen = {}
    out = []
    for name in names:
        if counts[name] == 1:
            out.append(name)
            continue
        k = seen.get(name, 0)
        seen[name] = k + 1
        out.append(f"{name}-{'XYZ'[k]}" if counts[name] == 3 else f"{name}-{k}")
    return out


def load_har(*, task="sitting", return_X_y=False, as_frame=False):
    """Load UCI Human Activity Recognition (the 21 training subjects).

    One node per person: 21 subjects, 7,352 windows of smartphone
    accelerometer and gyroscope signals summarized by 561 features in
    [-1, 1] (shipped as float32).

    =================  ==============================================
    Nodes              21 (UCI subject ids 1..30, those of the
                       official training split)
    Samples per node   281 - 409 (7,352 in total)
    Features           561, real, in [-1, 1]
    =================  ==============================================

    Parameters
    ----------
    task : {"sitting", "walking", "activity"}, default="sitting"
        ``"sitting"``: SITTING (+1) against the five other activities (-1),
        the task of MOCHA (Smith et al. 2017).  ``"walking"``: the three
        walking activities (WALKING, WALKING_UPSTAIRS, WALKING_DOWNSTAIRS,
        +1) against the three static ones (SITTING, STANDING, LAYING, -1),
        Dada's task (Zantedeschi et al. 2020).  ``"activity"``: the six
        activities as classes 0..5 (0 WALKING, 1 WALKING_UPSTAIRS,
        2 WALKING_DOWNSTAIRS, 3 SITTING, 4 STANDING, 5 LAYING).
    return_X_y : bool, default=False
        Return ``(data, target, groups)`` instead of a Bunch.
    as_frame : bool, default=False
        Return pandas objects (DataFrame, Series) instead of ndarrays; needs
        pandas.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (7352, 561) float32, ``target`` (7352,) int64, ``groups``
        (7352,) int64 subject ids, ``feature_names`` (the UCI names, the 42
        repeated ``bandsEnergy()`` names made unique with ``-X``/``-Y``/``-Z``),
        ``target_names``, ``activity`` (the 0..5 activity of every sample,
        whatever the task), ``DESCR``; with ``as_frame=True`` also ``frame``.
    (data, target, groups) : tuple if ``return_X_y`` is True

    Examples
    --------
    >>> from skfed.datasets import load_har
    >>> X, y, groups = load_har(return_X_y=True)
    >>> X.shape, len(set(groups.tolist()))
    ((7352, 561), 21)
    """
    _check_option(task, "task", ("sitting", "walking", "activity"))
    arrays = _load_npz("har")
    X = arrays["data"]
    activity = arrays["activity"].astype(np.int64)
    groups = arrays["subject"].astype(np.int64)
    if task == "sitting":
        y = np.where(activity == 3, 1, -1)
        target_names = ["rest", "SITTING"]
    elif task == "walking":
        y = np.where(activity <= 2, 1, -1)
        target_names = ["static", "walking"]
    else:
        y = activity.copy()
        target_names = list(HAR_ACTIVITIES)
    return _finish(
        "load_har",
        X=X,
        y=y,
        groups=groups,
        feature_names=_unique_names(arrays["feature_names"].tolist()),
        target_name="activity" if task == "activity" else task,
        group_name="subject",
        name="har",
        return_X_y=return_X_y,
        as_frame=as_frame,
        target_names=target_names,
        extra={"activity": activity},
    )


# -------------------------------------------------------------------- School
SCHOOL_FEATURE_NAMES = (
    "year_1985",
    "year_1986",
    "year_1987",
    "pct_free_school_meals",
    "pct_vr1_band",
    "gender_male",
    "gender_female",
    "vr_band_3",
    "vr_band_1",
    "vr_band_2",
    "ethnic_eswi",
    "ethnic_african",
    "ethnic_arab",
    "ethnic_bangladeshi",
    "ethnic_caribbean",
    "ethnic_greek",
    "ethnic_indian",
    "ethnic_pakistani",
    "ethnic_se_asian",
    "ethnic_turkish",
    "ethnic_other",
    "school_mixed",
    "school_boys",
    "school_girls",
    "school_maintained",
    "school_church_of_england",
    "school_roman_catholic",
    "bias",
)
# Dada's student-level features (0-based rows of school_b.mat's x): gender,
# VR band, ethnic group, and the bias row.
SCHOOL_DADA_ROWS = np.r_[5:21, 27]
SCHOOL_THRESHOLD = 20


def load_school(*, task="regression", split=None, return_X_y=False, as_frame=False):
    """Load the ILEA School exam scores: 139 schools, 15,362 students.

    One node per school.  The features are the 28 rows of ``school_b.mat``
    (Argyriou et al. 2008): 27 attributes (categorical ones one-hot) and a
    bias row of ones.

    =================  ==============================================
    Nodes              139 schools (ids 1..139)
    Samples per node   22 - 251 (15,362 in total)
    Features           28 (regression) or 17 (classification)
    =================  ==============================================

    Parameters
    ----------
    task : {"regression", "classification"}, default="regression"
        ``"regression"``: the exam score (1..70) from all 28 raw features,
        unscaled, in this order: ``year_1985``, ``year_1986``, ``year_1987``
        (one-hot exam year), ``pct_free_school_meals`` and ``pct_vr1_band``
        (school percentages, 0..100), ``gender_*`` (2), ``vr_band_*`` (3,
        student verbal-reasoning band), ``ethnic_*`` (11), ``school_*``
        gender (3) and denomination (3), and ``bias`` (all ones).

        ``"classification"``: Dada's protocol (Zantedeschi et al. 2020):
        min-max scale each of the 28 rows over all 15,362 samples, keep the
        16 student-level rows 5..20 (0-based: gender, VR band, ethnic group)
        and row 27 (the bias), so D = 17, and label +1 where the exam score is
        > 20, else -1.  The kept attribute rows are already 0/1, so the
        scaling leaves them unchanged; the bias row is constant and is kept
        at 1 (scikit-learn's ``MinMaxScaler``, used by Dada's code, would map
        a constant row to 0, which carries no information either way).
    split : int in 1..10 or None, default=None
        ``None``: all samples.  ``k``: the k-th of the 10 official train/test
        splits (``school_k_indexes.mat``, those of Argyriou et al. and of
        Dada); each has 11,472 training and 3,890 test students, every school
        in both parts.
    return_X_y : bool, default=False
        Without ``split``: return ``(data, target, groups)``.  With
        ``split``: return ``(X_train, X_test, y_train, y_test, groups_train,
        groups_test)``, the order of
        :func:`~skfed.datasets.train_test_split_per_node`.
    as_frame : bool, default=False
        Return pandas objects; needs pandas.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` float64, ``target`` (float64 scores, or int64 in {-1, +1}),
        ``groups`` int64 school ids, ``scores`` (the raw exam scores),
        ``feature_names``, ``target_names`` (classification), ``DESCR``; with
        ``split`` also ``data_train``, ``data_test``, ``target_train``,
        ``target_test``, ``groups_train``, ``groups_test`` and
        ``train_indices`` / ``test_indices`` (0-based rows of ``data``, in
        the order of the official files).
    tuple if ``return_X_y`` is True

    Examples
    --------
    >>> from skfed.datasets import load_school
    >>> X_tr, X_te, y_tr, y_te, g_tr, g_te = load_school(
    ...     task="classification", split=1, return_X_y=True)
    >>> X_tr.shape, len(set(g_tr.tolist()))
    ((11472, 17), 139)
    """
    _check_option(task, "task", ("regression", "classification"))
    if split is not None and (
        isinstance(split, bool) or not isinstance(split, (int, np.integer)) or not 1 <= split <= 10
    ):
        raise ValueError(f"split must be None or an integer in 1..10, got {split!r}.")
    arrays = _load_npz("school")
    raw = arrays["x"]
    scores = arrays["y"].astype(np.int64)
    groups = arrays["school"].astype(np.int64)
    if task == "regression":
        X = raw.astype(np.float64)
        y = scores.astype(np.float64)
        feature_names = list(SCHOOL_FEATURE_NAMES)
        target_names = None
    else:
        X = raw.astype(np.float64)
        lo, hi = X.min(axis=0), X.max(axis=0)
        span = hi - lo
        constant = span == 0
        X = np.where(constant, X, (X - lo) / np.where(constant, 1.0, span))
        X = np.ascontiguousarray(X[:, SCHOOL_DADA_ROWS])
        y = np.where(scores > SCHOOL_THRESHOLD, 1, -1)
        feature_names = [SCHOOL_FEATURE_NAMES[i] for i in SCHOOL_DADA_ROWS]
        target_names = ["score <= 20", "score > 20"]
    split_rows = None
    if split is not None:
        split_rows = (
            arrays[f"train_{split}"].astype(np.intp),
            arrays[f"test_{split}"].astype(np.intp),
        )
    return _finish(
        "load_school",
        X=X,
        y=y,
        groups=groups,
        feature_names=feature_names,
        target_name="score" if task == "regression" else "score_above_20",
        group_name="school",
        name="school",
        return_X_y=return_X_y,
        as_frame=as_frame,
        target_names=target_names,
        split=split_rows,
        extra={"scores": scores},
    )


# ----------------------------------------------------------- Computer buyers
COMPUTER_FEATURE_NAMES = (
    "intercept",
    "telephone_hot_line",
    "ram",
    "screen_size",
    "cpu_speed",
    "hard_disk",
    "cd_rom",
    "cache",
    "color",
    "availability",
    "warranty",
    "software",
    "guarantee",
    "price",
)
COMPUTER_THRESHOLD = 5


def computer_buyers_split(n_people=190, n_computers=20, *, n_train_range=(5, 10), random_state=None):
    """Dada's train/test protocol for the Computer buyers survey.

    One random permutation of the computers is shared by everybody; person k
    trains on the first ``m_k`` computers of that permutation, ``m_k`` drawn
    uniformly in ``n_train_range`` (inclusive), and is tested on the others.
    The draws are those of ``load_computer`` in Dada's code: the permutation
    from ``numpy.random.RandomState(seed).permutation``, the counts from
    Python's ``random.Random(seed).randint``, person after person.  So an
    integer ``random_state`` gives the authors' split for that seed (their
    code's default is 2018); a RandomState instance or None first draws the
    seed.

    Parameters
    ----------
    n_people, n_computers : int, default=190, 20
    n_train_range : (int, int), default=(5, 10)
        Inclusive range of the number of training computers per person.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    train_mask : ndarray of shape (n_people, n_computers), dtype=bool
        ``train_mask[k, c]`` is True when person k trains on computer c.
    permutation : ndarray of shape (n_computers,)
        The shared order of the computers.
    """
    low, high = n_train_range
    if not (1 <= low <= high < n_computers):
        raise ValueError(
            f"n_train_range must satisfy 1 <= low <= high < {n_computers} (every "
            f"person needs a training and a test computer), got {n_train_range!r}."
        )
    if isinstance(random_state, numbers.Integral):
        seed = int(random_state)
    else:
        seed = int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    permutation = np.random.RandomState(seed).permutation(n_computers)
    counts = random.Random(seed)
    n_train = [counts.randint(low, high) for _ in range(n_people)]
    train_mask = np.zeros((n_people, n_computers), dtype=bool)
    for k, m in enumerate(n_train):
        train_mask[k, permutation[:m]] = True
    return train_mask, permutation


def load_computer_buyers(
    *,
    task="regression",
    split=None,
    n_train_range=(5, 10),
    random_state=None,
    return_X_y=False,
    as_frame=False,
):
    """Load the Computer buyers conjoint survey: 190 people x 20 computers.

    One node per person; every person rated the same 20 computer profiles
    (Lenk et al. 1996), described by an intercept and 13 binary attributes
    coded -1/+1.

    =================  ==============================================
    Nodes              190 people (ids 1..190)
    Samples per node   20 (3,800 in total)
    Features           14: intercept (1) + 13 attributes in {-1, +1}
    =================  ==============================================

    Parameters
    ----------
    task : {"regression", "classification"}, default="regression"
        ``"regression"``: the likelihood-of-buying rating, 0..10.
        ``"classification"``: +1 where the rating is > 5, else -1 (Dada).
    split : {None, "dada"}, default=None
        ``"dada"``: Dada's protocol (:func:`computer_buyers_split`): one
        shared random permutation of the 20 computers, the first 5..10 of
        it (drawn per person) for training, the rest for testing.
    n_train_range : (int, int), default=(5, 10)
        Training computers per person with ``split="dada"``.
    random_state : int, RandomState instance or None, default=None
        Seed of the ``"dada"`` split.
    return_X_y : bool, default=False
        Without ``split``: ``(data, target, groups)``; with ``split``:
        ``(X_train, X_test, y_train, y_test, groups_train, groups_test)``.
    as_frame : bool, default=False
        Return pandas objects; needs pandas.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (3800, 14) float64 (person-major: rows ``20 k .. 20 k + 19``
        are person ``k + 1``'s ratings of computers 1..20), ``target``,
        ``groups`` int64 person ids, ``computer`` (0..19, the profile of
        every row), ``ratings``, ``feature_names`` (attribute names as in
        Argyriou et al. 2008), ``target_names`` (classification), ``DESCR``;
        with ``split`` also the train/test fields (see :func:`load_school`).
    tuple if ``return_X_y`` is True
    """
    _check_option(task, "task", ("regression", "classification"))
    _check_option(split, "split", (None, "dada"))
    arrays = _load_npz("computer_buyers")
    design = arrays["design"].astype(np.float64)
    ratings = arrays["ratings"].astype(np.int64)
    n_people, n_computers = ratings.shape
    X = np.tile(design, (n_people, 1))
    groups = np.repeat(np.arange(1, n_people + 1), n_computers)
    computer = np.tile(np.arange(n_computers), n_people)
    flat = ratings.ravel()
    if task == "regression":
        y = flat.astype(np.float64)
        target_names = None
    else:
        y = np.where(flat > COMPUTER_THRESHOLD, 1, -1)
        target_names = ["rating <= 5", "rating > 5"]
    split_rows = None
    if split == "dada":
        train_mask, _ = computer_buyers_split(
            n_people, n_computers, n_train_range=n_train_range, random_state=random_state
        )
        flat_mask = train_mask.ravel()
        split_rows = (np.flatnonzero(flat_mask), np.flatnonzero(~flat_mask))
    return _finish(
        "load_computer_buyers",
        X=X,
        y=y,
        groups=groups,
        feature_names=COMPUTER_FEATURE_NAMES,
        target_name="rating" if task == "regression" else "rating_above_5",
        group_name="person",
        name="computer_buyers",
        return_X_y=return_X_y,
        as_frame=as_frame,
        target_names=target_names,
        split=split_rows,
        extra={"computer": computer, "ratings": ratings},
    )


# ------------------------------------------------------------------ Landmine
LANDMINE_FEATURE_NAMES = (
    "moment_1",
    "moment_2",
    "moment_3",
    "moment_4",
    "correlation_1",
    "correlation_2",
    "correlation_3",
    "energy_ratio",
    "spatial_variance",
)


def load_landmine(*, signed=False, return_X_y=False, as_frame=False):
    """Load the Landmine detection data: 29 mine fields, 14,820 radar images.

    One node per mine field (Xue et al. 2007, one of MOCHA's datasets).
    Fields 1-15 are highly foliated, fields 16-29 bare earth or desert.

    =================  ==============================================
    Nodes              29 fields (ids 1..29)
    Samples per node   445 - 690 (14,820 in total)
    Features           9 raw, unscaled, float64
    Labels             1 = landmine (6.1 %), 0 = clutter
    =================  ==============================================

    Parameters
    ----------
    signed : bool, default=False
        Labels in {0, 1} (the original) when False, in {-1, +1} when True.
    return_X_y : bool, default=False
        Return ``(data, target, groups)`` instead of a Bunch.
    as_frame : bool, default=False
        Return pandas objects; needs pandas.

    Returns
    -------
    data : :class:`~sklearn.utils.Bunch`
        ``data`` (14820, 9) float64, ``target`` int64, ``groups`` int64
        field ids, ``feature_names``, ``target_names``, ``DESCR``.
    (data, target, groups) : tuple if ``return_X_y`` is True
    """
    arrays = _load_npz("landmine")
    label = arrays["label"].astype(np.int64)
    y = 2 * label - 1 if signed else label
    return _finish(
        "load_landmine",
        X=arrays["data"],
        y=y,
        groups=arrays["field"].astype(np.int64),
        feature_names=LANDMINE_FEATURE_NAMES,
        target_name="mine",
        group_name="field",
        name="landmine",
        return_X_y=return_X_y,
        as_frame=as_frame,
        target_names=["clutter", "mine"],
    )
