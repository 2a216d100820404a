"""docs/walkers.md: "Three v1 walkers run on schedule; pending → live → stale → pruned transitions
observable in DB" — through the real tool handlers and a coordinator on a fake clock."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from ctx_tree_mcp.app import App
from ctx_tree_mcp.tools.grep import grep
from ctx_tree_mcp.tools.read import read
from ctx_tree_schema import Filters, NodeStatus
from ctx_tree_store import Store
from ctx_tree_walkers import Coordinator
from ctx_tree_walkers.testing import T0
from ctx_tree_walkers.testing import ManualClock as Timeline

HOUR = 3_600_000
SOURCE = '''"""Payments."""


def charge_customer(customer_id: str, cents: int) -> str:
    """Charge a customer and return the receipt id."""
    receipt = f"rcpt-{customer_id}-{cents}"
    return receipt


class Ledger:
    def record(self, receipt: str) -> None:
        self.entries.append(receipt)
'''


def project(tmp_path: Path) -> App:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "payments.py").write_text(SOURCE)
    return App(root=root, home=tmp_path / "home")


def statuses(db: Store, ids: list[str]) -> list[str]:
    return [db.get(i).status.value for i in ids]


def test_pending_live_stale_pruned_by_the_walkers_on_schedule(tmp_path: Path) -> None:
    app = project(tmp_path)
    every = Filters(status=tuple(NodeStatus))

    async def main() -> None:
        tl = Timeline()
        coord = Coordinator(app.store_file, app.config, now_ms=tl.now, sleep=tl.sleep)
        task = coord.start()
        await tl.settle(1)  # the start-up filter sweep ran on an empty store

        # 1. a grep is captured pending, searchable at once, and the filter promotes it
        answer = await grep(app, "charge_customer")
        assert "payments.py" in answer
        (node,) = app.store.recent(filters=Filters(kind=("tool_output",)))
        assert node.status == NodeStatus.PENDING
        assert node.id in {h.node.id for h in app.store.search("charge_customer")}
        await tl.advance(1000, parties=1)
        assert app.store.get(node.id).status == NodeStatus.LIVE
        assert app.store.get(node.id).updated_at == T0 + 1000

        # 2. a file read stores a live root and chunks; editing the file makes them stale
        read(app, "payments.py", symbol="charge_customer")
        (root,) = [
            n
            for n in app.store.recent(limit=50, filters=Filters(kind=("file_chunk",)))
            if n.metadata.get("is_file_root")
        ]
        ids = [root.id, *(c.id for c in app.store.children(root.id))]
        assert len(ids) >= 3 and set(statuses(app.store, ids)) == {"live"}
        path = app.root / "payments.py"
        path.write_text(SOURCE + "\n# edited\n")
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
        await tl.advance(30_000, parties=1)  # staleness runs at +2 s, then every 30 s
        assert set(statuses(app.store, ids)) == {"stale"}
        stale_at = app.store.get(root.id).updated_at
        assert stale_at == T0 + 2000
        assert coord.state["staleness"].last_summary.startswith("checked 1 file root: 1 stale")

        # 3. a day later the pruner takes them out of the index (rows kept for audit)
        tl.jump(24 * HOUR)
        await tl.advance(300_000, parties=1)
        assert set(statuses(app.store, ids)) == {"pruned"}
        hits = {h.node.id for h in app.store.search("charge_customer receipt", filters=every)}
        assert not hits & set(ids)
        assert node.id in hits  # the live grep output is still found
        assert app.store.integrity() == ("ok", True)

        await coord.stop()
        await task
        runs = {name: st.runs for name, st in coord.state.items()}
        assert runs["filter"] > 1 and runs["staleness"] >= 2 and runs["pruner"] >= 1
        assert all(st.errors == 0 for st in coord.state.values())

    try:
        asyncio.run(main())
    finally:
        app.close()


def test_touched_file_stays_live_and_revived_file_is_not_pruned(tmp_path: Path) -> None:
    """A touch that keeps the bytes is not staleness; a stale file read again unchanged comes
    back live and the pruner leaves it alone."""
    from ctx_tree_walkers import mark_stale, prune

    app = project(tmp_path)
    try:
        read(app, "payments.py")
        path = app.root / "payments.py"
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))  # touch only
        db = app.store
        report = mark_stale(db, app.config, now_ms=T0)
        assert (report.stale, report.touched) == (0, 1)
        assert "1 touched but unchanged (kept live)" in report.summary()

        path.write_text(SOURCE.replace("Payments", "Refunds"))  # same size, new bytes
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 9_000_000_000))
        assert mark_stale(db, app.config, now_ms=T0).changed == 1
        path.write_text(SOURCE)  # reverted: a re-read revives the stored nodes
        read(app, "payments.py")
        report = prune(db, app.config, now_ms=T0 + 48 * HOUR)
        assert report.pruned_stale == 0
    finally:
        app.close()
