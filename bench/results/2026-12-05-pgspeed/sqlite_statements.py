"""SQLite's ranking statement of every LoCoMo question (text and parameters, one moment
`now`, no filter, a page of 100 as a hybrid search asks), as JSON: run from two checkouts
and compared, it shows whether SQLite's search changed at all.

    (cd CHECKOUT && .venv/bin/python .../sqlite_statements.py EMPTY_DATA_DIR OUT.json)
"""

import datetime as dt
import json
import sys
import warnings
from pathlib import Path

ROOT = Path.cwd()
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench/recall"))

import generate  # noqa: E402

generate.setup_django(Path(sys.argv[1]), "")
warnings.filterwarnings("ignore")

import locomo  # noqa: E402
from django.core.management import call_command  # noqa: E402

call_command("migrate", verbosity=0)

from memories.reads.filters import MemoryFilters  # noqa: E402
from memories.reads.search import ranking_sql  # noqa: E402

now = dt.datetime(2026, 12, 5, tzinfo=dt.UTC)
conversations = locomo.load(Path("/work/shared/data/locomo-dev"), locomo.Quirks())
made = {
    q.text: ranking_sql([q.text], MemoryFilters(), limit=100, now=now)
    for c in conversations
    for q in c.questions
}
Path(sys.argv[2]).write_text(json.dumps(made, default=str, sort_keys=True))
print(len(made), "statements")
