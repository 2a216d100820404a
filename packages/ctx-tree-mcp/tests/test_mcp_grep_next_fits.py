"""A grep answer too big for its budget always ends with the exact call that gets the rest,
whatever the budget and however long its notes (docs/tools.md, "Footer and manifest")."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from ctx_tree_compose import estimate_tokens
from ctx_tree_mcp.app import App
from ctx_tree_mcp.tools.grep import grep


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("trees")
    many, one = base / "many", base / "one"
    many.mkdir()
    one.mkdir()
    for i in range(110):  # over capture.maxBytes in all: the answer has a note about it
        (many / f"module_with_a_rather_long_name_{i}.py").write_text(
            "".join(
                f"def function_{j}_of_a_module(argument_one, argument_two):\n    return {j}\n"
                for j in range(20)
            )
        )
    (one / "big.py").write_text("".join(f"x = func_1({j})\n" for j in range(11_111)))
    return {"many": many, "one": one}


@pytest.mark.parametrize("budget", [100, 120, 150, 200, 300, 1000, 5000, 50_000])
@pytest.mark.parametrize(("tree", "pattern"), [("many", "def "), ("one", "func_1")])
def test_the_next_call_always_fits(
    trees: dict[str, Path], tmp_path: Path, tree: str, pattern: str, budget: int
) -> None:
    app = App(trees[tree], home=tmp_path / "home")
    try:
        text = str(asyncio.run(grep(app, pattern, budget_tokens=budget)))
    finally:
        app.close()
    assert estimate_tokens(text) <= budget
    last = text.splitlines()[-1]
    if budget < 20_000:  # the answer shows less than the store keeps: the call that gets it
        assert last.startswith("next: "), text
    else:  # all the store keeps is shown: the rest, past capture.maxBytes, is not stored
        assert last.startswith("more: the rest was not stored"), text
