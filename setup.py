"""Build the Cython core of skfed.

Everything about packaging lives in ``pyproject.toml``; this file only turns
``skfed/_core/*.pyx`` into extension modules.  Compiler directives are set
here, once, for every module.  ``SKFED_CYTHON_DEBUG=1`` switches bounds,
initialisation and division checks back on (CI runs the core tests once that
way); the generated C goes to a separate build directory per mode so the two
builds never reuse each other's files.
"""

import os
from glob import glob
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("SKFED_CYTHON_DEBUG", "0") == "1"

COMPILER_DIRECTIVES = {
    "language_level": "3",
    "boundscheck": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    "wraparound": False,
    "nonecheck": False,
    "embedsignature": True,
    "cpow": True,
}

if os.name == "nt":
    extra_compile_args = ["/O2"]
    libraries = []
else:
    extra_compile_args = ["-O3", "-Wno-unreachable-code", "-Wno-unused-function"]
    libraries = ["m"]


def _extensions():
    # SKFED_CYTHON_MODULES=_comm,_kernels restricts a development build to
    # some modules (a half-written solver then does not block the others).
    only = {m for m in os.environ.get("SKFED_CYTHON_MODULES", "").split(",") if m}
    extensions = []
    for source in sorted(glob(os.path.join("skfed", "_core", "*.pyx"))):
        name = "skfed._core." + Path(source).stem
        if only and Path(source).stem not in only:
            continue
        extensions.append(
            Extension(
                name,
                [source],
                extra_compile_args=extra_compile_args,
                libraries=libraries,
                define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            )
        )
    return extensions


setup(
    ext_modules=cythonize(
        _extensions(),
        compiler_directives=COMPILER_DIRECTIVES,
        build_dir=os.path.join("build", "cython-debug" if DEBUG else "cython"),
        nthreads=int(os.environ.get("SKFED_CYTHON_JOBS", os.cpu_count() or 1)),
        quiet=True,
    ),
)
