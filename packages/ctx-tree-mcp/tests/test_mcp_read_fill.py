"""A whole read too big for its budget fills the room its outline leaves: when no whole chunk
of the top or the end fits, the end's last lines (cut at a line) do."""

from __future__ import annotations

from pathlib import Path

from ctx_tree_compose import estimate_tokens
from ctx_tree_mcp.app import App
from ctx_tree_mcp.tools.read import read


def test_whole_read_fills_the_room_left_with_the_end(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    funcs = [f"def helper_{i}(value):\n    return value + {i}\n\n" for i in range(60)]
    body = "".join(
        f"    total_{j} = compute_step_{j}(config, state)  # step {j}\n" for j in range(40)
    )
    last = f"def finalize(config, state):\n{body}    return final_marker_value\n"
    # the import block and the last function are each too big to fit beside the outline
    imports = "".join(f"import module_number_{i}\n" for i in range(70))
    (root / "big.py").write_text(imports + "\n" + "".join(funcs) + last)
    app = App(root, home=tmp_path / "home")
    try:
        answer = read(app, "big.py", budget_tokens=1000)
    finally:
        app.close()
    assert "## outline" in answer
    assert "return final_marker_value" in answer  # the file's last line
    assert "total_39 = compute_step_39" in answer
    assert estimate_tokens(answer) <= 1000
    assert "shown: outline, lines " in answer


def test_a_tight_outline_folds_members_into_their_class_row(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    methods = "".join(
        f"    def method_number_{i}(self, value):\n        return value * {i}\n\n"
        for i in range(45)
    )
    tail = "".join(f"    total_{j} = step_{j}(state)\n" for j in range(15))
    (root / "big.py").write_text(
        f"class Engine:\n{methods}\ndef finish(state):\n{tail}    return final_marker_value\n"
    )
    app = App(root, home=tmp_path / "home")
    try:
        answer = read(app, "big.py", budget_tokens=1000)
    finally:
        app.close()
    # every method's name, on its class's row; the room saved shows the end of the file
    row = next(line for line in answer.splitlines() if "class Engine:" in line)
    assert all(f"method_number_{i}" in row for i in range(45))
    assert "return final_marker_value" in answer and "total_0 = step_0(state)" in answer
    assert estimate_tokens(answer) <= 1000


def test_an_outline_past_half_the_room_lists_what_the_code_does_not_show(tmp_path: Path) -> None:
    """When no form of the outline takes at most half the room (many top-level symbols), the
    code takes its half first, each side within half of it first (a long last function does
    not take it all), and the outline lists the symbols that code does not show whole: the
    module's first definitions, which the rest of the file uses, are shown as code."""
    root = tmp_path / "proj"
    root.mkdir()
    first = (
        "import os\n\nSHARED_CONFIG = dict(mode='strict')\n\n\n"
        "def fixture_root(base):\n    fixture_root_path = base / 'cases'\n"
        "    return fixture_root_path\n\n\n"
    )
    tests = "".join(
        f"def test_reader_behaviour_number_{i}(fixture_root):\n"
        f"    assert fixture_root.exists() and {i} >= 0\n\n\n"
        for i in range(45)
    )
    body = "".join(f"    assert check_step_{j}(fixture_root)\n" for j in range(30))
    (root / "test_many.py").write_text(first + tests + f"def test_last(fixture_root):\n{body}")
    app = App(root, home=tmp_path / "home")
    try:
        answer = read(app, "test_many.py", budget_tokens=1000)
    finally:
        app.close()
    assert estimate_tokens(answer) <= 1000
    assert "    fixture_root_path = base / 'cases'" in answer
    assert "SHARED_CONFIG = dict(mode='strict')" in answer
    outline = answer.split("## lines", 1)[0]
    assert "fixture_root\n" not in outline  # shown as code: not listed
    assert "test_reader_behaviour_number_20" in outline
    assert "outline cut; full outline: " in answer
