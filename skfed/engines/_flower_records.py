"""What the Flower engine's modules share: message types and record helpers.

Imported by :mod:`skfed.engines.flower` and by its per-method modules
(``_flower_multitask``, ``_flower_exact``, ``_flower_support``); it imports
none of them, so the engine's imports go one way: ``flower`` -> method
modules -> this module.
"""

import numpy as np
from sklearn.base import is_classifier

from . import require_extra

require_extra("flower")

from flwr.app import Array, ArrayRecord, ConfigRecord, RecordDict  # noqa: E402

# Message types (``<category>.<action>``, routed by the ClientApp).
HELLO = "query.skfed_hello"
LANDMARKS = "query.skfed_landmarks"
MOCHA = "train.skfed_mocha"
EXACT = "train.skfed_exact"
SUPPORT = "query.skfed_support"


def _array(value):
    return Array(np.ascontiguousarray(value))


def _arrays_of(record_dict, name):
    record = record_dict.array_records.get(name) if name in record_dict else None
    if record is None:
        return {}
    return {key: array.numpy() for key, array in record.items()}


def _config_of(record_dict, name):
    if name not in record_dict:
        return {}
    return dict(record_dict.config_records[name])


def _hello_reply(node, estimator):
    config = {
        "label": node.label,
        "n_samples": int(node.X.shape[0]),
        "n_features_in": node.n_features_in,
        "dtype": str(node.X.dtype),
    }
    arrays = {}
    if node.feature_names is not None:
        config["feature_names"] = list(node.feature_names)
    if is_classifier(estimator):
        arrays["classes"] = _array(np.unique(node.y))
    return RecordDict({"config": ConfigRecord(config), "skfed": ArrayRecord(arrays)})
