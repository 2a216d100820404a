"""The one JSON-over-HTTP call of the providers (httpx2, the MCP SDK's HTTP client): bounded
timeouts, and every failure turned into ``ProviderUnavailable`` with a one-line reason."""

from __future__ import annotations

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
    """POST ``body`` as JSON to ``url`` within ``timeout_ms`` (connect, write, read and pool
    each); the decoded JSON answer. Raises :class:`ProviderUnavailable` naming ``what`` and
    the cause: unreachable, timed out, an HTTP error status (with the server's message) or a
    body that is not JSON."""
    import httpx2

    seconds = timeout_ms / 1000
    try:
        response = http.post(url, json=body, headers=headers, timeout=httpx2.Timeout(seconds))
    except httpx2.TimeoutException:
        raise ProviderUnavailable(f"{what} at {url} timed out after {timeout_ms} ms") from None
    except httpx2.HTTPError as exc:
        raise ProviderUnavailable(
            f"{what} at {url} unreachable ({type(exc).__name__}: {exc})"
        ) from None
    if response.status_code >= 400:
        detail = response.text.strip().replace("\n", " ")[:200]
        raise ProviderUnavailable(f"{what} at {url} answered HTTP {response.status_code}: {detail}")
    try:
        return response.json()
    except ValueError:
        raise ProviderUnavailable(f"{what} at {url} answered something that is not JSON") from None
