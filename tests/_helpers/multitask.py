"""MOCHA parameters that the machinery tests pin."""


def exact_kernel(params):
    """``params`` with the exact kernel mode unless they ask for an approximation.

    ``approximation="auto"`` takes random features when there are several
    nodes (the exact mode relays every dual change to every node each
    round), so the tests of the exact kernel mode pin
    ``approximation=None``; a test that names ``approximation`` or
    ``n_components`` keeps what it names.

    Parameters
    ----------
    params : dict
        Estimator parameters a test passes.

    Returns
    -------
    dict
        ``params``, with ``approximation=None`` first when neither
        ``approximation`` nor ``n_components`` is in it.
    """
    if "approximation" in params or "n_components" in params:
        return params
    return {"approximation": None, **params}
