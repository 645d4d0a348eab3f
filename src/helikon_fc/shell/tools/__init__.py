"""Tools: the protocol, function tools and their schemas, running one call, tool sources and the tools
a run was offered.
"""
