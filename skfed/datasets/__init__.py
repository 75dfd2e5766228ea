"""Real per-node datasets, the papers' synthetic generators and per-node splits.

Loaders (read the compact copies shipped inside the package, never the
internet):

- :func:`load_har` — UCI Human Activity Recognition, 21 people;
- :func:`load_school` — ILEA School exam scores, 139 schools, with the ten
  official train/test splits;
- :func:`load_computer_buyers` — conjoint survey, 190 people x 20 computers;
- :func:`load_landmine` — radar landmine detection, 29 mine fields.

Generators: :func:`make_rotated_moons` (Dada), :func:`make_federated_sparse_regression`
(Barik & Honorio), :func:`make_gaussian_mixture_network` (Koppel et al.),
:func:`make_related_tasks` (shared and clustered linear tasks: the pooling regimes).

Splitting: :func:`train_test_split_per_node`.
"""

from ._generators import (
    make_federated_sparse_regression,
    make_gaussian_mixture_network,
    make_related_tasks,
    make_rotated_moons,
)
from ._real import (
    computer_buyers_split,
    load_computer_buyers,
    load_har,
    load_landmine,
    load_school,
    shipped_datasets,
)
from ._split import per_node_split_indices, train_test_split_per_node

__all__ = [
    "load_har",
    "load_school",
    "load_computer_buyers",
    "load_landmine",
    "computer_buyers_split",
    "shipped_datasets",
    "make_rotated_moons",
    "make_federated_sparse_regression",
    "make_gaussian_mixture_network",
    "make_related_tasks",
    "train_test_split_per_node",
    "per_node_split_indices",
]
