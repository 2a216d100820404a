"""Real small, full or read-only file systems for tests: a tmpfs or a bind mount made in a
private mount namespace of a child process, so nothing outlives the child and the machine's
own mounts are never touched.

As root (CI) the child enters a new mount namespace; elsewhere a new user namespace maps the
user to root in it, where the kernel allows that (``kernel.unprivileged_userns_clone``,
``user.max_user_namespaces``). Tests that need one are marked :data:`needs_mounts`, which
skips them with the kernel's own words when neither works.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from functools import lru_cache

import pytest


def _unshare() -> list[str]:
    """The ``unshare`` command line entering a private mount namespace (and a user namespace
    mapping this user to root when not root)."""
    user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    return ["unshare", *user, "--mount", "--propagation", "private"]


def private_mount(
    script: str, *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run ``sh -c script sh args...`` in a private mount namespace (see the module)."""
    return subprocess.run(
        [*_unshare(), "sh", "-c", script, "sh", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@lru_cache(maxsize=1)
def why_no_mounts() -> str | None:
    """None when a tmpfs can be mounted in a private namespace here, else why not."""
    if shutil.which("unshare") is None:
        return "no unshare (util-linux) to make a private mount namespace"
    done = private_mount("mount -t tmpfs -o size=64k tmpfs /mnt")
    if done.returncode != 0:
        return f"the kernel refuses a private tmpfs mount here: {done.stderr.strip()}"
    return None


needs_mounts = pytest.mark.skipif(
    why_no_mounts() is not None, reason=f"needs a real small file system: {why_no_mounts()}"
)
