"""Where the hygiene page's list of memories holding a credential spends its CPU time, on the
store of this run: `MEMADMIN_DATA_DIR=STORE python .../secrets_scan.py` from a checkout."""

import os
import sys
import time

sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")


def cpu(call):
    started = time.process_time()
    result = call()
    return (time.process_time() - started) * 1000, result


def main() -> None:
    import django

    django.setup()
    from memories.models import INDEX_ORDER, Memory
    from memories.reads import hygiene
    from memories.rules import secrets

    spent, section = cpu(hygiene.holding_secrets)
    print(f"hygiene.holding_secrets: {spent:.0f} ms CPU, {section.count} holding")
    rows = Memory.objects.select_related("project").order_by(*INDEX_ORDER)
    spent, count = cpu(lambda: sum(1 for _ in rows.iterator(chunk_size=500)))
    print(f"its {count} rows read as Memory objects alone: {spent:.0f} ms CPU")
    texts = list(Memory.objects.values_list("description", "body", "source", "references"))
    fields = ("description", "body", "source", "references")
    spent, found = cpu(
        lambda: sum(1 for text in texts if secrets.held(dict(zip(fields, text, strict=True))))
    )
    print(f"secrets.held over their texts alone: {spent:.0f} ms CPU, {found} holding")


if __name__ == "__main__":
    main()
