"""Developer tools that are not part of the package (run with ``python -m tools.<name>``)."""
