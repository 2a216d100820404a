"""A cut pytest run shows the chain of traceback frames from the failing test to the line
that raised (each frame's location and statement), before a library frame's source."""

from __future__ import annotations

from ctx_tree_mcp.engines.shell.digest import render_lines, scan, select_lines


def pytest_output() -> list[str]:
    library = [f"        # library comment line {i} explaining the lookup" for i in range(40)]
    return [
        "============================= test session starts ==============================",
        "collected 89 items",
        "",
        "tests/test_q.py " + "." * 60 + "F" + "." * 10 + " [100%]",
        "",
        "=================================== FAILURES ===================================",
        "___________________________ test_from_table ___________________________",
        "",
        "    def test_from_table():",
        '        """Units from tables are respected."""',
        ">       from pkg.table import Table",
        "",
        "tests/test_q.py:1400: ",
        "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ",
        "pkg/table/__init__.py:41: in <module>",
        "    from .column import Column",
        "pkg/table/column.py:28: in <module>",
        "    from .np_utils import fix_column_name",
        "pkg/table/_np_utils.pyx:15: in init pkg.table._np_utils",
        "    DTYPE = np.int",
        "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ",
        "",
        "attr = 'int'",
        "",
        "    def __getattr__(attr):",
        *library,
        ">           raise AttributeError(__former_attrs__[attr])",
        "E           AttributeError: module 'numpy' has no attribute 'int'.",
        "",
        "lib/site-packages/numpy/__init__.py:284: AttributeError",
        "=========================== short test summary info ============================",
        "FAILED tests/test_q.py::test_from_table - AttributeError: module 'numpy' has...",
        "============= 1 failed, 85 passed, 1 xfailed, 19 warnings in 2.83s =============",
    ]


def test_the_frames_from_the_test_to_the_raise_are_shown() -> None:
    lines = pytest_output()
    text, _ = render_lines(lines, select_lines(scan(lines), 600).shown)
    for frame in (
        "pkg/table/__init__.py:41: in <module>",
        "pkg/table/_np_utils.pyx:15: in init pkg.table._np_utils",
        "    DTYPE = np.int",
        "    from .np_utils import fix_column_name",
    ):
        assert frame in text
    assert "E           AttributeError: module 'numpy' has no attribute 'int'." in text
    assert "1 failed, 85 passed" in text
    # the library frame's long source is what gives way
    assert "library comment line 5 " not in text
