"""The trio interpreter of a model loop and the public run machinery around it: the driver, its
controls and tool rounds, the recording of a run, run streams, the runner and results.
"""
