"""The network guard, imported before any framework: only the loopback interface may be reached.

socket.socket.connect / connect_ex / sendto (so every TCP, TLS, HTTP and UDP client, asyncio's
included) and the name lookups (getaddrinfo, gethostbyname, gethostbyname_ex) raise
NetworkGuardError for anything but loopback or a local socket. Each refusal is also remembered
in refusals(), so a lane can fail the whole capture even when a framework swallows the error
(telemetry exporters do). The capture processes also run in a network namespace with only a
loopback interface (scripts/python-env run); this guard is the second line and names what was
attempted.
"""

from __future__ import annotations

import ipaddress
import socket

_refused: list[str] = []


class NetworkGuardError(OSError):
    """A connection or lookup to something other than loopback."""


def refusals() -> list[str]:
    """The connections and lookups the guard refused in this process."""
    return list(_refused)


def is_loopback(host: object) -> bool:
    """Whether a host name or address stays on this machine."""
    if host is None or host == "" or host == b"":
        return True
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    h = str(host).lower()
    if h.startswith("[") and h.endswith("]"):
        h = h[1:-1]
    if h == "localhost" or h.endswith(".localhost"):
        return True
    h = h.split("%", 1)[0]  # an IPv6 zone
    try:
        addr = ipaddress.ip_address(h)
    except ValueError:
        return False
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return addr.is_loopback


def _refuse(what: str, target: object) -> NetworkGuardError:
    msg = f"network guard: refused {what} to {target} (only loopback is allowed)"
    _refused.append(msg)
    return NetworkGuardError(msg)


def _check_address(sock: socket.socket, address: object, what: str) -> None:
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return  # a local (AF_UNIX) socket or a socket pair
    host = address[0] if isinstance(address, tuple) and address else address
    if not is_loopback(host):
        raise _refuse(what, address)


_connect = socket.socket.connect
_connect_ex = socket.socket.connect_ex
_sendto = socket.socket.sendto
_getaddrinfo = socket.getaddrinfo
_gethostbyname = socket.gethostbyname
_gethostbyname_ex = socket.gethostbyname_ex


def _guarded_connect(self, address):
    _check_address(self, address, "a connection")
    return _connect(self, address)


def _guarded_connect_ex(self, address):
    _check_address(self, address, "a connection")
    return _connect_ex(self, address)


def _guarded_sendto(self, data, *args):
    _check_address(self, args[-1], "a datagram")
    return _sendto(self, data, *args)


def _guarded_getaddrinfo(host, *args, **kwargs):
    if not is_loopback(host):
        raise _refuse("a DNS query (getaddrinfo)", host)
    return _getaddrinfo(host, *args, **kwargs)


def _guarded_gethostbyname(host):
    if not is_loopback(host):
        raise _refuse("a DNS query (gethostbyname)", host)
    return _gethostbyname(host)


def _guarded_gethostbyname_ex(host):
    if not is_loopback(host):
        raise _refuse("a DNS query (gethostbyname_ex)", host)
    return _gethostbyname_ex(host)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
socket.socket.sendto = _guarded_sendto  # type: ignore[method-assign]
socket.getaddrinfo = _guarded_getaddrinfo
socket.gethostbyname = _guarded_gethostbyname
socket.gethostbyname_ex = _guarded_gethostbyname_ex
