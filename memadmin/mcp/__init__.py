"""MCP: the seed's five memory tools and the agent's memory section, served over the Model
Context Protocol with the official SDK, through the same doors and reads as every other edge.

`session` (who asks, on which project), `tools` (the five tools: parameters, one call of the
doors or reads each, the seed's result lines), `server` (the SDK's server over them and the
`memory://index` resource), `http` (`/mcp`, a Django view) and `stdio` (`manage.py mcp`).
"""
