"""Builds the package's C launch path, tile._launch (tile/_launch.c), beside
the Python modules (pyproject.toml has the rest of the metadata). It needs
Python's headers (Debian: python3-dev) and a C compiler; where either is
missing the build goes on without it, and the package launches through
ctypes (docs/Runtime.md, "Python")."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("tile._launch", ["tile/_launch.c"],
                             optional=True)])
