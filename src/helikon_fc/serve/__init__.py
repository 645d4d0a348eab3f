"""Serving runs over HTTP: the ASGI app behind ``helikon serve``, the AG-UI adapter and the run inspector page.

Needs the ``serve`` extra (``pip install 'helikon_fc[serve]'``).
"""
