"""The online learners' pickled state without its repeated arrays (online33).

A fitted online learner keeps every node's dictionary three times:
``dictionaries_`` (the public copy, one array a node), ``_points`` (the
working buffer its steps write) and ``_pub_points`` (what its neighbours
hold since its last publication, equal to ``_points`` after a fit that
ended on a publication); its weights twice or three times (``dual_coef_``,
``_weights`` / ``_avg_weights``, ``_pub_weights``).  And
``model_order_curve_`` (every node's dictionary size after every round,
``(n_rounds, n_nodes)`` integers) changes in a few entries: on Landmine
(29 nodes, 20,704 rounds) 3,422 of 600,416.  :func:`pack` replaces, in the
state ``__getstate__`` returns, each array that equals a slice of another
one by a reference to it, and the order curve by its first row and its
changes; :func:`unpack` rebuilds them exactly (same values, dtypes and
shapes; fresh copies, as before, so a later step writes none of them
twice).  Only bitwise equality is replaced (same dtype, shape and bits;
a published row is the working row's leading points plus its own tail,
the points beyond a node's size, which differ): anything else is kept.
"""

import numpy as np

# (attribute, the buffers whose rows it may repeat)
_ROW_SOURCES = (("_pub_points", ("_points",)),
                ("_pub_weights", ("_weights", "_avg_weights")))
# (per-node list attribute, the buffers whose node slices it may repeat)
_LIST_SOURCES = (("dictionaries_", ("_points",)),
                 ("dual_coef_", ("_avg_weights", "_weights")))


class _Rows:
    """``_pub_points`` as the rows it shares with other buffers: row ``i``
    is ``sources[which[i]][i, :n[i]]`` followed by ``tails[i]`` (the whole
    row where ``which[i] < 0``)."""

    def __init__(self, which, sources, n, tails, shape, dtype):
        self.which, self.sources, self.n, self.tails = which, sources, n, tails
        self.shape, self.dtype = shape, dtype


class _Slices:
    """A per-node list whose entry ``i`` is ``sources[which[i]][i, :n[i]]``,
    or ``rest[i]`` where ``which[i] < 0``."""

    def __init__(self, which, sources, n, rest):
        self.which, self.sources, self.n, self.rest = which, sources, n, rest


class _Changes:
    """An integer curve as its first row and its changes (row, column,
    value) after it."""

    def __init__(self, first, rows, cols, values, n_rows, dtype):
        self.first, self.rows, self.cols, self.values = first, rows, cols, values
        self.n_rows, self.dtype = n_rows, dtype


def _bits(a):
    """``a``'s elements as unsigned integers of its item size (bitwise
    equality: ``-0.0`` and ``0.0`` differ, a NaN equals its own bits)."""
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.kind in "fiu" else a


def _same(a, b):
    return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)
            and a.dtype == b.dtype and a.shape == b.shape
            and np.array_equal(_bits(np.ascontiguousarray(a)), _bits(np.ascontiguousarray(b))))


def _common_prefix(a, b):
    """How many leading entries (along the first axis) ``a`` and ``b`` share
    bit for bit."""
    if a.dtype != b.dtype or a.shape != b.shape or a.dtype.kind not in "fiu" or len(a) == 0:
        return 0   # (an empty row: nothing to share, and no shape to reshape to)
    equal = (_bits(np.ascontiguousarray(a)) == _bits(np.ascontiguousarray(b)))
    equal = equal.reshape(len(a), -1).all(axis=1)
    return len(a) if equal.all() else int(np.argmin(equal))


def _pack_rows(state, name, sources):
    array = state.get(name)
    buffers = [state.get(s) for s in sources]
    if not isinstance(array, np.ndarray) or array.ndim < 2:
        return
    which = np.full(len(array), -1, dtype=np.intp)
    n = np.zeros(len(array), dtype=np.intp)
    for i in range(len(array)):
        for s, buffer in enumerate(buffers):
            if isinstance(buffer, np.ndarray) and len(buffer) == len(array):
                common = _common_prefix(array[i], buffer[i])
                if common > n[i]:
                    which[i], n[i] = s, common
    if (n > 0).any():
        tails = [array[i, n[i]:].copy() for i in range(len(array))]
        state[name] = _Rows(which, sources, n, tails, array.shape, array.dtype)


