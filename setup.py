"""Builds the compiled rules of every game (core/poison/*.pyx, core/pot/*.pyx) with Cython.

Project metadata lives in pyproject.toml; this file only describes the extensions, which
pyproject.toml cannot. Compiler warnings are errors, so a sloppy cast fails the build.
"""

import os
import sys
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "embedsignature": True,
}

if sys.platform == "win32":
    COMPILE_ARGS = ["/O2", "/WX"]
else:
    # Cython's generated helpers trip -Wunused-function; everything else fails the build.
    COMPILE_ARGS = ["-O3", "-Wall", "-Wno-unused-function", "-Werror"]

#: Every compiled module: the search every game's bot runs and the machinery every game's
#: face shares (core/*.pyx), then each game's rules, search table and face (core/<game>/*.pyx),
#: found in its folder, so that a new game's folder is built without a line here.
HERE = Path(__file__).resolve().parent
MODULES = tuple(
    ".".join(path.relative_to(HERE).with_suffix("").parts)
    for path in sorted(HERE.glob("core/*.pyx")) + sorted(HERE.glob("core/*/*.pyx"))
)

extensions = [Extension(name, [name.replace(".", "/") + ".pyx"], extra_compile_args=COMPILE_ARGS) for name in MODULES]

# POISON_ANNOTATE=1 writes core/*/*.html, Cython's annotated source, to
# check that no Python object creeps into a rule function; it regenerates every module, as
# an up-to-date one would otherwise be skipped and get no annotation.
ANNOTATE = bool(os.environ.get("POISON_ANNOTATE"))

setup(
    ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES, annotate=ANNOTATE, force=ANNOTATE),
)
