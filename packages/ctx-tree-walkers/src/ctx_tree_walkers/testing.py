"""A discrete-event fake clock for driving :class:`Coordinator` instances in tests.

Pass ``now_ms=clock.now`` and ``sleep=clock.sleep`` to each coordinator, then move time with
``await clock.advance(ms, parties)``: scheduling is tested without real sleeps.
"""

from __future__ import annotations

import asyncio
import math

T0 = 1_800_000_000_000  # a fixed epoch ms to start fake clocks at


class ManualClock:
    """A discrete-event fake clock shared by coordinators running in one loop.

    ``sleep`` parks the caller until the fake time reaches its wake-up; :meth:`advance` moves time
    forward event by event, waiting (in real time) until every coordinator is parked first, so
    the result does not depend on thread timing. :meth:`jump` moves the clock without waking
    anyone (a laptop resumed from sleep).
    """

    def __init__(self, t0: int = T0) -> None:
        self.t = t0
        self.waiters: list[tuple[int, asyncio.Future[None]]] = []

    def now(self) -> int:
        """The fake time, epoch ms."""
        return self.t

    async def sleep(self, seconds: float) -> None:
        """Park the caller until the fake time has moved ``seconds`` on."""
        fut = asyncio.get_running_loop().create_future()
        self.waiters.append((self.t + math.ceil(seconds * 1000), fut))
        await fut

    async def settle(self, parties: int, timeout: float = 10.0) -> None:
        """Wait (real time, at most ``timeout`` s) until ``parties`` callers are parked."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while sum(1 for _, f in self.waiters if not f.done()) < parties:
            if loop.time() > end:
                raise TimeoutError(f"only {len(self.waiters)} of {parties} parties parked")
            await asyncio.sleep(0.001)

    def jump(self, ms: int) -> None:
        """Move the clock ``ms`` on without waking anyone (a laptop resumed from sleep)."""
        self.t += ms

    async def advance(self, ms: int, parties: int) -> None:
        """Move the clock ``ms`` on, waking each sleeper in time order once ``parties`` are parked."""
        end = self.t + ms
        while True:
            await self.settle(parties)
            self.waiters = [(w, f) for w, f in self.waiters if not f.done()]
            nxt = min(w for w, _ in self.waiters)
            if nxt > end:
                self.t = end
                return
            self.t = max(self.t, nxt)
            for w, f in self.waiters:
                if w <= self.t and not f.done():
                    f.set_result(None)
            self.waiters = [(w, f) for w, f in self.waiters if not f.done()]
