"""A tool call that fails on a bug of ours answers ``isError`` in words, with what to do; the
exception's class and traceback go to the server's log (serve/server.py ``error_text``)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from ctx_tree_mcp.app import App


def test_a_bug_answers_in_words_and_logs_its_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from ctx_tree_mcp.serve import server
    from ctx_tree_mcp.tools import registry

    async def buggy(_app: object, _name: str, _arguments: object) -> object:
        raise KeyError("chunk_ids")

    monkeypatch.setattr(registry, "call_tool", buggy)
    (tmp_path / "proj").mkdir()
    app = App(tmp_path / "proj", home=tmp_path / "home")
    try:
        with caplog.at_level(logging.ERROR, logger=server.__name__):
            text, is_error = asyncio.run(server.answer(app, "ctx_tree_read", {"path": "a.py"}))
    finally:
        app.close()
    assert is_error and text.startswith("internal error: ctx_tree_read failed on a bug"), text
    assert "changed nothing" in text and "use the host's own tool" in text
    assert "KeyError" not in text and "chunk_ids" not in text  # before: (KeyError: 'chunk_ids')
    assert "KeyError: 'chunk_ids'" in caplog.text  # the traceback, for the bug report
