"""MCP subscriptions on /mcp (the 2026-07-28 wire's subscriptions/listen): the index
resources listed per tier, a subscribed tier told when its [Memory] section changes (through
any door, on any worker), and not for another tier, an agent's read, or a write leaving its
section as it was."""

import anyio
import pytest

MODERN = "2026-07-28"  # the wire with subscriptions/listen, adopted without discovery


def _put(live, name, project, **fields):
    answer = live.request("PUT", f"/v1/memories/{name}?project={project}", fields)
    assert answer.status in (200, 201), answer.body


def test_the_index_resources_are_listed_per_tier_and_read(live):
    async def body(client):
        listed = await client.list_resources()
        uris = [str(r.uri) for r in listed.resources]
        text = await client.read_resource("memory://tier/infra")
        return uris, text.contents[0].text

    uris, text = live.session(body, project="webdev", mode=MODERN)
    assert uris == [
        "memory://index",
        "memory://tier/global",
        "memory://tier/infra",
        "memory://tier/webdev",
    ]
    assert text == live.request("GET", "/v1/agent-view?project=infra").json()["text"]


def test_a_subscribed_tier_is_told_and_another_is_not(live):
    _put(live, "sub-note", "webdev", description="a note the agent reads", load="index")

    async def body(client):
        events = []
        async with client.listen(
            resource_subscriptions=["memory://tier/webdev", "memory://nowhere"]
        ) as subscription:
            honored = subscription.honored.resource_subscriptions

            async def collect():
                async for event in subscription:
                    events.append(str(event.uri))

            async with anyio.create_task_group() as group:
                group.start_soon(collect)
                # Another tier, an agent's read, a write that leaves the section's text as it
                # was: nothing. Then a change of the subscribed tier's index: one notice.
                await anyio.to_thread.run_sync(
                    lambda: _put(live, "sub-elsewhere", "infra", description="elsewhere")
                )
                await anyio.to_thread.run_sync(
                    lambda: live.request("POST", "/v1/memories/sub-note/read?project=webdev")
                )
                await anyio.to_thread.run_sync(
                    lambda: _put(live, "sub-note", "webdev", body="a body the index does not show")
                )
                await anyio.sleep(1.5)
                assert events == []
                await anyio.to_thread.run_sync(
                    lambda: _put(live, "sub-note", "webdev", description="a new description")
                )
                with anyio.fail_after(10):
                    while not events:
                        await anyio.sleep(0.05)
                await anyio.sleep(1)
                group.cancel_scope.cancel()
        return honored, events

    honored, events = live.session(body, project="webdev", mode=MODERN)
    assert honored == ["memory://tier/webdev"]
    assert events == ["memory://tier/webdev"]


@pytest.mark.parametrize("mode", ["legacy"])
def test_the_older_wire_advertises_no_subscriptions(live, mode):
    async def body(client):
        return client.server_capabilities.resources.subscribe

    assert not live.session(body, mode=mode)
