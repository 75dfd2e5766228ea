"""``skfed compare --methods dada-oracle`` on a dataset without an oracle
graph is refused (review28).

The method's factory passed the dataset's graph to Dada's ``graph=``; on
Landmine (and every real dataset) that graph is None, which Dada reads as
"learn the graph", so ``skfed compare --dataset landmine --methods
dada-oracle`` printed a "dada-oracle" row that was dada-learned's to the
byte (0.9408, 3,686,036 bytes, seed 0): a label, not the method.
"""

import numpy as np
import pytest

from skfed.__main__ import main
from skfed.compare import MethodContext
from skfed.compare._methods import _dada


def _ctx(dataset, graph):
    return MethodContext(task="binary", dataset=dataset, n_nodes=4, n_features=2, n_train=40,
                         random_state=0, quick=True, n_jobs=None, graph=graph, verbose=0)


def test_dada_oracle_without_a_graph_is_refused_by_name(capsys):
    with pytest.raises(ValueError, match="dada-oracle needs the dataset's own similarity graph"):
        _dada("oracle")(_ctx("landmine", None))
    assert main(["compare", "--dataset", "landmine", "--methods", "dada-oracle", "--quick"]) == 2
    assert "dada-oracle needs" in capsys.readouterr().err


def test_dada_oracle_with_a_graph_uses_it():
    graph = np.ones((4, 4)) - np.eye(4)
    est = _dada("oracle")(_ctx("moons", graph))
    assert est.graph is graph
    assert _dada("learned")(_ctx("landmine", None)).graph is None
