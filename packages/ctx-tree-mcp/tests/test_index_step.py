"""The index's per-file step at scale (docs/index.md, "Cost and yielding"): what it makes of
a file is what a read makes of it, whatever shortcut it takes."""

from __future__ import annotations

import hashlib

from ctx_tree_compose import estimate_tokens
from ctx_tree_mcp.engines.files.filecache import build_nodes


def _chunks(tmp_path, name: str, text: str) -> list[tuple[int, int]]:
    data = text.encode()
    path = tmp_path / name
    path.write_bytes(data)
    _root, chunks, _outline = build_nodes(
        str(path), name, data, hashlib.sha256(data).hexdigest(), 0, 1 << 24
    )
    return [tuple(c.metadata["lines"]) for c in chunks]


def _text_file(line: str, n: int) -> str:
    return "".join(f"{line} {i}\n" + ("\n" if i % 7 == 6 else "") for i in range(n))


def test_ascii_lines_of_a_file_with_one_accent_are_sized_as_in_an_ascii_file(tmp_path) -> None:
    # prose ASCII lines where ctx-tree's estimate and characters / 4 differ
    plain = _text_file("the quick brown fox jumps over the lazy dog again and again", 400)
    accented = "# café\n" + plain
    ascii_only = "# cafe\n" + plain
    assert estimate_tokens(plain) != -(-len(plain) // 4)
    assert _chunks(tmp_path, "a.txt", accented) == _chunks(tmp_path, "b.txt", ascii_only)


def test_lines_of_other_scripts_are_sized_by_the_estimate(tmp_path) -> None:
    # CJK: about a token a character, four times what characters / 4 says
    cjk = _text_file("本工具在后台静默运行并把结果保存到本地数据库里面以便以后查询使用", 300)
    latin = _text_file("abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvw", 300)
    assert len(_chunks(tmp_path, "c.txt", cjk)) > 2 * len(_chunks(tmp_path, "d.txt", latin))
