"""The one JSON-over-HTTP call of the providers (httpx2, the MCP SDK's HTTP client): bounded
timeouts, and every failure turned into ``ProviderUnavailable`` with a one-line reason."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import Future
from typing import Any

from ctx_tree_walkers import ProviderUnavailable


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
) -> Any:
    """POST ``body`` as JSON to ``url``; the decoded JSON answer, within twice ``timeout_ms``
    whatever the server does.

    Each of connect, write and read waits at most ``timeout_ms``, and the body stops being
    read once it has passed since the start. A server that trickles its answer a byte at a
    time passes every one of those waits: the request runs on a worker thread, and the caller
    stops waiting for it at twice ``timeout_ms`` (the worker ends on its own, its answer
    dropped; docs/search.md#fallbacks-never-a-hang-never-a-crash). Raises
    :class:`ProviderUnavailable` naming ``what`` and the cause: unreachable, timed out, an
    HTTP error status (with the server's message) or a body that is not JSON."""
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
    if response.status_code >= 400:
        detail = raw.decode("utf-8", "replace").strip().replace("\n", " ")[:200]
        raise ProviderUnavailable(f"{what} at {url} answered HTTP {response.status_code}: {detail}")
    try:
        return json.loads(raw)
    except ValueError:
        raise ProviderUnavailable(f"{what} at {url} answered something that is not JSON") from None
