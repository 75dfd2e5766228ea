"""Cython core of skfed: node-level solvers, kernels and the communication layer.

Python code in :mod:`skfed` validates and allocates; the modules here only
compute, without the GIL, on arrays that Python prepared.
"""
