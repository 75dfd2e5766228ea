"""Sphinx configuration of the skfed documentation.

Build (from the repository root, after ``pip install ".[doc]"``)::

    sphinx-build -W --keep-going -b html doc doc/_build/html

or ``make -C doc html``.  The gallery examples in ``examples/`` run during
the build (files named ``plot_*.py``); the others are shown, not run.
"""

import os
import sys
import warnings
from datetime import date

import skfed

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # gallery_order

project = "skfed"
author = "skfed developers"
copyright = f"{date.today().year}, {author}"
version = release = skfed.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

templates_path = ["_templates"]
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip"]
root_doc = "index"
default_role = "literal"
# "::" blocks hold formulas and protocols, not Python
highlight_language = "text"

# -- autodoc / autosummary / numpydoc ----------------------------------------
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"
# The Flower and MPI engines are optional extras that the ``doc`` extra does
# not install (flwr pins its own dependency tree, mpi4py needs an MPI
# runtime).  Their modules only import these packages and call them inside
# functions, so autodoc reads the same docstrings and signatures from mocks:
# always mocked, the API pages are the same whether or not the extras are
# installed, and ``pip install ".[doc]" && make -C doc html`` builds them.
autodoc_mock_imports = ["flwr", "mpi4py"]
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False

# -- sphinx-gallery ------------------------------------------------------------
# Examples render headless; their warnings (e.g. ConvergenceWarning of a
# deliberately short run) are not doc-build warnings.
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("OMP_NUM_THREADS", "1")

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    # only plot_*.py run; the others (e.g. the Flower example) are shown
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "within_subsection_order": "gallery_order.ExampleOrder",
    "doc_module": ("skfed",),
    "backreferences_dir": "generated/backreferences",
    "reference_url": {"skfed": None},
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "plot_gallery": "True",
    "image_scrapers": ("matplotlib",),
    "min_reported_time": 1,
    "show_memory": False,
}

# -- HTML ----------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"skfed {version}"
html_static_path = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": {"**": ["page-toc"], "user_guide/choosing": []},
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_sidebars = {"install": [], "user_guide/choosing": []}
html_show_sourcelink = False

warnings.filterwarnings("ignore", category=UserWarning,
                        message="Matplotlib is currently using agg")


# scikit-learn's generated metadata-routing methods (set_fit_request, ...)
# document scikit-learn's own glossary; the user guide explains routing.
def _skip_sklearn_plumbing(app, what, name, obj, skip, options):
    import re

    if re.fullmatch(r"set_\w+_request|get_metadata_routing", name):
        return True
    return None


# In "ndarray of shape (n_iter_,)" reST would read ``n_iter_`` as a link;
# escape the trailing underscore of names inside a parameter's type.
_TYPE_LINE = None


def _escape_attribute_names(app, what, name, obj, options, lines):
    import re

    global _TYPE_LINE
    if _TYPE_LINE is None:
        _TYPE_LINE = re.compile(r"^(\s*[\w, *]+ : )(.*)$")
    for k, line in enumerate(lines):
        match = _TYPE_LINE.match(line)
        if match and "`" not in match.group(2):
            lines[k] = match.group(1) + re.sub(r"\b(\w+)_(?=[\s,)\]])", r"\1\\_",
                                               match.group(2))


def setup(app):
    app.connect("autodoc-skip-member", _skip_sklearn_plumbing)
    # before numpydoc (priority 500) turns the sections into reST
    app.connect("autodoc-process-docstring", _escape_attribute_names, priority=400)
