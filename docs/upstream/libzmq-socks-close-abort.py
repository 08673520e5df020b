#!/usr/bin/env python3
"""libzmq aborts the process when a socket whose SOCKS5 connect failed once is closed.

Self-contained: needs only pyzmq (any libzmq 4.3.x with SOCKS support; seen with 4.3.5).
A tiny SOCKS5 "proxy" on 127.0.0.1 answers every greeting with a failure (0x05 0xFF: no
acceptable authentication method). A DEALER with ZMQ_SOCKS_PROXY pointing at it connects,
the SOCKS handshake fails, and closing the socket then aborts the whole process:

    Bad file descriptor (src/epoll.cpp:86)      -> SIGABRT, exit status 134 in a shell

Usage: python3 libzmq-socks-close-abort.py [greeting|connect]
  greeting  the proxy refuses the greeting (default)
  connect   the proxy accepts the greeting and refuses the CONNECT (reply 0x05: refused),
            which is what tor says for an onion that is not published yet
Prints each step; the last line you see before the abort is "closing the socket".
"""

import socket
import sys
import threading
import time

import zmq

MODE = sys.argv[1] if len(sys.argv) > 1 else "greeting"


def refusing_proxy(listener: socket.socket, attempts: list[int]) -> None:
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            try:
                conn.recv(16)  # 05 01 00: version 5, one method, "no authentication"
                if MODE == "greeting":
                    conn.sendall(b"\x05\xff")  # no acceptable method
                else:
                    conn.sendall(b"\x05\x00")  # ok, no authentication
                    conn.recv(300)  # the CONNECT request
                    conn.sendall(b"\x05\x05\x00\x01\x00\x00\x00\x00\x00\x00")  # refused
            except OSError:
                pass
        attempts.append(1)


def main() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    attempts: list[int] = []
    threading.Thread(target=refusing_proxy, args=(listener, attempts), daemon=True).start()
    print(f"libzmq {zmq.zmq_version()}, pyzmq {zmq.__version__}; refusing proxy on :{port}")

    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.setsockopt(zmq.SOCKS_PROXY, f"127.0.0.1:{port}".encode())
    s.connect("tcp://example.onion:5858")  # never reached: the proxy refuses first
    deadline = time.monotonic() + 10
    while not attempts and time.monotonic() < deadline:
        time.sleep(0.01)
    print(f"SOCKS attempts refused so far: {len(attempts)}")
    print("closing the socket", flush=True)
    s.close()
    ctx.term()
    print("closed cleanly: this libzmq does not have the bug")


if __name__ == "__main__":
    main()
