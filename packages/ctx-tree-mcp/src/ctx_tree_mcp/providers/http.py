"""The one JSON-over-HTTP call of the providers (httpx2, the MCP SDK's HTTP client): bounded
timeouts, retries after 429/503 that honour ``Retry-After``, and every failure turned into
``ProviderUnavailable`` (or its ``InputRejected``) with a one-line reason
(docs/search.md#when-a-provider-misbehaves). Which proxy a request goes through is decided
here, once per server (:func:`route`, docs/search.md#proxies): never one for a server on this
machine, and a failure through one names it."""

from __future__ import annotations

import json
import logging
import os
import re
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future
from typing import Any

from ctx_tree_walkers import InputRejected, ProviderUnavailable

log = logging.getLogger(__name__)

#: How the reason of a request that never reached the server starts (nothing sent, so
#: nothing spent: ``anthropic.py`` counts no tokens for it).
NOT_CONNECTED = "could not connect"

#: Statuses that say the service is busy: retried after ``Retry-After`` or the backoff.
BUSY = frozenset({429, 503})
#: Statuses about the service, not the input (auth, route, gateway): never split for.
SERVICE = frozenset({401, 403, 404, 405, 407, 408, 429, 502, 503, 504})
#: Backoff without ``Retry-After``: BASE x 2^attempt seconds, each wait at most CAP.
BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 8.0


def backoff_s(attempt: int) -> float:
    """The wait before retry ``attempt`` (0-based) when the server gave no ``Retry-After``."""
    return min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2.0**attempt)


def parse_retry_after(value: str | None, now_s: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delay-seconds (``"120"``) or an
    HTTP-date (``"Wed, 21 Oct 2026 07:28:00 GMT"``, a past one is 0). None when absent or
    unreadable (RFC 9110 section 10.2.3)."""
    if not value or not value.strip():
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now_s is None else now_s))


def _on_this_machine(host: str) -> bool:
    """``localhost``, a ``.localhost`` name (RFC 6761), a loopback address (127.0.0.0/8, ::1)."""
    import ipaddress

    host = host.lower().rstrip(".")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _no_proxy(host: str, entries: str) -> bool:
    """``NO_PROXY``'s entries (comma-separated: ``*``, a name or ``.suffix`` matching the name
    and its subdomains, an address, a CIDR block; a ``:port`` is ignored) cover ``host``."""
    import ipaddress

    host = host.lower().rstrip(".")
    for entry in (e.strip().lower() for e in entries.split(",")):
        if entry == "*":
            return True
        if not entry:
            continue
        if "/" in entry:
            try:
                if ipaddress.ip_address(host.strip("[]")) in ipaddress.ip_network(
                    entry.strip("[]"), strict=False
                ):
                    return True
            except ValueError:
                pass
            continue
        if entry.count(":") == 1:  # name:port (an IPv6 address has more colons)
            entry = entry.split(":")[0]
        entry = entry.strip("[]").lstrip(".")
        if host.strip("[]") == entry or host.endswith("." + entry):
            return True
    return False


def route(url: str, environ: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """The proxy a request for ``url`` goes through, as ``(proxy URL, the variable naming
    it)``, or None for a direct connection. Direct always for a server on this machine
    (``localhost``, ``*.localhost``, 127.0.0.0/8, ``::1``: a proxy elsewhere cannot reach it),
    and for a host ``NO_PROXY`` covers; else ``https_proxy``/``HTTPS_PROXY`` for https (the
    lower-case name first, as curl and Python read them), ``http_proxy``/``HTTP_PROXY`` for
    http, then ``all_proxy``/``ALL_PROXY``. A proxy without a scheme is ``http://``."""
    from urllib.parse import urlsplit

    env = os.environ if environ is None else environ
    parts = urlsplit(url)
    host = parts.hostname or ""
    if _on_this_machine(host):
        return None
    no_proxy = env.get("no_proxy") or env.get("NO_PROXY") or ""
    if no_proxy and _no_proxy(host, no_proxy):
        return None
    for scheme in (parts.scheme.lower(), "all"):
        for name in (f"{scheme}_proxy", f"{scheme.upper()}_PROXY"):
            value = env.get(name, "").strip()
            if value:
                return (value if "://" in value else f"http://{value}"), name
    return None


class Http:
    """A provider's pooled connection to one server, and the proxy its requests go through
    (:func:`route`; None: direct). Timeouts are given per request."""

    __slots__ = ("client", "proxy", "url")

    def __init__(self, client: Any, proxy: tuple[str, str] | None, url: str) -> None:
        self.client, self.proxy, self.url = client, proxy, url

    @property
    def is_closed(self) -> bool:
        """Whether :meth:`close` has run."""
        return bool(self.client.is_closed)

    def close(self) -> None:
        """Close the connection pool."""
        self.client.close()

    def via(self) -> str:
        """`` through the proxy URL (VARIABLE; NO_PROXY=host goes direct)`` for a message, or
        nothing for a direct connection. The proxy's user and password are left out."""
        if self.proxy is None:
            return ""
        from urllib.parse import urlsplit

        proxy, name = self.proxy
        parts = urlsplit(proxy)
        shown = f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")
        host = urlsplit(self.url).hostname or ""
        return f" through the proxy {shown} ({name}; NO_PROXY={host} goes direct)"


