"""What the Python capture lanes share.

The Python edition of examples/internal (Go) and examples/capture/js/lib (Node): a raw MCP
server that serves a fixture's W0 bytes (rawmcp), a loopback HTTP server playing the model
provider (provider), the observation record writer (record), the pieces every lane program uses
(lane) and the network guard every process loads first (guard). It uses the standard library
only, so it runs beside any framework version.
"""
