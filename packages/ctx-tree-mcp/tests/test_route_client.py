"""The routed command's client (``wire/route_client.py``): it prints the server's answer, or the
output unchanged whenever the server cannot answer, and never fails the command."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from ctx_tree_mcp.route.router import client_path

OUTPUT = b"".join(b"line %d\n" % i for i in range(5000))


def _client(path: str, data: bytes, timeout: float = 30) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-I", "-S", client_path(), "grep", "2000", path, "tok1"],
        input=data,
        capture_output=True,
        timeout=timeout,
    )


class _Server:
    """A unix socket that records what one client sent and answers ``reply`` (or closes at
    once when ``reply`` is None)."""

    def __init__(self, path: str, reply: bytes | None) -> None:
        self.got = b""
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(1)
        self.reply = reply
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            if self.reply is None:
                return
            try:
                while chunk := conn.recv(65536):
                    self.got += chunk
                conn.sendall(self.reply)
            except OSError:  # the client was stopped
                pass

    def close(self) -> None:
        self.thread.join(10)
        self.sock.close()


@pytest.fixture
def sock_path(tmp_path: Path) -> str:
    return str(tmp_path / "s.sock")


def test_no_server_prints_the_output_unchanged(sock_path: str) -> None:
    done = _client(sock_path, OUTPUT)
    assert (done.returncode, done.stdout, done.stderr) == (0, OUTPUT, b"")


def test_the_server_gets_the_header_and_the_whole_output(sock_path: str) -> None:
    server = _Server(sock_path, b"Ashort answer\n")
    done = _client(sock_path, OUTPUT)
    server.close()
    assert server.got == b"CTXR1 tok1 2000 grep\n" + OUTPUT
    assert (done.returncode, done.stdout) == (0, b"short answer\n")


def test_a_pass_answer_prints_the_output_as_it_came(sock_path: str) -> None:
    server = _Server(sock_path, b"P")
    done = _client(sock_path, OUTPUT)
    server.close()
    assert done.stdout == OUTPUT


def test_a_server_that_hangs_up_leaves_the_output_as_it_was(sock_path: str) -> None:
    server = _Server(sock_path, None)
    done = _client(sock_path, OUTPUT)
    server.close()
    assert (done.returncode, done.stdout) == (0, OUTPUT)


def test_a_garbled_answer_leaves_the_output_as_it_was(sock_path: str) -> None:
    server = _Server(sock_path, b"Xwhat")
    done = _client(sock_path, b"abc")
    server.close()
    assert done.stdout == b"abc"


def test_bad_arguments_pass_the_output_through() -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-S", client_path(), "only-one"],
        input=b"x\ny\n",
        capture_output=True,
    )
    assert (done.returncode, done.stdout) == (0, b"x\ny\n")


def test_stopped_by_the_host_prints_what_came_so_far(sock_path: str, tmp_path: Path) -> None:
    """The host's timeout ends the command: the output so far is printed, as the native
    command's would be."""
    server = _Server(sock_path, b"Aanswer")
    script = tmp_path / "slow.sh"
    script.write_text("echo first; echo second; sleep 30\n")
    import os
    import signal
    import time

    proc = subprocess.Popen(
        f"bash {script} | {sys.executable} -I -S {client_path()} run 2000 {sock_path} t",
        shell=True,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    time.sleep(1.5)
    os.killpg(proc.pid, signal.SIGTERM)
    out, _ = proc.communicate(timeout=10)
    server.sock.close()
    assert out == b"first\nsecond\n"


def test_the_client_imports_nothing_slow() -> None:
    """Start-up is the routed command's cost: no ``socket``, ``signal``, ``json`` modules."""
    probe = (
        "import sys; sys.argv = ['c'];"
        f"src = open({client_path()!r}).read().replace('os._exit(0)', 'pass');"
        "exec(compile(src, 'c', 'exec'), {'__name__': '__main__'});"
        "print(sorted(m for m in ('socket', 'signal', 'json', 'enum', 'contextlib') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe], capture_output=True, text=True, timeout=30
    )
    assert done.stdout.strip().endswith("[]"), done.stdout + done.stderr
