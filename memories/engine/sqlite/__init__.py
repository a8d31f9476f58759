"""The SQLite engine, the embedded default: one file, WAL, FTS5 for the search index.

Its modules are the seam's (see `memories.engine`): `config`, `index`, `search` and
`statements`. Nothing of the app outside `memories.engine` imports them (an import-linter
contract says so); the tests of SQLite's own index and escaping do.
"""
