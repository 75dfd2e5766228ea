"""The one place where skfed touches private scikit-learn helpers.

scikit-learn >= 1.6 is required.  Everything imported here is private
upstream and may move between releases; keeping it in one module means a
new scikit-learn release needs at most one file changed.
"""

import inspect

from sklearn.utils._metadata_requests import _MetadataRequester  # noqa: F401
from sklearn.utils._param_validation import (  # noqa: F401
    HasMethods,
    Interval,
    Options,
    StrOptions,
)
from sklearn.utils.validation import (  # noqa: F401
    _check_feature_names,
    _check_n_features,
    _num_samples,
)
from sklearn.utils.validation import (
    _check_sample_weight as _sklearn_check_sample_weight,
)

# scikit-learn >= 1.7 refuses all-zero sample weights unless told otherwise.
_HAS_ALL_ZERO_OPTION = "allow_all_zero_weights" in inspect.signature(
    _sklearn_check_sample_weight).parameters


def _check_sample_weight(sample_weight, X, *, allow_all_zero_weights=False, **kwargs):
    """scikit-learn's sample-weight check; ``allow_all_zero_weights=True`` lets
    all-zero weights through on every supported version (add_nodes then names
    the weightless new node itself; before 1.7 scikit-learn accepted them)."""
    if _HAS_ALL_ZERO_OPTION:
        kwargs["allow_all_zero_weights"] = allow_all_zero_weights
    return _sklearn_check_sample_weight(sample_weight, X, **kwargs)


def validate_params_from_attributes(est):
    """scikit-learn's ``_validate_params`` (every ``_parameter_constraints``
    entry, in sorted order, named on failure) with the values read from the
    attributes: ``get_params`` inspects ``__init__``'s signature at every
    call, most of a small join's checks.  Returns the checked values."""
    from sklearn.utils._param_validation import validate_parameter_constraints

    constraints = getattr(est, "_parameter_constraints", None) or {}
    params = {key: getattr(est, key) for key in sorted(constraints) if hasattr(est, key)}
    validate_parameter_constraints(constraints, params, caller_name=type(est).__name__)
    return params


__all__ = [
    "_MetadataRequester",
    "validate_params_from_attributes",
    "HasMethods",
    "Interval",
    "Options",
    "StrOptions",
    "_check_feature_names",
    "_check_n_features",
    "_check_sample_weight",
    "_num_samples",
]
