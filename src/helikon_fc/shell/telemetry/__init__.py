"""What a run reports about itself as it goes: the usage meter every model call counts on, and the
tracing seam.
"""
