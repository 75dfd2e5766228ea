"""Named topologies of the simulated network: their validation and their graphs.

:func:`check_topology` validates a topology name and its parameters for a
number of nodes (every estimator calls it through
:meth:`skfed.network.SimulatedNetwork.start`, so a misspelt or impossible
topology is refused by name whatever the estimator); :func:`make_topology`
draws the graph as a sparse adjacency matrix (``O(edges)`` memory, never a
dense ``n x n`` one); :func:`check_adjacency` validates a user's matrix.
Public through :mod:`skfed.network`.
"""

import numbers

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state

__all__ = ["TOPOLOGIES", "check_adjacency", "check_topology", "make_topology"]

TOPOLOGIES = ("complete", "ring", "star", "k_regular", "erdos_renyi", "random_geometric",
              "random_regular")


def _edges_to_csr(rows, cols, n_nodes):
    """Symmetric 0/1 CSR adjacency (bool) of the given directed edge lists."""
    rows, cols = (
        np.concatenate([rows, cols]).astype(np.int64),
        np.concatenate([cols, rows]).astype(np.int64),
    )
    keep = rows != cols
    adjacency = sparse.csr_matrix(
        (np.ones(int(keep.sum()), dtype=bool), (rows[keep], cols[keep])),
        shape=(n_nodes, n_nodes),
    )
    adjacency.sum_duplicates()
    adjacency.data[:] = True
    adjacency.sort_indices()
    return adjacency


