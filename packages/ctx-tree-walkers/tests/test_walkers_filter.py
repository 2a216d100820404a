from __future__ import annotations

import pytest
from ctx_tree_schema import NodeKind
from ctx_tree_store import NewNode
from ctx_tree_walkers import filter_pending, is_progress_line, noise_reason
from walkers_testlib import T0, add_pending, make_config, status_of

BIG = "def handler(request):\n    return respond(request.body)\n" * 3


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\t\n",
        "Downloading foo 10%\nDownloading foo 20%\nDownloading foo 30%\nDownloading foo 40%\n",
        "\r".join(
            f"{i:3d}%|{'█' * (i // 10)}{' ' * (10 - i // 10)}| {i}/100 [00:01<00:02, 30.1it/s]"
            for i in range(0, 101, 5)
        ),
        "\n".join(f"⠋ Installing dependencies ({i}/50)" for i in range(20)),
        "[####      ] 40%\n[#####     ] 50%\n[######    ] 60%\ndone\n[#######   ] 70%\n[########  ] 80%\n",
    ],
)
def test_noise_detected(text: str) -> None:
    assert noise_reason(text) in ("empty", "progress")


@pytest.mark.parametrize(
    "text",
    [
        BIG,
        # coverage table: every line has a percentage, but each names another file
        "src/a.py   120  10  92%\nsrc/b.py    80   2  97%\nsrc/c.py    33  33   0%\nTOTAL 233 45 81%\n",
        # progress in a minority of lines
        "Collecting x\n  Downloading x 50%\nBuilding wheel\nInstalled x\nrunning tests\nok\n",
        "50%\n",  # one line is not spam
    ],
)
def test_not_noise(text: str) -> None:
    assert noise_reason(text) is None


def test_structured_grep_output_only_checked_for_emptiness() -> None:
    grep_out = "\n".join(f"src/m{i}.py:{i}:ratio = {i}0%" for i in range(1, 9))
    assert noise_reason(grep_out) == "progress"  # would be spam by shape alone ...
    assert noise_reason(grep_out, structured=True) is None  # ... but grep answers are kept
    assert noise_reason("", structured=True) == "empty"


def test_progress_line() -> None:
    assert is_progress_line("  45%|████▌     | 45/100")
    assert is_progress_line("[=====>    ] copying")
    assert not is_progress_line("- a markdown item")
    assert not is_progress_line("ratio = a / b")


def test_filter_keeps_everything_ranking_noise_low(store) -> None:
    cfg = make_config()
    keep = add_pending(store, BIG, source="grep://a")
    small = add_pending(store, "tiny", source="grep://b")
    empty = add_pending(store, "", source="grep://c", tool="ctx_tree_grep")
    spam = add_pending(store, "step 1%\nstep 2%\nstep 3%\nstep 4%\nstep 5% " + "x" * 40)
    dup_live = store.insert([NewNode(NodeKind.TOOL_OUTPUT, BIG + "2", source_uri="grep://d")])[0]
    dup = add_pending(store, BIG + "2", source="grep://d")
    same_text_other_source = add_pending(store, BIG + "2", source="grep://e")

    report = filter_pending(store, cfg, now_ms=T0)

    assert (report.promoted, report.too_small, report.duplicate, report.noise) == (6, 2, 1, 1)
    assert report.dropped == 0
    assert report.summary() == (
        "6 promoted (3 ranked low: 2 too small, 1 noise; 1 superseded an older copy)"
    )
    assert store.get(keep).updated_at == T0
    for node_id in (keep, small, empty, spam, dup, same_text_other_source):
        assert status_of(store, node_id) == "live"
    assert store.get(keep).metadata.get("low_rank") is None
    assert store.get(small).metadata["low_rank"] == "too small"
    assert store.get(spam).metadata["low_rank"] == "noise"
    # the older exact copy is superseded by the new one, with an edge
    assert status_of(store, dup_live) == "superseded"
    assert (dup, "supersedes:in") in store.adjacent(dup_live)
    assert store.pending() == []
    assert filter_pending(store, cfg, now_ms=T0).summary() == "nothing pending"


PYTEST_Q = "".join(f"{'.' * 70}{' ' * 6}[{p:3d}%]\n" for p in range(10, 101, 10)) + (
    "700 passed in 12.31s\n"
)
PYTEST_V = (
    "".join(
        f"tests/test_parse.py::test_case[{i}] {'FAILED' if i == 7 else 'PASSED'}  [{i * 10:3d}%]\n"
        for i in range(1, 11)
    )
    + "FAILED tests/test_parse.py::test_case[7] - AssertionError: boom\n"
)


@pytest.mark.parametrize("log", [PYTEST_Q, PYTEST_V])
def test_test_runner_logs_are_not_progress_and_stay_searchable(store, log: str) -> None:
    """pytest -q / -v lines end in ``[ NN%]``: results, not a progress bar. The run stays live,
    full rank, gettable and found by search right after the walk."""
    assert noise_reason(log) is None
    run = add_pending(store, log, source="cmd://pytest")
    filter_pending(store, make_config(), now_ms=T0)
    node = store.get(run)
    assert node is not None and node.status == "live"
    assert "low_rank" not in node.metadata
    assert [h.node.id for h in store.search("passed")] == [run]


def test_progress_spam_is_kept_but_listed_after_real_output(store) -> None:
    spam = "\n".join(f"Downloading wheel {p}% 3.2MB/s" for p in range(0, 100, 5))
    noise = add_pending(store, spam, source="cmd://pip-a")
    real = add_pending(store, "Downloading wheel finished; wheel installed " * 3, source="cmd://b")
    report = filter_pending(store, make_config(), now_ms=T0)
    assert report.noise == 1 and report.promoted == 2
    assert store.get(noise).metadata["low_rank"] == "noise"
    assert [h.node.id for h in store.search("downloading wheel")] == [real, noise]
