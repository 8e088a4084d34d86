"""How long the CP-SAT planners may search: wall-clock seconds, or a deterministic amount of work.

A wall-clock limit makes a search's outcome depend on the machine and its load: an instance proven
optimal in 9 s on a quiet machine ends unproven, with another plan and bound, on a busy one. CP-SAT
also counts its work in *deterministic seconds* (``max_deterministic_time``), the same on every
machine for the same model, parameters and version. A single-threaded search stopped by work gives
the same answer everywhere, which is what generated families need (the same seed and knobs give the
same instances, byte for byte, optimum and bound included).

``Budget(seconds, work=None)``: with ``work`` each phase of a planner stops after its share of the
work and ``seconds`` only guards against a far slower machine (where the guard stops a search, the
answer depends on the machine again). Without ``work`` the phases share the seconds, as
interactive previews want (an answer in the time promised).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

# Deterministic seconds per CPU second of one CP-SAT thread on the 2-core reference machine, for a
# search of the usual kind (stop 27: the recipes restricted model, 0.48 over 64 thirty-step pairs;
# stop 26 had taken 0.25 from wall-clock seconds on a loaded machine, so "10 s" lasted 5).
# Used to turn a "seconds" knob into work: ``work_for(10)`` lasts roughly 10 s there. A phase
# whose model counts its work much faster or slower says so with ``rate``.
WORK_PER_SECOND = 0.48
# With a work budget, the wall-clock guard: this many times the seconds the work stands for.
GUARD = 3.0


def work_for(seconds: float) -> float:
    return seconds * WORK_PER_SECOND


@dataclass
class Budget:
    seconds: float
    work: float | None = None
    began: float = field(default_factory=time.perf_counter)
    worked: float = 0.0

    def seconds_left(self) -> float:
        return self.seconds - (time.perf_counter() - self.began)

    def solver(
        self,
        share: float,
        *,
        reserve: float = 0.0,
        workers: int = 1,
        seed: int = 0,
        rate: float = WORK_PER_SECOND,
    ) -> cp_model.CpSolver:
        """A solver for a phase that may use ``share`` of the whole budget (at most what is left,
        less ``reserve`` of the whole budget kept for later phases). ``rate``: the phase's own
        deterministic seconds per second on the reference machine, for a model that counts its work
        far faster or slower than the average (pass the same to ``solve``)."""
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = max(1, int(workers))
        solver.parameters.random_seed = int(seed)
        if self.work is None:
            limit = min(share * self.seconds, self.seconds_left() - reserve * self.seconds)
            solver.parameters.max_time_in_seconds = max(0.05, limit)
        else:
            left = self.work - self.worked
            allowed = min(share * self.work, left - reserve * self.work) * rate / WORK_PER_SECOND
            solver.parameters.max_deterministic_time = max(0.01, allowed)
            solver.parameters.max_time_in_seconds = max(0.05, self.seconds_left())
        return solver

    def solve(
        self, solver: cp_model.CpSolver, model: cp_model.CpModel, *, rate: float = WORK_PER_SECOND
    ) -> cp_model.CpSolverStatus:
        """Run ``solver`` on ``model``, counting its work (at the phase's ``rate``)."""
        status = solver.solve(model)
        self.worked += solver.deterministic_time * WORK_PER_SECOND / rate
        return status

    def exhausted(self) -> bool:
        if self.work is not None:
            return self.work - self.worked <= 0.01 or self.seconds_left() <= 0.05
        return self.seconds_left() <= 0.05
