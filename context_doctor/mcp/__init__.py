"""The doctor as MCP tools: the tool functions, the stdio server, the client installers.

Only :mod:`.server` imports the MCP SDK (the optional extra ``[mcp]``); the tools
and the installer work without it.
"""
