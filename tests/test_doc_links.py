"""The HTML representation links every public estimator to its API page.

A notebook shows an estimator through ``_repr_html_``; scikit-learn draws
the "?" documentation link and the parameter links only for classes of the
package named by ``_doc_link_module``.  These tests check that every
estimator of ``skfed.__all__`` links to the page that ``doc/api.rst``
generates for it, and that the documentation URL is the one of
``pyproject.toml``.
"""

import re
from pathlib import Path

import pytest
import sklearn
from sklearn.base import BaseEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.utils.fixes import parse_version

import skfed
from skfed._base import DOCUMENTATION_URL, DocLinkMixin

ROOT = Path(__file__).resolve().parents[1]

ESTIMATORS = [
    obj
    for name in skfed.__all__
    if isinstance(obj := getattr(skfed, name), type) and issubclass(obj, BaseEstimator)
]


def _instance(cls):
    if cls is skfed.LocalEstimator:
        return cls(LogisticRegression())
    return cls()


def _api_pages():
    """``<module>.<name>`` of every entry of doc/api.rst's autosummary tables."""
    pages, module, in_table = set(), "skfed", False
    for line in (ROOT / "doc" / "api.rst").read_text().splitlines():
        if match := re.match(r"\.\. currentmodule:: (\S+)", line):
            module = match.group(1)
        elif line.startswith(".. autosummary::"):
            in_table = True
        elif in_table and line and not line.startswith(" "):
            in_table = False
        elif in_table and (match := re.fullmatch(r" +(\w+)", line)):
            pages.add(f"{module}.{match.group(1)}")
    return pages


def test_estimators_are_found():
    # The parametrized test below must not pass by running on nothing.
    names = {cls.__name__ for cls in ESTIMATORS}
    assert {"FederatedMultiTaskClassifier", "LocalEstimator", "SimulatedNetwork",
            "DifferentialPrivacy", "CollaborationGraphLearner"} <= names
    assert len(ESTIMATORS) >= 14


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_repr_html_links_to_the_api_page(cls):
    estimator = _instance(cls)
    assert isinstance(estimator, DocLinkMixin)
    link = estimator._get_doc_link()
    channel = "latest" if "dev" in skfed.__version__ else "stable"
    prefix = f"{DOCUMENTATION_URL}/en/{channel}/generated/"
    assert link.startswith(prefix) and link.endswith(".html"), link
    page = link[len(prefix):-len(".html")]
    # the page of the public module the class is imported from
    assert page.endswith("." + cls.__name__)
    module = page[: -len(cls.__name__) - 1]
    assert getattr(__import__(module, fromlist=[cls.__name__]), cls.__name__) is cls
    api = ROOT / "doc" / "api.rst"
    if api.exists():  # a checkout, not an installed wheel alone
        assert page in _api_pages(), f"doc/api.rst generates no page {page}"

    html = estimator._repr_html_()
    assert f'href="{link}"' in html
    if parse_version(sklearn.__version__) >= parse_version("1.7"):
        # scikit-learn >= 1.7 also links every parameter to its description
        assert f"{link}#:~:text=" in html


def test_api_pages_parse():
    if not (ROOT / "doc" / "api.rst").exists():
        pytest.skip("no doc/api.rst next to the tests")
    pages = _api_pages()
    assert "skfed.multitask.FederatedMultiTaskClassifier" in pages
    assert "skfed.network.SimulatedNetwork" in pages


def test_classes_outside_skfed_get_no_link():
    class UserEstimator(skfed.LocalEstimator):
        pass

    UserEstimator.__module__ = "mypackage.models"
    assert UserEstimator(LogisticRegression())._get_doc_link() == ""


def test_template_can_be_overridden_per_instance():
    estimator = skfed.SimulatedNetwork()
    estimator._doc_link_template = "https://example.org/{estimator_name}.html"
    assert estimator._get_doc_link() == "https://example.org/SimulatedNetwork.html"
    assert skfed.SimulatedNetwork()._get_doc_link().startswith(DOCUMENTATION_URL)


def test_pyproject_names_the_same_documentation_url():
    pyproject = ROOT / "pyproject.toml"
    if not pyproject.exists():
        pytest.skip("no pyproject.toml next to the tests")
    match = re.search(r'^Documentation\s*=\s*"([^"]+)"', pyproject.read_text(), re.M)
    assert match is not None, "pyproject.toml has no [project.urls] Documentation"
    assert match.group(1).rstrip("/") == DOCUMENTATION_URL
