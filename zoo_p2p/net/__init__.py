"""The network: peers moving signed entries between protocol sessions (protocol/TRANSPORT.md).

Start here. Three layers, the middle one without I/O:

- **The wire** (pure): `messages` (every TRANSPORT.md message a frozen dataclass, one `decode`
  that raises only `WireError`) over `schema` (the one msgpack boundary and its limits);
  `wire` (signed hellos and welcomes, batching), `bucket` (the one token bucket), `evidence`.
- **The cores** (sans-I/O: no zmq, no socket, no clock; every entry point takes `now`):
  `core.peer.PeerCore` (session, log, early entries, delivery, our own moves, the check
  budget) with `liveness` (claims and resignations); `core.host.HostCore` and its base
  `core.lobby.Seating` (the host's tables, the hello, the lobby, presence), `core.conns`
  (the bounds of accepted connections, shared with `seatwatch`), `spectators` (who
  watches); `core.joiner.JoinerCore` (the joiner's tables). The direct links' core is
  `gossip.MeshCore` (heads, gets, fork walking, withholding, proofs) over `links`, `cards`,
  `holdback`; the spectator's is `spectate` (with `stall`, when it leaves a stalled source).
- **The transport** (the only code that touches zmq, sockets and the clock): `peer` (`Host`,
  `Joiner`: the cores with their ROUTER/DEALER sockets), `loop` (the one poller loop: one clock
  read per turn, fed to the cores), `mesh` (the direct links' sockets), `tcp` (the kernel's TCP
  state), `invite`, `discovery` (the LAN), `portmap` (UPnP), `onion` and `torlink` (Tor).

tests/net/memnet.py runs host and joiner cores in memory on a fake clock; net/memmesh.py does
the same for the direct links' core.
"""
