from __future__ import annotations

import pytest
from ctx_tree_schema import NodeKind, NodeStatus
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


def test_filter_promotes_and_drops(store) -> None:
    cfg = make_config()
    keep = add_pending(store, BIG, source="grep://a")
    small = add_pending(store, "tiny", source="grep://b")
    empty = add_pending(store, "", source="grep://c", tool="ctx_tree_grep")
    spam = add_pending(store, "step 1%\nstep 2%\nstep 3%\nstep 4%\nstep 5% " + "x" * 40)
    dup_live = store.insert([NewNode(NodeKind.TOOL_OUTPUT, BIG + "2", source_uri="grep://d")])[0]
    dup = add_pending(store, BIG + "2", source="grep://d")
    same_text_other_source = add_pending(store, BIG + "2", source="grep://e")

    report = filter_pending(store, cfg, now_ms=T0)

    assert (report.promoted, report.too_small, report.duplicate, report.noise) == (2, 2, 1, 1)
    assert report.summary() == "2 promoted, 4 dropped (2 too small, 1 duplicate, 1 noise)"
    assert status_of(store, keep) == "live"
    assert store.get(keep).updated_at == T0
    assert status_of(store, same_text_other_source) == "live"
    assert status_of(store, dup_live) == "live"
    for gone in (small, empty, spam, dup):
        assert store.get(gone) is None
    assert store.pending() == []
    assert filter_pending(store, cfg, now_ms=T0).summary() == "nothing pending"


def test_duplicates_within_one_batch_keep_the_first(store) -> None:
    a = add_pending(store, BIG, source="grep://same")
    b = add_pending(store, BIG, source="grep://same")
    report = filter_pending(store, make_config(), now_ms=T0)
    assert (report.promoted, report.duplicate) == (1, 1)
    assert status_of(store, a) == "live" and store.get(b) is None


def test_min_size_is_configurable(store) -> None:
    node = add_pending(store, "short but real", source="grep://s")
    filter_pending(store, make_config(capture={"filterMinSize": 5}), now_ms=T0)
    assert status_of(store, node) == "live"


def test_batches_and_stop_between_them(store) -> None:
    ids = [add_pending(store, f"{BIG} {i}", source=f"grep://{i}") for i in range(25)]
    calls = []

    def keep_going() -> bool:
        calls.append(1)
        return len(calls) < 2

    report = filter_pending(store, make_config(), now_ms=T0, keep_going=keep_going, batch_size=10)
    assert report.promoted == 20 and report.stopped
    statuses = [status_of(store, i) for i in ids]
    assert statuses == ["live"] * 20 + ["pending"] * 5  # whole batches only, oldest first


def test_node_handled_elsewhere_is_skipped(store, monkeypatch) -> None:
    node = add_pending(store, BIG, source="grep://x")
    real_pending = store.pending

    def pending_then_promoted(limit: int = 500):
        batch = real_pending(limit)
        if batch:  # another writer promotes it between the read and the transaction
            store.set_status([node], NodeStatus.LIVE)
        return batch

    monkeypatch.setattr(store, "pending", pending_then_promoted)
    report = filter_pending(store, make_config(), now_ms=T0)
    assert report.skipped == 1 and report.promoted == 0
