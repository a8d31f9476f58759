"""A Server-Sent Events client for the tests: an open stream read event by event, as an
EventSource reads it (id, event, data; comment lines are heartbeats)."""

import http.client
import json
import time
from dataclasses import dataclass


@dataclass
class Message:
    id: int | None
    event: str
    data: str

    def json(self):
        return json.loads(self.data)


class Listener:
    def __init__(self, port: int, path: str, headers: dict | None = None, timeout: float = 30):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.connection.request("GET", path, headers={"Host": "127.0.0.1", **(headers or {})})
        self.sock = self.connection.sock  # the connection lets go of it for a closing answer
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.headers = dict(self.response.getheaders())
        self.heartbeats = 0
        self._buffer = b""

    def _line(self, deadline: float) -> bytes | None:
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self.sock.settimeout(remaining)
            try:
                data = self.response.read1(65536)
            except TimeoutError:
                return None
            if not data:
                raise EOFError("the stream ended")
            self._buffer += data
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def next(self, timeout: float = 10) -> Message | None:
        """The next event, or None when none came within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        fields: dict[str, list[str]] = {}
        while True:
            line = self._line(deadline)
            if line is None:
                return None
            text = line.decode()
            if text == "":
                if "data" in fields:
                    ids = fields.get("id")
                    return Message(
                        int(ids[-1]) if ids else None,
                        fields.get("event", ["message"])[-1],
                        "\n".join(fields["data"]),
                    )
                fields = {}
                continue
            if text.startswith(":"):
                self.heartbeats += 1
                continue
            name, _, value = text.partition(":")
            fields.setdefault(name, []).append(value.removeprefix(" "))

    def collect(self, count: int, timeout: float = 20) -> list[Message]:
        """`count` events, failing if they do not come within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        found = []
        while len(found) < count:
            message = self.next(max(deadline - time.monotonic(), 0.01))
            if message is None:
                raise AssertionError(f"{len(found)} of {count} events came: {found}")
            found.append(message)
        return found

    def close(self) -> None:
        self.response.close()
        self.connection.close()
        self.sock.close()
