"""The network's core, without I/O (no zmq, no sockets, no clock): what a peer does with what
its links bring, given the time of the transport's loop turn.

- `peer`: `PeerCore`, what host and joiner share (the session, the log kept in step, entries
  that came early, delivery, our own moves, the budget of signature checks).
- `host`: `HostCore`, the host's tables of a joiner's messages, relaying, the end.
- `lobby`: who sits where for the host: links, seats, the hello, the lobby, presence.
- `joiner`: `JoinerCore`, the joiner's tables of the host's messages.

The transport (`zoo_p2p.net.peer`: `Host`, `Joiner`) is these cores with their sockets; the
in-memory harness (tests/net/memnet.py) wires cores through queues and a fake clock instead.
"""
