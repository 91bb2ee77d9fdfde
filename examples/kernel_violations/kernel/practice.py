"""The practice loop's consumer: word problem -> upstream records -> sealed practice trace.

:func:`practise` runs each stage once, in loop order, and hands the records to
:mod:`kernel.sealing`. An assessment that closes has nothing to practise: no episode.
"""

from __future__ import annotations

from dataclasses import dataclass

from kernel import sealing
from kernel.assessment import assess
from kernel.budget import allocate
from kernel.frame import frame_problem
from kernel.gate import decide
from kernel.records import ContractAssessmentProjection, GeometricSearchRun, PracticeEpisode
from kernel.replay import replay_run
from kernel.residuals import project
from kernel.sealing import PracticeTraceOutcome
from kernel.search import search


@dataclass(frozen=True, slots=True)
class PracticeReport:
    """What one practice pass produced: evidence only, never an answer."""

    problem_text: str
    assessment: ContractAssessmentProjection
    episode: PracticeEpisode | None
    outcome: PracticeTraceOutcome | None


def practise(problem_text: str) -> PracticeReport:
    """Run the residual-gated practice loop on ``problem_text`` and seal the episode."""
    frame = frame_problem(problem_text)
    assessment = assess(frame)
    if assessment.runnable:
        return PracticeReport(problem_text, assessment, None, None)
    residuals = project(assessment)
    gate = decide(residuals)
    budget = allocate(gate)
    run = search(frame, assessment, gate, budget)
    results, refusals = (
        replay_run(frame, assessment, run) if isinstance(run, GeometricSearchRun) else ((), ())
    )
    episode = sealing.build_episode(
        frame, assessment, residuals, gate, budget, run, results, refusals
    )
    return PracticeReport(problem_text, assessment, episode, sealing.seal_episode(episode))
