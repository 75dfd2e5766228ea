"""doc/engines.rst's two-round MOCHA example warns, and the page now says so (user36).

A first-time user running the page's simulated fit sees a
``ConvergenceWarning`` ("did not meet its learned-Omega stopping rule in
max_rounds=2 rounds") that the page did not mention.  The fit is run here
from the page's own block; its rounds and bytes are checked by
tests/test_user16_doc_engines.py.
"""

import re
import warnings
from pathlib import Path

import pytest
from sklearn.exceptions import ConvergenceWarning

_PAGE = Path(__file__).resolve().parents[1] / "doc" / "engines.rst"


def _setup_block():
    if not _PAGE.exists():
        pytest.skip("doc/engines.rst is not in this checkout")
    blocks = re.findall(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)", _PAGE.read_text())
    block = next(b for b in blocks if "load_har" in b and "max_rounds=2" in b)
    return "\n".join(line[3:] for line in block.splitlines())


def test_page_says_the_two_round_fit_warns():
    code = _setup_block()
    assert ("# max_rounds=2 keeps the example short: every fit of it warns\n"
            "# (ConvergenceWarning) that it stopped before its stopping rule was met.") in code
    namespace = {}
    exec(compile(code, "engines.rst (setup)", "exec"), namespace)  # noqa: S102
    estimator, X, y, groups = (namespace[k] for k in ("estimator", "X", "y", "groups"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y, groups=groups)
    messages = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(messages) == 1
    assert "did not meet its learned-Omega stopping rule in max_rounds=2 rounds" in messages[0]
    assert estimator.n_iter_ == 2
