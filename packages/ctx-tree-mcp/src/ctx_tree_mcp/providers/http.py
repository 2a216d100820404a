"""The one JSON-over-HTTP call of the providers (httpx2, the MCP SDK's HTTP client): bounded
timeouts, and every failure turned into ``ProviderUnavailable`` with a one-line reason."""

from __future__ import annotations

import json
import time
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
    """POST ``body`` as JSON to ``url`` within ``timeout_ms``; the decoded JSON answer.

    Each of connect, write and read waits at most ``timeout_ms``, and the body stops being
    read once it has passed since the start, so a server that trickles its body a byte at a
    time is cut off within about twice ``timeout_ms`` of a prompt header; headers trickled a
    byte at a time are bounded per read only (docs/search.md#fallbacks-never-a-hang-never-a-crash).
    Raises :class:`ProviderUnavailable` naming
    ``what`` and the cause: unreachable, timed out, an HTTP error status (with the server's
    message) or a body that is not JSON."""
    import httpx2

    seconds = timeout_ms / 1000
    deadline = time.monotonic() + seconds
    timed_out = ProviderUnavailable(f"{what} at {url} timed out after {timeout_ms} ms")
    try:
        with http.stream(
            "POST", url, json=body, headers=headers, timeout=httpx2.Timeout(seconds)
        ) as response:
            parts = []
            for part in response.iter_bytes():
                parts.append(part)
                if time.monotonic() > deadline:
                    raise timed_out
    except httpx2.TimeoutException:
        raise timed_out from None
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
