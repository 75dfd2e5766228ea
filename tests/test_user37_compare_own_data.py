"""baselines.rst "On your own data": skfed compare on a user's registered sites (user37).

A first-time user registered their own per-site data with
``register_dataset`` and got only the Global and Local rows: on a dataset
they were not benchmarked on, the skfed methods run only when named in
``methods``.  The page now shows the route; its block is run here, the
numbers in its comment re-derived, and the default run checked to leave
the methods out and say so.
"""

import contextlib
import io
import re
from pathlib import Path

import pytest

from skfed.compare import DATASETS, compare

_PAGE = Path(__file__).resolve().parents[1] / "doc" / "user_guide" / "baselines.rst"


def _block():
    if not _PAGE.exists():
        pytest.skip("doc/user_guide/baselines.rst is not in this checkout")
    text = _PAGE.read_text()
    start = text.index("**On your own data.**")
    block = re.search(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)", text[start:]).group(1)
    return "\n".join(line[3:] for line in block.splitlines())


@pytest.fixture
def page_run():
    code = _block()
    namespace = {}
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, "baselines.rst (own data)", "exec"), namespace)  # noqa: S102
        yield code, namespace, out.getvalue()
    finally:
        DATASETS.pop("my-sites", None)


def test_the_block_prints_the_rows_its_comment_quotes(page_run):
    code, namespace, printed = page_run
    quoted = dict(re.findall(r"(Global|Local|MOCHA) \.(\d{4})", code))
    rows = {r["method"]: r for r in namespace["result"].table}
    assert set(rows) == {"global-linear", "local-linear", "mocha-linear"}
    for name, method in [("Global", "global-linear"), ("Local", "local-linear"),
                         ("MOCHA", "mocha-linear")]:
        assert f"{rows[method]['mean_node_score']:.4f}" == "0." + quoted[name]
        assert method in printed
    assert rows["mocha-linear"]["bytes_sent"] > 0 == rows["local-linear"]["bytes_sent"]


def test_without_methods_only_the_baselines_run_and_the_report_says_so(page_run):
    result = compare("my-sites", verbose=0)
    ran = {r["method"] for r in result.table}
    assert "mocha-linear" not in ran and "online-kernel" not in ran
    assert ran and all(name.startswith(("global-", "local-")) for name in ran)
    assert "Not run by default, since my-sites is not among the datasets" in result.format()
    assert "mocha-linear" in result.format().split("Not run by default")[1]
