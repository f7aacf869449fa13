"""Which requests the browser board answers: its own host names, and its own page only.

Two checks every request passes before it reaches `boardq.web.app`, pure functions
of its method and headers:

- **Host**: the name the request was sent to must be one the server was started as
  (`--host`), a loopback name when it listens on loopback, any IP address when it
  listens on all of them (0.0.0.0 or ::), or a name given with `--allow-host`. A page
  of another site that makes its own name point at this machine (DNS rebinding) sends
  its own name, so it is refused.
- **Origin**: a request that changes something (every method but GET and HEAD) must
  come from the board's own page: its `Origin`, when sent, is this server, and
  otherwise its `Sec-Fetch-Site`, when sent, is `same-origin` or `none`. Browsers send
  one or both with every such request, so another site's page cannot start sessions
  or play moves in them; a client that is not a browser (curl, a script) sends
  neither and is answered.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

__all__ = ["HostGuard", "SAFE_METHODS"]

SAFE_METHODS = frozenset({"GET", "HEAD"})
"""Methods that change nothing, and so may come from anywhere (as links and images do)."""

_LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_WILDCARDS = frozenset({"", "0.0.0.0", "::"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _is_loopback(name: str) -> bool:
    return name == "localhost" or (_is_ip(name) and ipaddress.ip_address(name).is_loopback)


def _host_name(host: str) -> str | None:
    """The name of a Host header (`name`, `name:port`, `[v6]:port`), lower case; None if bad."""
    try:
        parts = urlsplit(f"//{host}")
        name, _ = parts.hostname, parts.port
    except ValueError:
        return None
    if not name or parts.username is not None or parts.path or parts.query:
        return None
    return name.rstrip(".")


def _site(url: str) -> tuple[str, int | None] | None:
    """(name, port) of an `http(s)://` URL, port None when it is the scheme's default."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    return parts.hostname.rstrip("."), None if port == _DEFAULT_PORTS[parts.scheme] else port


class HostGuard:
    """The host and origin checks of one server.

    Args:
      host: the address the server listens on (`--host`).
      allow_hosts: other names it answers to (`--allow-host`); "*" turns the host check
        off (for a server behind a proxy that checks names itself).
    """

    def __init__(self, host: str, allow_hosts: Iterable[str] = ()) -> None:
        host = host.strip("[]").lower()
        extra = [name.strip("[]").lower().rstrip(".") for name in allow_hosts]
        self.any_name = "*" in extra
        self.any_ip = host in _WILDCARDS
        self.names = {host, *extra} - {"*"}
        if self.any_ip or _is_loopback(host):
            self.names |= _LOOPBACK_NAMES

    def host_refusal(self, host: str | None) -> str | None:
        """Why a request with this Host header is refused, or None if it is answered."""
        if self.any_name:
            return None
        if not host:
            return "the request has no Host header"
        name = _host_name(host)
        if name is None:
            return f"the Host header {host[:80]!r} is not a host name"
        if name in self.names or (self.any_ip and _is_ip(name)):
            return None
        return (
            f"this server does not answer to {name!r}; start it with --allow-host {name} "
            "if that name is meant to reach it"
        )

    def origin_refusal(self, method: str, headers: Mapping[str, str]) -> str | None:
        """Why a request from another site is refused (None: same site, or no browser).

        Args:
          method: the request's method.
          headers: its headers, names in lower case.
        """
        if method in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        if origin is not None:
            # The page's origin is the name and port it was loaded from: the Host.
            mine = _site(f"http://{headers.get('host', '')}")
            if mine is None or _site(origin) != mine:
                return (
                    f"a request from another site ({origin[:80]}) is refused: only the "
                    "board's own page may play"
                )
            return None
        site = headers.get("sec-fetch-site")
        if site is not None and site not in {"same-origin", "none"}:
            return f"a request from another site (Sec-Fetch-Site: {site[:40]}) is refused"
        return None