def _pack_slices(state, name, sources):
    entries = state.get(name)
    buffers = [state.get(s) for s in sources]
    if not isinstance(entries, list):
        return
    which = np.full(len(entries), -1, dtype=np.intp)
    n = np.zeros(len(entries), dtype=np.intp)
    rest = list(entries)
    for i, entry in enumerate(entries):
        if not isinstance(entry, np.ndarray) or entry.ndim < 1:
            continue
        for s, buffer in enumerate(buffers):
            if (isinstance(buffer, np.ndarray) and i < len(buffer)
                    and len(entry) <= buffer.shape[1]
                    and _same(entry, buffer[i, :len(entry)])):
                which[i], n[i], rest[i] = s, len(entry), None
                break
    if (which >= 0).any():
        state[name] = _Slices(which, sources, n, rest)


def _pack_curve(curve):
    if (not isinstance(curve, np.ndarray) or curve.ndim != 2 or len(curve) == 0
            or curve.dtype.kind not in "iu"):
        return curve
    rows, cols = np.nonzero(np.diff(curve, axis=0))
    return _Changes(curve[0].copy(), rows + 1, cols, curve[rows + 1, cols],
                    len(curve), curve.dtype)


def pack(state):
    """``state`` (a ``__getstate__`` dict) with its repeated arrays replaced
    (in place; returned).  Slices are found before the rows they point into
    are replaced, so every reference is to a buffer that is kept."""
    for name, sources in _LIST_SOURCES:
        _pack_slices(state, name, sources)
    for name, sources in _ROW_SOURCES:
        _pack_rows(state, name, sources)
    curve = state.get("_order_curve")
    shared = state.get("model_order_curve_") is curve
    state["_order_curve"] = _pack_curve(curve)
    if shared:
        state["model_order_curve_"] = state["_order_curve"]
    return state


def unpack(state):
    """The state :func:`pack` replaced, rebuilt (in place; returned)."""
    for name, _ in _ROW_SOURCES:
        packed = state.get(name)
        if isinstance(packed, _Rows):
            out = np.empty(packed.shape, dtype=packed.dtype)
            for i, (s, n) in enumerate(zip(packed.which.tolist(), packed.n.tolist())):
                if n:
                    out[i, :n] = state[packed.sources[s]][i, :n]
                out[i, n:] = packed.tails[i]
            state[name] = out
    for name, _ in _LIST_SOURCES:
        packed = state.get(name)
        if isinstance(packed, _Slices):
            state[name] = [
                packed.rest[i] if packed.which[i] < 0
                else state[packed.sources[packed.which[i]]][i, :packed.n[i]].copy()
                for i in range(len(packed.which))]
    packed = state.get("_order_curve")
    if isinstance(packed, _Changes):
        curve = np.empty((packed.n_rows, len(packed.first)), dtype=packed.dtype)
        for c in range(len(packed.first)):
            # a column: its first value, then each change until the next
            mine = packed.cols == c
            starts = np.concatenate([[0], packed.rows[mine], [packed.n_rows]])
            values = np.concatenate([packed.first[c:c + 1], packed.values[mine]])
            curve[:, c] = np.repeat(values, np.diff(starts))
        if state.get("model_order_curve_") is packed:
            state["model_order_curve_"] = curve
        state["_order_curve"] = curve
    return state


class _PackedStateMixin:
    """Rebuilds on unpickling (and ``copy.deepcopy``) what the online
    learners' ``__getstate__`` packed."""

    def __setstate__(self, state):
        super().__setstate__(unpack(state))
