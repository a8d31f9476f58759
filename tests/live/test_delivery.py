"""Delivery: several writers through /v1 and several listeners on /v1/events, over a server of
two worker processes (each with its feed: across processes by the engine's signal, NOTIFY or
the poll). Every committed change reaches every listener once, in commit order."""

import threading
from collections import defaultdict

from tests.live.sse import Listener

WRITERS = 4
WRITES = 15  # each
LISTENERS = 6
SHARED = ["shared-a", "shared-b"]  # written by every writer, in turn with their own


def test_every_change_is_delivered_once_in_order_to_every_listener(tmp_path):
    from tests.reliability.conftest import Served

    server = Served(tmp_path, workers=2)
    headers = {"Authorization": f"Bearer {server.token}"}
    listeners = [Listener(server.port, "/v1/events", headers) for _ in range(LISTENERS)]
    written = defaultdict(int)  # memory name: acknowledged writes
    lock = threading.Lock()

    def write(writer: int) -> None:
        for n in range(WRITES):
            name = SHARED[n % 2] if n % 3 == 0 else f"own-{writer}-{n % 5}"
            answer = server.request("PUT", f"/v1/memories/{name}", {"description": f"{writer} {n}"})
            assert answer.status in (200, 201), answer.body
            with lock:
                written[name] += 1

    try:
        assert all(listener.status == 200 for listener in listeners)
        threads = [threading.Thread(target=write, args=(w,)) for w in range(WRITERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        total = sum(written.values())
        assert total == WRITERS * WRITES
        received = [listener.collect(total, timeout=60) for listener in listeners]
        for listener in listeners:
            assert listener.next(timeout=1) is None  # nothing more, nothing twice
    finally:
        for listener in listeners:
            listener.close()
        log = server.stop()
    assert "Traceback" not in log
    first = [message.id for message in received[0]]
    assert first == sorted(set(first)), "in commit order, each once"
    for messages in received[1:]:
        assert [message.id for message in messages] == first
    per_memory = defaultdict(list)
    for message in received[0]:
        data = message.json()
        per_memory[data["name"]].append(data["revision"])
    assert {name: len(revisions) for name, revisions in per_memory.items()} == dict(written)
    assert all(revisions == sorted(revisions) for revisions in per_memory.values())
