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
