"""MCP integration for toolscout."""