def _ring_lattice(n_nodes, degree):
    """Every node linked to its ``degree`` nearest nodes on a ring.

    ``degree // 2`` neighbours on each side, plus the opposite node when
    ``degree`` is odd (``n_nodes`` even: :func:`check_topology` checks it).
    """
    idx = np.arange(n_nodes)
    shifts = list(range(1, degree // 2 + 1))
    if degree % 2 == 1:
        shifts.append(n_nodes // 2)
    rows = [idx] * len(shifts)
    cols = [(idx + shift) % n_nodes for shift in shifts]
    return _edges_to_csr(np.concatenate(rows), np.concatenate(cols), n_nodes)


def _is_connected(adjacency):
    n_components, _ = sparse.csgraph.connected_components(
        sparse.csr_matrix(adjacency), directed=False
    )
    return n_components == 1


def _random_connected(n_nodes, draw, name, rng, max_tries=1000):
    for _ in range(max_tries):
        adjacency = draw(rng)
        if n_nodes == 1 or _is_connected(adjacency):
            return adjacency
    raise ValueError(
        f"Could not draw a connected {name} graph on {n_nodes} nodes in "
        f"{max_tries} tries; increase its density (topology_params)."
    )


# Uniform draws of the Erdos-Renyi graph are made this many at a time.
_DRAW_BLOCK = 1 << 22


def _erdos_renyi_edges(n_nodes, p, rng):
    """Upper-triangle edges of one Erdos-Renyi draw, a block of rows at a time.

    Draws the same stream as ``rng.uniform(size=(n_nodes, n_nodes)) < p``
    (so seeded graphs do not depend on the block size) with memory
    ``O(_DRAW_BLOCK + edges)``; time is ``O(n_nodes^2)``.
    """
    rows, cols = [], []
    step = max(1, _DRAW_BLOCK // max(n_nodes, 1))
    for start in range(0, n_nodes, step):
        block = rng.uniform(size=(min(step, n_nodes - start), n_nodes)) < p
        r, c = np.nonzero(block)
        r = r + start
        upper = c > r
        rows.append(r[upper])
        cols.append(c[upper])
    return np.concatenate(rows), np.concatenate(cols)


def _geometric_edges(points, radius):
    """Pairs of ``points`` closer than ``radius`` (strictly), via a k-d tree."""
    from scipy.spatial import cKDTree

    pairs = cKDTree(points).query_pairs(radius, output_type="ndarray")
    if len(pairs) == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    i, j = pairs[:, 0], pairs[:, 1]
    dist = np.sqrt(((points[i] - points[j]) ** 2).sum(-1))
    keep = dist < radius
    return i[keep], j[keep]


# Parameters of every named topology.
_TOPOLOGY_PARAMS = {
    "complete": (),
    "ring": (),
    "star": (),
    "k_regular": ("degree",),
    "erdos_renyi": ("p",),
    "random_geometric": ("radius",),
    "random_regular": ("degree",),
}


def random_regular_degree(n_nodes):
    """Default degree of ``"random_regular"``: the even number nearest above
    ``ln(n_nodes)`` (at least 2, at most the largest even number below
    ``n_nodes``; 4 at 30 nodes, 6 at 100 to 400, 8 at 1,000)."""
    n = max(int(n_nodes), 1)
    degree = 2 * int(np.ceil(np.log(max(n, 2)) / 2.0))
    largest = n - 1 if (n - 1) % 2 == 0 else n - 2
    return int(max(2, min(degree, max(largest, 2))))


def _random_cycles(n_nodes, degree, rng):
    """Union of ``degree / 2`` cycles through all nodes, each in a random
    order: every node has degree at most ``degree`` (less where two cycles
    repeat an edge), the graph is connected (each cycle visits every node)
    and, for ``degree >= 4``, an expander with high probability.  Linear
    time and memory in the edges."""
    if n_nodes < 2:
        return _edges_to_csr(np.zeros(0, np.intp), np.zeros(0, np.intp), n_nodes)
    rows, cols = [], []
    for _ in range(degree // 2):
        order = rng.permutation(n_nodes)
        rows.append(order)
        cols.append(np.roll(order, -1))
    return _edges_to_csr(np.concatenate(rows), np.concatenate(cols), n_nodes)


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_topology(name, params, n_nodes):
    """Validate a named topology for ``n_nodes`` nodes, without building it.

    Checks the name, that every key of ``params`` applies to it, the range
    of every parameter and that the topology exists on ``n_nodes`` nodes.
    Cheap (no graph is drawn), so the server-coordinated methods, which
    never route over the topology, check it at ``start`` just as the
    peer-to-peer ones do.

    Parameters
    ----------
    name : str
    params : dict or None
        ``topology_params``.
    n_nodes : int

    Returns
    -------
    dict
        The parameters with their defaults filled in.

    Raises
    ------
    ValueError
        Naming ``topology`` or the offending ``topology_params`` key.
    """
    if name not in _TOPOLOGY_PARAMS:
        raise ValueError(
            f"topology={name!r} is not one of {sorted(_TOPOLOGY_PARAMS)} (or an "
            "adjacency matrix, a networkx graph or a callable)."
        )
    if params is not None and not isinstance(params, dict):
        raise TypeError(f"topology_params must be a dict or None, got {type(params).__name__}.")
    params = dict(params or {})
    allowed = _TOPOLOGY_PARAMS[name]
    unknown = set(params) - set(allowed)
    if unknown:
        raise ValueError(
            f"topology_params {sorted(map(str, unknown))} do not apply to topology={name!r} "
            f"(allowed: {sorted(allowed) or 'none'})."
        )
    n = max(int(n_nodes), 1)
    if name == "k_regular":
        degree = params.setdefault("degree", 4)
        if not (isinstance(degree, numbers.Integral) and not isinstance(degree, bool)
                and 1 <= degree < n):
            raise ValueError(
                f"topology_params['degree'] must be an integer in [1, {n - 1}] (a "
                f"k_regular graph on {n_nodes} nodes), got {degree!r}."
            )
        if degree % 2 == 1 and n_nodes % 2 == 1:
            raise ValueError(
                f"A k_regular graph with odd degree={degree} needs an even number of "
                f"nodes, got {n_nodes}; set topology_params['degree'] to an even value."
            )
    elif name == "random_regular":
        degree = params.setdefault("degree", random_regular_degree(n))
        if not (isinstance(degree, numbers.Integral) and not isinstance(degree, bool)
                and degree >= 2 and degree % 2 == 0 and (degree < n or n <= 3)):
            raise ValueError(
                f"topology_params['degree'] must be an even integer in [2, {max(n - 1, 2)}] "
                f"(a random_regular graph on {n_nodes} nodes: the union of degree / 2 "
                f"random cycles), got {degree!r}."
            )
    elif name == "erdos_renyi":
        p = params.setdefault("p", min(1.0, 2.0 * np.log(max(n, 2)) / n))
        if not (_is_real(p) and 0 < p <= 1):
            raise ValueError(f"topology_params['p'] must be in (0, 1], got {p!r}.")
    elif name == "random_geometric":
        radius = params.setdefault("radius", np.sqrt(2.0 * np.log(max(n, 2)) / (np.pi * n)))
        if not (_is_real(radius) and 0 < radius < np.inf):
            raise ValueError(
                f"topology_params['radius'] must be a finite number > 0, got {radius!r}."
            )
    return params


def _topology_csr(name, n_nodes, params=None, random_state=None):
    """Sparse adjacency (bool CSR) of a named topology; see :func:`make_topology`.

    Memory and time are linear in the number of edges, except the
    Erdos-Renyi draw, whose time is ``O(n_nodes^2)`` (memory stays linear).
    """
    params = check_topology(name, params, n_nodes)
    rng = check_random_state(random_state)
    idx = np.arange(n_nodes)
    if name == "complete":
        # n (n - 1) edges: the complete graph is quadratic by definition.
        rows = np.repeat(idx, n_nodes)
        cols = np.tile(idx, n_nodes)
        keep = rows < cols
        adjacency = _edges_to_csr(rows[keep], cols[keep], n_nodes)
    elif name == "ring":
        if n_nodes > 2:
            adjacency = _ring_lattice(n_nodes, 2)
        else:
            adjacency = _edges_to_csr(idx[:1], idx[-1:], n_nodes)
    elif name == "star":
        adjacency = _edges_to_csr(np.zeros(n_nodes - 1, dtype=np.intp), idx[1:], n_nodes)
    elif name == "k_regular":
        adjacency = _ring_lattice(n_nodes, int(params["degree"]))
    elif name == "erdos_renyi":
        p = params["p"]

        def draw(rng):
            return _edges_to_csr(*_erdos_renyi_edges(n_nodes, p, rng), n_nodes)

        adjacency = _random_connected(n_nodes, draw, name, rng)
    elif name == "random_regular":
        adjacency = _random_cycles(n_nodes, int(params["degree"]), rng)
    else:  # random_geometric
        radius = params["radius"]

        def draw(rng):
            points = rng.uniform(size=(n_nodes, 2))
            return _edges_to_csr(*_geometric_edges(points, radius), n_nodes)

        adjacency = _random_connected(n_nodes, draw, name, rng)
    return adjacency


def make_topology(name, n_nodes, params=None, random_state=None):
    """Adjacency matrix (bool, symmetric, no self-loops) of a named topology.

    Parameters
    ----------
    name : {"complete", "ring", "star", "k_regular", "erdos_renyi", "random_geometric", \
            "random_regular"}
        ``"k_regular"`` is the ring lattice where every node links to its
        ``degree`` nearest nodes on the ring (``degree``, default 4);
        ``"random_regular"`` is the union of ``degree / 2`` cycles through
        the nodes in random orders (``degree`` even, default the even
        number nearest above ``ln(n_nodes)``): degree at most ``degree``,
        connected, a fast-mixing expander with high probability, built in
        linear time;
        ``"erdos_renyi"`` links each pair with probability ``p`` (default
        ``2 log(n) / n``) and ``"random_geometric"`` links nodes drawn
        uniformly in the unit square that are closer than ``radius``
        (default ``sqrt(2 log(n) / (pi n))``); the random ones are redrawn
        until connected.  The star's centre is node 0.
    n_nodes : int
    params : dict, default=None
    random_state : int, RandomState instance or None

    Returns
    -------
    ndarray of shape (n_nodes, n_nodes), dtype=bool
        Dense (``n_nodes^2`` bytes).  The simulated network builds the same
        graph as a sparse matrix, in memory linear in its edges
        (:attr:`NetworkSimulation.adjacency`).
    """
    return _topology_csr(name, n_nodes, params, random_state).toarray()


def check_adjacency(adjacency, n_nodes, *, name="topology", allow_weights=False):
    """Validate a user-given graph and return it as a symmetric CSR matrix.

    Accepts a square array, a SciPy sparse matrix or a networkx graph whose
    nodes are ``0 .. n_nodes - 1`` (or exactly the fitted node labels, in the
    order given by ``nodelist`` of :func:`networkx.to_scipy_sparse_array`).
    Raises a ``ValueError`` naming ``name`` when the graph does not match
    ``n_nodes`` nodes, is not symmetric, has negative or non-finite weights or
    self-loops.
    """
    if hasattr(adjacency, "nodes") and hasattr(adjacency, "edges"):
        try:
            import networkx as nx
        except ImportError as exc:  # pragma: no cover - a graph without networkx
            raise ImportError(
                f"{name} is a networkx graph but networkx is not installed; "
                "pip install networkx"
            ) from exc
        if adjacency.number_of_nodes() != n_nodes:
            raise ValueError(
                f"{name} has {adjacency.number_of_nodes()} nodes but the data "
                f"has {n_nodes} nodes."
            )
        nodelist = sorted(adjacency.nodes()) if set(adjacency.nodes()) == set(
            range(n_nodes)
        ) else list(adjacency.nodes())
        adjacency = nx.to_scipy_sparse_array(
            adjacency, nodelist=nodelist, weight="weight" if allow_weights else None
        )
    if sparse.issparse(adjacency):
        # A copy: the zeros dropped and the 0/1 weights below must not touch
        # the caller's arrays.
        matrix = sparse.csr_matrix(adjacency, dtype=np.float64, copy=True)
    else:
        matrix = np.asarray(adjacency)
        if matrix.dtype == object:
            raise TypeError(f"{name} must be a numeric array, got dtype object.")
        matrix = sparse.csr_matrix(matrix.astype(np.float64))
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {matrix.shape}.")
    if matrix.shape[0] != n_nodes:
        raise ValueError(
            f"{name} has shape {matrix.shape} but the data has {n_nodes} nodes."
        )
    data = matrix.data
    if not np.all(np.isfinite(data)):
        raise ValueError(f"{name} contains NaN or infinite weights.")
    if np.any(data < 0):
        raise ValueError(f"{name} contains negative weights.")
    if abs(matrix - matrix.T).max() > 1e-12 if matrix.nnz else False:
        raise ValueError(f"{name} must be symmetric (an undirected graph).")
    if np.any(matrix.diagonal() != 0):
        raise ValueError(f"{name} must not contain self-loops (non-zero diagonal).")
    matrix.eliminate_zeros()
    if not allow_weights:
        matrix.data[:] = 1.0
    matrix.sort_indices()
    return matrix


# ------------------------------------------------------------------ the network
