"""An in-process stand-in for a home router's UPnP IGD, on 127.0.0.1 only: an SSDP responder
(UDP) and the device's web server (device description, SOAP control). Each part can be made
hostile: another LOCATION, a huge or endless description, a slow one, an external address that
is no IP address, a huge SOAP answer."""

from __future__ import annotations

import functools
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self
from xml.sax.saxutils import escape

STOP_POLL = 0.02  # seconds between the fake's looks at whether it is stopped
_WORDS = {"718": "ConflictInMappingEntry", "606": "Action not authorized"}
SERVICE = "urn:schemas-upnp-org:service:WANIPConnection:1"
DESC = """<?xml version="1.0"?>
<root xmlns="urn:schemas-upnp-org:device-1-0"><device>
<deviceType>urn:schemas-upnp-org:device:InternetGatewayDevice:1</deviceType>
<deviceList><device><deviceType>urn:schemas-upnp-org:device:WANDevice:1</deviceType>
<deviceList><device><deviceType>urn:schemas-upnp-org:device:WANConnectionDevice:1</deviceType>
<serviceList><service><serviceType>{service}</serviceType>
<controlURL>{control}</controlURL></service></serviceList>
</device></deviceList></device></deviceList></device></root>"""


@dataclass
class FakeIGD:
    """Set the fields before `start()` (or between calls) to choose how it answers."""

    external_ip: str = "203.0.113.7"
    location: str | None = None  # None: our own description URL
    description: bytes | None = None  # None: a sound one
    endless_description: bool = False  # stream a description forever (until the reader stops)
    slow_description: bool = False  # one byte per 0.2 s
    control: str = "/ctl/IPConn"
    soap_padding: int = 0  # bytes of padding in every SOAP answer
    refuse: str | None = None  # a UPnP error code for AddPortMapping, e.g. "718"
    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    served: int = 0  # bytes of description written
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> Self:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: object) -> None:
                pass

            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/xml")
                if fake.endless_description:
                    self.end_headers()
                    chunk = b"<x>" + b"a" * 65533
                    try:
                        for _ in range(400 * 16):  # 400 MiB, if anybody read it all
                            self.wfile.write(chunk)
                            fake.served += len(chunk)
                    except OSError:
                        return
                    return
                body = (
                    fake.description or DESC.format(service=SERVICE, control=fake.control).encode()
                )
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    for i in range(len(body)):
                        if fake.slow_description:
                            time.sleep(0.2)
                        self.wfile.write(body[i : i + 1] if fake.slow_description else body)
                        fake.served += 1 if fake.slow_description else len(body)
                        if not fake.slow_description:
                            break
                except OSError:
                    return

            def do_POST(self) -> None:
                size = min(int(self.headers.get("Content-Length", "0")), 65536)
                data = self.rfile.read(size).decode()
                action = self.headers.get("SOAPAction", "").strip('"').partition("#")[2]
                args = {}
                for name in ("NewExternalPort", "NewInternalClient", "NewInternalPort",
                             "NewLeaseDuration", "NewProtocol"):  # fmt: skip
                    if f"<{name}>" in data:
                        args[name] = data.split(f"<{name}>")[1].split("<")[0]
                fake.calls.append((action, args))
                pad = "<!--" + "p" * fake.soap_padding + "-->" if fake.soap_padding else ""
                if action == "AddPortMapping" and fake.refuse:
                    status, inner = (
                        500,
                        (
                            f"<s:Fault><detail><UPnPError><errorCode>{fake.refuse}</errorCode>"
                            f"<errorDescription>{_WORDS.get(fake.refuse, 'No')}</errorDescription>"
                            "</UPnPError></detail></s:Fault>"
                        ),
                    )
                else:
                    status = 200
                    out = ""
                    if action == "GetExternalIPAddress":
                        ip = escape(fake.external_ip)
                        out = f"<NewExternalIPAddress>{ip}</NewExternalIPAddress>"
                    inner = f'<u:{action}Response xmlns:u="{SERVICE}">{out}</u:{action}Response>'
                body = (
                    '<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/'
                    f'envelope/">{pad}<s:Body>{inner}</s:Body></s:Envelope>'
                ).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except OSError:
                    return

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        # both loops look at their stop signal every STOP_POLL s: what a test's teardown waits
        # for (serve_forever's default of 0.5 s was half a second after every test)
        self.udp.settimeout(STOP_POLL)
        self._stop = threading.Event()
        self.searches = 0
        serve = functools.partial(self.http.serve_forever, poll_interval=STOP_POLL)
        for target in (serve, self._ssdp):
            t = threading.Thread(target=target, daemon=True)
            t.start()
            self._threads.append(t)
        return self

    @property
    def ssdp(self) -> tuple[str, int]:
        """Where PortMapper's search should go."""
        return ("127.0.0.1", self.udp.getsockname()[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/rootDesc.xml"

    def _ssdp(self) -> None:
        while not self._stop.is_set():
            try:
                data, peer = self.udp.recvfrom(2048)
            except TimeoutError:
                continue
            except OSError:
                return
            if not data.startswith(b"M-SEARCH"):
                continue
            self.searches += 1
            st = data.split(b"ST: ")[1].split(b"\r\n")[0] if b"ST: " in data else b""
            answer = (
                b"HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=120\r\nST: " + st + b"\r\n"
                b"USN: uuid:fake::" + st + b"\r\nEXT:\r\nSERVER: fake UPnP/1.1\r\n"
                b"LOCATION: " + (self.location or self.url).encode() + b"\r\n\r\n"
            )
            self.udp.sendto(answer, peer)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self.http.shutdown()
        self.http.server_close()
        self.udp.close()
        for th in self._threads:
            th.join(5)
