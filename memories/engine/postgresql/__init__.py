"""The PostgreSQL engine, for a store shared past one machine: a server database (15 or
newer) that several app servers open at once.

Its modules are the seam's (see `memories.engine`): `config`, `index`, `search` and
`statements`, plus `backend`, the Django database backend `config` names (PostgreSQL's own,
writing the memories' tier column as the stored generated column PostgreSQL has).
"""
