"""Benchmarks for helikon_fc beside a plain trio loop (the floor) and the peers users compare it with.

`python -m bench` runs every (library, scenario) pair in a fresh interpreter over several rounds and
writes `bench/results/`. Everything in this package outside `bench.scenarios.<library>` imports only
the standard library, so it runs in any interpreter the runner spawns.
"""
