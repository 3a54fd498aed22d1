"""Benchmarks of Attention Lab: core math, page reruns, the browser, and many students at once.

Run them all with ``.venv/bin/python -m bench``; see bench/README.md. Benchmarks measure and
report against targets; they never fail a build.
"""
