"""The one place where skfed touches private scikit-learn helpers.

scikit-learn >= 1.6 is required.  Everything imported here is private
upstream and may move between releases; keeping it in one module means a
new scikit-learn release needs at most one file changed.
"""

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
    _check_sample_weight,
    _num_samples,
)

__all__ = [
    "_MetadataRequester",
    "HasMethods",
    "Interval",
    "Options",
    "StrOptions",
    "_check_feature_names",
    "_check_n_features",
    "_check_sample_weight",
    "_num_samples",
]
