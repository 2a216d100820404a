"""The bare SDK floor for bench/startup.py: the official SDK's MCPServer with one tool, stdio."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("bare")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


if __name__ == "__main__":
    server.run()
