"""A tap for the wire tests: `import tests.net.wiretap` in a `zoo` process records every frame
its zmq sockets send to the file named by ZOO_WIRETAP (one line per frame: socket type, hex).

A ROUTER's routing-id part (sent with SNDMORE) is not recorded; only the message part is."""

from __future__ import annotations

import os
import threading
from typing import Any

import zmq

_PATH = os.environ.get("ZOO_WIRETAP")
_LOCK = threading.Lock()
_real_send = zmq.Socket.send


def _send(self: Any, data: Any, flags: int = 0, *args: Any, **kw: Any) -> Any:
    if _PATH and not flags & zmq.SNDMORE:
        raw = data.bytes if isinstance(data, zmq.Frame) else bytes(data)
        with _LOCK, open(_PATH, "a") as f:
            f.write(f"{self.type} {raw.hex()}\n")
    return _real_send(self, data, flags, *args, **kw)


zmq.Socket.send = _send  # type: ignore[method-assign]
