"""The MCP SDK, checked once: without it, importing `helikon_fc.mcp` says what to install."""

try:
    import mcp_types as _mcp_types

    import mcp as _mcp
except ImportError as missing:  # say what to install, not which of the SDK's modules was missing
    raise ImportError(
        f"helikon_fc.mcp needs the mcp package ({missing}): pip install 'helikon_fc[mcp]'", name="mcp"
    ) from None
del _mcp, _mcp_types