def client(url: str) -> Http:
    """A pooled client for the server at ``url``, routed as :func:`route` decides: through the
    proxy it names, or directly (the environment's proxies are set aside for this host)."""
    from urllib.parse import urlsplit

    import httpx2

    proxy = route(url)
    if proxy is not None:
        return Http(httpx2.Client(follow_redirects=False, proxy=proxy[0]), proxy, url)
    host = urlsplit(url).hostname or ""
    pattern = f"all://[{host}]" if ":" in host else f"all://{host}"
    return Http(httpx2.Client(follow_redirects=False, mounts={pattern: None}), None, url)


def post_json(
    http: Http,
    url: str,
    body: dict[str, Any],
    *,
    timeout_ms: int,
    headers: dict[str, str] | None = None,
    what: str,
    retries: int = 0,
    max_wait_s: float = 0.0,
) -> Any:
    """POST ``body`` as JSON to ``url``; the decoded JSON answer, each attempt within twice
    ``timeout_ms`` whatever the server does.

    After a 429 or 503 the request is sent again, at most ``retries`` times, once the
    server's ``Retry-After`` (seconds or HTTP-date) has passed, else after an exponential
    backoff (:func:`backoff_s`). A wait longer than ``max_wait_s`` is not waited here: the
    error is raised with ``retry_after_s`` set, and the caller keeps away that long.

    Each of connect, write and read waits at most ``timeout_ms``, and the body stops being
    read once it has passed since the start. A server that trickles its answer a byte at a
    time passes every one of those waits: the request runs on a worker thread, and the caller
    stops waiting for it at twice ``timeout_ms`` (the worker ends on its own, its answer
    dropped; docs/search.md#fallbacks-never-a-hang-never-a-crash). Raises
    :class:`ProviderUnavailable` naming ``what``, the cause (unreachable, timed out, an HTTP
    error status with the server's message, a body that is not JSON) and the proxy the
    request went through, if any; an HTTP error that is not about the service
    (:data:`SERVICE`) raises :class:`InputRejected`."""
    attempt = 0
    while True:
        try:
            return _attempt(http, url, body, timeout_ms, headers, what)
        except ProviderUnavailable as exc:
            if exc.status not in BUSY:
                raise
            wait = exc.retry_after_s if exc.retry_after_s is not None else backoff_s(attempt)
            exc.retry_after_s = wait
            if attempt >= retries or wait > max_wait_s:
                raise
            time.sleep(wait)
            attempt += 1


def _attempt(
    http: Http,
    url: str,
    body: dict[str, Any],
    timeout_ms: int,
    headers: dict[str, str] | None,
    what: str,
) -> Any:
    """One request of :func:`post_json`, on a worker thread the caller stops waiting for."""
    answer: Future[Any] = Future()

    def run() -> None:
        try:
            answer.set_result(_post(http, url, body, timeout_ms, headers, what))
        except BaseException as exc:  # handed to the caller
            answer.set_exception(exc)

    threading.Thread(target=run, name="ctx-tree-provider-request", daemon=True).start()
    try:
        return answer.result(timeout=2 * timeout_ms / 1000)
    except TimeoutError:
        raise _timed_out(what, url, timeout_ms, http) from None


def _timed_out(what: str, url: str, timeout_ms: int, http: Http) -> ProviderUnavailable:
    return ProviderUnavailable(f"{what} at {url} timed out after {timeout_ms} ms{http.via()}")


def _post(
    http: Http,
    url: str,
    body: dict[str, Any],
    timeout_ms: int,
    headers: dict[str, str] | None,
    what: str,
) -> Any:
    """:func:`post_json`'s request, on the calling thread."""
    import httpx2

    seconds = timeout_ms / 1000
    deadline = time.monotonic() + seconds
    try:
        with http.client.stream(
            "POST", url, json=body, headers=headers, timeout=httpx2.Timeout(seconds)
        ) as response:
            parts = []
            for part in response.iter_bytes():
                parts.append(part)
                if time.monotonic() > deadline:
                    raise _timed_out(what, url, timeout_ms, http)
    except httpx2.TimeoutException:
        raise _timed_out(what, url, timeout_ms, http) from None
    except httpx2.HTTPError as exc:
        log.info("%s at %s: %s: %s", what, url, type(exc).__name__, exc)
        raise ProviderUnavailable(
            f"{what} at {url} unreachable ({_failed(exc)}){http.via()}"
        ) from None
    raw = b"".join(parts)
    status = response.status_code
    if status >= 400:
        detail = raw.decode("utf-8", "replace").strip().replace("\n", " ")[:200]
        message = f"{what} at {url} answered HTTP {status}{http.via()}: {detail}"
        if status in SERVICE:
            after = parse_retry_after(response.headers.get("retry-after"))
            raise ProviderUnavailable(message, status=status, retry_after_s=after)
        raise InputRejected(message, status=status)
    try:
        return json.loads(raw)
    except ValueError:
        raise ProviderUnavailable(
            f"{what} at {url} answered something that is not JSON{http.via()}"
        ) from None


def _failed(exc: Exception) -> str:
    """A transport failure as a user reads it: what happened, the system's words and, when
    nothing answered, what to do (``could not connect: Connection refused; start it or
    correct the URL``); its class goes to the log (:func:`_post`)."""
    import httpx2

    detail = re.sub(r"^\[Errno -?\d+\]\s*", "", str(exc).strip())
    if isinstance(exc, httpx2.ConnectError):
        return f"{NOT_CONNECTED}: {detail or 'no answer'}; start it or correct the URL"
    return f"the connection failed: {detail}" if detail else "the connection failed"
