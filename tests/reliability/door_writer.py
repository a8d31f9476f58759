"""A writer beside the web server: read-modify-writes on shared memories through the doors,
as a management command makes them, for a bounded time.

    python door_writer.py DATA_DIR WRITER_ID SECONDS SEED NAME [NAME ...]

Each round picks a memory and either increments the counter on its first line with a write
that names the ETag it read (If-Match; a 412 means another writer came first, so it reads
again and retries), or appends a line of its own through the edit door, which reads and
rewrites the body inside one IMMEDIATE transaction and so needs no precondition. After each
acknowledged change it prints `inc NAME` or `app NAME LINE`; it prints `done` at the end. Any
other failure ends it with a traceback and a non-zero status.
"""

import os
import random
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> None:
    data_dir, writer, seconds, seed, *names = sys.argv[1:]
    os.environ["MEMADMIN_DATA_DIR"] = data_dir
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
    sys.path.insert(0, ROOT)
    import django

    django.setup()
    from memories.reads import lookup
    from memories.rules.errors import PreconditionFailed
    from memories.writes import doors

    rng = random.Random(int(seed))
    deadline = time.monotonic() + float(seconds)
    number = 0
    while time.monotonic() < deadline:
        name = rng.choice(names)
        if rng.random() < 0.5:
            while True:
                memory = lookup.locate(name, None)
                first, rest = memory.body.split("\n", 1)
                count = int(first.removeprefix("count "))
                try:
                    doors.write(
                        name, project=None, body=f"count {count + 1}\n{rest}", if_match=memory.etag
                    )
                except PreconditionFailed:
                    continue
                break
            print(f"inc {name}", flush=True)
        else:
            line = f"{writer}-{number}"
            doors.edit(name, project=None, old_string="\nEND", new_string=f"\n{line}\nEND")
            print(f"app {name} {line}", flush=True)
        number += 1
    print("done", flush=True)


if __name__ == "__main__":
    main()
