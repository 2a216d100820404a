"""The one JSON-over-HTTP call of the providers (httpx2, the MCP SDK's HTTP client): bounded
timeouts, retries after 429/503 that honour ``Retry-After``, and every failure turned into
``ProviderUnavailable`` (or its ``InputRejected``) with a one-line reason
(docs/search.md#when-a-provider-misbehaves)."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import Future
from typing import Any

from ctx_tree_walkers import InputRejected, ProviderUnavailable

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


def client() -> Any:
    """A pooled client; timeouts are given per request."""
    import httpx2

    return httpx2.Client(follow_redirects=False)


def post_json(
    http: Any,
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
    :class:`ProviderUnavailable` naming ``what`` and the cause: unreachable, timed out, an
    HTTP error status (with the server's message) or a body that is not JSON; an HTTP error
    that is not about the service (:data:`SERVICE`) raises :class:`InputRejected`."""
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
    http: Any,
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
        raise _timed_out(what, url, timeout_ms) from None


def _timed_out(what: str, url: str, timeout_ms: int) -> ProviderUnavailable:
    return ProviderUnavailable(f"{what} at {url} timed out after {timeout_ms} ms")


def _post(
    http: Any,
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
        with http.stream(
            "POST", url, json=body, headers=headers, timeout=httpx2.Timeout(seconds)
        ) as response:
            parts = []
            for part in response.iter_bytes():
                parts.append(part)
                if time.monotonic() > deadline:
                    raise _timed_out(what, url, timeout_ms)
    except httpx2.TimeoutException:
        raise _timed_out(what, url, timeout_ms) from None
    except httpx2.HTTPError as exc:
        raise ProviderUnavailable(
            f"{what} at {url} unreachable ({type(exc).__name__}: {exc})"
        ) from None
    raw = b"".join(parts)
    status = response.status_code
    if status >= 400:
        detail = raw.decode("utf-8", "replace").strip().replace("\n", " ")[:200]
        message = f"{what} at {url} answered HTTP {status}: {detail}"
        if status in SERVICE:
            after = parse_retry_after(response.headers.get("retry-after"))
            raise ProviderUnavailable(message, status=status, retry_after_s=after)
        raise InputRejected(message, status=status)
    try:
        return json.loads(raw)
    except ValueError:
        raise ProviderUnavailable(f"{what} at {url} answered something that is not JSON") from None
