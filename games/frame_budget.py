"""How many frames a browser's game socket may send: a token bucket per connection.

A study participant is an anonymous visitor from an online panel; without a limit one of them
could send thousands of ``sync`` frames a second (each a database transaction and a full page
render) and take the server from everyone else. People send a few frames a second at most (a key
press each, a ``sync`` per drawing), so a browser's socket gets ``RATE`` a second with bursts of
``BURST``; a frame over it is refused (error code ``too_fast``) and changes nothing. Programs
(API tokens, which only researchers and administrators make) are not limited: a bot in a fast
game acts as fast as the server answers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

RATE = 10.0  # frames per second, on average
BURST = 30.0  # frames at once


def clock() -> float:
    """Seconds on a monotonic clock (a function of its own, so a test can hold time still)."""
    return time.monotonic()


@dataclass
class FrameBudget:
    rate: float = RATE
    burst: float = BURST
    left: float = BURST
    stamp: float = field(default_factory=lambda: clock())

    def take(self, now: float | None = None) -> bool:
        """One frame: True if the budget has it (and spends it), False if the socket is too fast."""
        now = clock() if now is None else now
        self.left = min(self.burst, self.left + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.left < 1:
            return False
        self.left -= 1
        return True
