"""The SQLite engine, the embedded default: one file, WAL, FTS5 for the search index.

Its modules are the seam's (see `memories.engine`): `config`, `index`, `search` and
`statements`. Nothing outside `memories.engine` imports them.
"""
