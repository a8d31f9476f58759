"""The words-mode ranking statement of each bench/words_cost.py question, as JSON, made by the
checkout this runs from (run it from an export of the commit "before" and from "after").

    MEMADMIN_DATABASE_URL=... python dump_statements.py STORE_DIR OUT.json
"""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path.cwd() / "bench"))

import generate  # noqa: E402
import words_cost  # noqa: E402

generate.setup_django(Path(sys.argv[1]), os.environ["MEMADMIN_DATABASE_URL"])

from memories.reads.filters import MemoryFilters  # noqa: E402
from memories.reads.search import ranking_sql  # noqa: E402

statements = {}
for label, asked in words_cost.questions():
    made = ranking_sql(asked if isinstance(asked, list) else [asked], MemoryFilters())
    if made is not None:  # punctuation alone is scanned for outside the statement
        statements[label] = made
Path(sys.argv[2]).write_text(json.dumps(statements, default=str))
