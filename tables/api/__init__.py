"""The REST API under /api/: the tablet's operations for devices and other programs.

Views parse the request, check who may act at the table, call one service from
`tables.services`, and render the result. See docs/api.md.
"""
