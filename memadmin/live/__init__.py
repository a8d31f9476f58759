"""Live: the change feed (memories.reads.changes) streamed to pages, scripts and MCP sessions
as Server-Sent Events.

`feed` reads the feed once per server process and hands each change to the open streams;
`streams` holds one stream (who it is for, what it admits, what it has to send); `hub`
writes the streams to their sockets from one thread, so an open stream holds no request
thread (memadmin.serving hands it over); `responses` opens a stream for a view.
"""
