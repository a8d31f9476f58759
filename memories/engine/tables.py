"""The names of the models' tables that raw SQL names, once, for the engines' statements and
triggers and for the reads and writes that write statements of their own.

Each is its model's `_meta.db_table`. The engine sits below the models (the layers of
pyproject.toml), so it cannot read them there: tests/engine/test_tables.py holds every name
here to its model's. The tables an engine adds of its own (SQLite's FTS5 table,
PostgreSQL's search index) are named in that engine.
"""

MEMORY_TABLE = "memories_memory"
PROJECT_TABLE = "projects_project"
REFERENCE_TABLE = "memories_reference"
TAG_TABLE = "memories_tag"

BAND_TALLY = "memories_bandtally"
TAG_TALLY = "memories_tagtally"
VERIFIED_TALLY = "memories_verifiedtally"
TAG_VERIFIED_TALLY = "memories_tagverifiedtally"
TAG_PAIR_TALLY = "memories_tagpairtally"

DANGLING_TALLY = "memories_danglingtally"
DANGLING_TARGET = "memories_danglingtarget"
DANGLING_TOTAL = "memories_danglingtotal"
ORPHAN = "memories_orphan"
ORPHAN_TALLY = "memories_orphantally"
WORDING = "memories_wording"
WORDING_TALLY = "memories_wordingtally"
