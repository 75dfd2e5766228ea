"""Node ids compared across calls: kinds, equality and lookup in ``nodes_``.

Kept apart from :mod:`skfed._base` (which re-exports these helpers) to keep
modules under the size limit.
"""

import numbers
import warnings

import numpy as np


def plain_label(value):
    """A node id (or any value) as Python prints it: a NumPy scalar as its
    Python value (``4``, not ``np.int64(4)``), anything else as it is.

    >>> plain_label(np.int64(4)), plain_label("a"), plain_label(np.str_("b"))
    (4, 'a', 'b')
    """
    return value.item() if isinstance(value, np.generic) else value


def listed_labels(nodes, idx, shown=6):
    """``"'a', 'b' and 3 more"``: the plain labels of ``nodes[idx]``, at most
    ``shown`` of them (messages that name several nodes).

    >>> listed_labels(np.array([5, 6, 7]), np.array([0, 2]), shown=1)
    '5 and 1 more'
    """
    idx = np.asarray(idx)
    text = ", ".join(repr(plain_label(nodes[i])) for i in idx[:shown].tolist())
    return text + (f" and {idx.size - shown} more" if idx.size > shown else "")


def _check_label_kinds(nodes, labels):
    """Refuse new node ids of another kind than ``nodes_`` (e.g. str vs int,
    or bytes vs str: numpy finds no bytes id equal to a str one, and the
    join would append it converted, a second copy of a fitted node's id)."""
    families = ({"i", "u"}, {"f"}, {"U"}, {"S"}, {"O"})

    def family(kind):
        # (a kind of no family, e.g. bool against strings, is a family of its own)
        return next((k for k, fam in enumerate(families) if kind in fam), kind)

    old, new = nodes.dtype.kind, labels.dtype.kind
    if "O" in (old, new) or old == new:
        return
    if {old, new} <= {"i", "u", "f", "b"}:  # numbers, as _label_kinds (True == 1)
        return
    if family(old) != family(new):
        raise TypeError(
            f"The new node ids have dtype {labels.dtype} but nodes_ has dtype "
            f"{nodes.dtype}; use node ids of one type."
        )


def _label_kinds(labels):
    """The kinds of node ids in ``labels``: "number", "string", or a type name.

    Numbers of any dtype (int, float, object-held ints) are one kind, since
    they compare equal across dtypes; strings (``str``) are another, and
    ``bytes`` a third (``b"a" != "a"``: a bytes id never finds a str one).
    Object arrays are inspected label by label (on the distinct labels, so
    the cost is small).
    """
    kind = labels.dtype.kind
    if kind in "iufb":
        return {"number"}
    if kind in "US":
        return {"string" if kind == "U" else "bytes"}
    kinds = set()
    for label in set(labels.tolist()):
        if isinstance(label, (numbers.Number, np.number)):
            kinds.add("number")
        elif isinstance(label, (str, bytes)):
            kinds.add("string" if isinstance(label, str) else "bytes")
        else:
            kinds.add(type(label).__name__)
    return kinds


def _kinds_text(kinds):
    return " and ".join(sorted(kinds)) if kinds else "none"


def _same_labels(a, b):
    """Whether two per-sample node-id arrays agree element by element."""
    if len(a) != len(b):
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            equal = np.asarray(a == b)
    except (TypeError, ValueError):
        return False
    if equal.shape != a.shape:  # numpy compared the arrays as wholes
        return all(x == y for x, y in zip(a.tolist(), b.tolist()))
    return bool(equal.all())


def _lookup_labels(nodes, labels):
    """Index into the sorted ``nodes`` of every label, -1 when absent.

    A binary search for labels of the nodes' kind (numbers, strings); a dict
    for any other labels (Python objects), which compares them the same way
    (``==`` and hashing).
    """
    kinds = {nodes.dtype.kind, labels.dtype.kind}
    # (integers against floats or signed against unsigned integers:
    # searchsorted compares them as float64, which merges ids above 2**53;
    # the dict compares them exactly)
    if kinds <= set("iuf") and len(kinds) == 1 or kinds <= set("US"):
        if len(nodes) == 0:
            return np.full(len(labels), -1, dtype=np.intp)
        # nodes_ is sorted after fit; nodes that joined later are appended.
        sorter = None if np.all(nodes[1:] >= nodes[:-1]) else np.argsort(nodes, kind="stable")
        position = np.searchsorted(nodes, labels, sorter=sorter)
        position = np.minimum(position, len(nodes) - 1)
        if sorter is not None:
            position = sorter[position]
        found = nodes[position] == labels
        return np.where(found, position, -1).astype(np.intp)
    lookup = {label: index for index, label in enumerate(nodes.tolist())}
    return np.array([lookup.get(label, -1) for label in labels.tolist()], dtype=np.intp)
