"""What an optional extra of skfed needs, read from the installed metadata.

Error messages about a missing optional dependency name the requirements of
the extra as ``pyproject.toml`` declares them, so the command they suggest
works however skfed was installed (a wheel, a source checkout) and never
drifts from the packaging.
"""

import re
from importlib import metadata

# Used when the distribution metadata cannot be read (running from a source
# tree that was never installed); keep in step with pyproject.toml.
_FALLBACK = {
    "flower": ["flwr==1.41.0"],
    "dask": ["dask[distributed]>=2024.1"],
    "mpi": ["mpi4py>=4.0", "mpich>=4.2"],
    "privacy": ["dp-accounting>=0.4"],
    "plot": ["matplotlib>=3.6"],
    "graph": ["networkx>=3"],
}

_EXTRA_MARKER = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


def extra_requirements(extra):
    """The requirements of the optional extra ``extra``, without markers.

    Parameters
    ----------
    extra : str
        Name of the extra in ``pyproject.toml`` (``"flower"``, ``"plot"``...).

    Returns
    -------
    requirements : list of str
        For example ``["flwr==1.41.0"]``.
    """
    try:
        declared = metadata.requires("skfed") or []
    except metadata.PackageNotFoundError:
        declared = []
    found = []
    for requirement in declared:
        spec, _, marker = requirement.partition(";")
        if extra in _EXTRA_MARKER.findall(marker):
            found.append(spec.strip().replace(" ", ""))
    return found or list(_FALLBACK[extra])


def install_hint(extra):
    """A ``pip install`` command for the extra that works on any install.

    Parameters
    ----------
    extra : str
        Name of the extra.

    Returns
    -------
    hint : str
        ``'pip install "flwr==1.41.0"' (the "flower" extra: pip install
        ".[flower]" from a source checkout)``-style text.
    """
    requirements = " ".join(f'"{r}"' for r in extra_requirements(extra))
    return (
        f"pip install {requirements} (the {extra!r} extra of skfed; from a source "
        f'checkout: pip install ".[{extra}]")'
    )
