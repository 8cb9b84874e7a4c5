"""A turn's request budget: wall-clock seconds and model calls, checked before every call."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

TURN_SECONDS = 40.0
TURN_CALLS = 8
CALL_SECONDS = 35.0  # one call's own limit, inside what is left of the turn's


class BudgetExhausted(Exception):
    """The turn has no calls or time left: `request_budget_exhausted`."""


@dataclass
class Budget:
    seconds: float = TURN_SECONDS
    calls: int = TURN_CALLS
    call_seconds: float = CALL_SECONDS
    started: float = field(default_factory=time.monotonic)
    used: int = 0

    @property
    def deadline(self) -> float:
        return self.started + self.seconds

    def next_call(self) -> float:
        """Take one call from the budget; the call's deadline (a time.monotonic() value)."""
        now = time.monotonic()
        if self.used >= self.calls:
            raise BudgetExhausted(f"{self.used} model calls used, limit {self.calls}")
        if now >= self.deadline:
            raise BudgetExhausted(f"{now - self.started:.1f} s used, limit {self.seconds:.0f} s")
        self.used += 1
        return min(now + self.call_seconds, self.deadline)
