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


def test_a_frame_in_installed_code_gives_way_to_the_projects_frames_and_tests() -> None:
    """The source above a ``>`` line in installed code (``site-packages``) comes after the
    project's frames and the rest of each failing test's code: numpy's lines around its
    ``raise`` crowded out the project's frame that used the missing name."""
    test_code = [f"        value_{i} = table.column({i})" for i in range(10)]
    library = [f"            # numpy check {i} of the attribute" for i in range(12)]
    lines = [
        "=" * 30 + " FAILURES " + "=" * 30,
        "_" * 20 + " test_from_table " + "_" * 20,
        "",
        "    def test_from_table():",
        *test_code,
        ">       from pkg.table import Table",
        "",
        "tests/test_q.py:1400: ",
        "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ",
        *(
            ln
            for k in range(5)
            for ln in (
                f"pkg/table/mod_{k}.py:{k + 10}: in <module>",
                f"    from .mod_{k + 1} import helper_{k}",
            )
        ),
        "pkg/table/_np_utils.pyx:15: in init pkg.table._np_utils",
        "    DTYPE = np.int",
        "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ ",
        "",
        "    def __getattr__(attr):",
        *library,
        ">           raise AttributeError(__former_attrs__[attr])",
        "E           AttributeError: module 'numpy' has no attribute 'int'.",
        "",
        "/opt/env/lib/python3.9/site-packages/numpy/__init__.py:319: AttributeError",
        "=" * 20 + " short test summary info " + "=" * 20,
        "FAILED tests/test_q.py::test_from_table - AttributeError: module 'numpy' has...",
        "=" * 20 + " 1 failed, 85 passed in 2.83s " + "=" * 20,
    ]
    found = scan(lines)
    assert found.library == {
        lines.index(">           raise AttributeError(__former_attrs__[attr])")
    }
    text, _ = render_lines(lines, select_lines(found, 420).shown)
    assert "pkg/table/_np_utils.pyx:15: in init pkg.table._np_utils" in text
    assert "    DTYPE = np.int" in text
    assert "value_0 = table.column(0)" in text
    assert "E           AttributeError: module 'numpy' has no attribute 'int'." in text
    assert "numpy check 11 of" not in text
    # with room for it, the library frame's source is shown too
    wide, _ = render_lines(lines, select_lines(found, 1000).shown)
    assert "numpy check 11 of" in wide
