"""Episode fixtures: valid and deliberately broken ADR-0230 practice episodes.

Tests of upstream modules (gate, budget, run, replay adapter) take their inputs from
:class:`EpisodeFactory` instead of hand-building records; tests of the sealing boundary take
whole episodes, one per sealed disposition or per refusal kind.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest

from pytest_sealed_trace._names import (
    BOUND_DISPOSITION_NAMES,
    BOUND_TAMPER_NAMES,
    SEALED_DISPOSITION_NAMES,
    TAMPER_NAMES,
)
from pytest_sealed_trace._settings import IDENTITY_LAYOUTS, choice, setting_list

if TYPE_CHECKING:  # the core is imported on first use, keeping pytest's start-up fast
    from sealed_trace import PracticeEpisode, PracticeTraceOutcome
    from sealed_trace.builder import EpisodeSpec

__all__ = [
    "EpisodeFactory",
    "EpisodeRecords",
    "RefusedCase",
    "SealedCase",
    "bound_practice_episode",
    "practice_episode",
    "refused_bound_practice_episode",
    "refused_practice_episode",
    "sealed_practice_episode",
    "sealed_trace_episodes",
]

#: Names a host class can replace (the reference records and enums the builder creates).
REFERENCE_NAMES = (
    "PracticeEpisode",
    "ProblemFrameProjection",
    "ContractAssessmentProjection",
    "SourceSpan",
    "ContractResidual",
    "SearchGateDecision",
    "ComputeBudgetDecision",
    "GeometricSearchRun",
    "SearchRunRefusal",
    "CandidateAttempt",
    "BudgetCharge",
    "BudgetConsumed",
    "ReplayAdapterResult",
    "ReplayAdapterRefusal",
    "ProofReplayRef",
    # bound records (ADR-0231, ADR-0232)
    "CandidateOperatorResult",
    "CandidateReconstruction",
    "CandidateAttemptRunBinding",
    # enums: host members are made from the reference member's value
    "RunAttemptMembership",
    "ResidualKind",
    "ResidualSourceAxis",
    "SearchGateStatus",
    "ComputeBudgetStatus",
    "SearchRunDisposition",
    "RunExhaustionCode",
    "CandidateReplayStatus",
    "ReplayDisposition",
    "ReplayRefusalReason",
)


class EpisodeRecords(NamedTuple):
    """An episode's upstream records one by one, in loop order (host types when configured).

    ``geometric_search_run`` and ``search_run_refusal``: exactly one is None.
    """

    problem_frame: Any
    contract_assessment: Any
    residuals: tuple[Any, ...]
    search_gate_decision: Any
    compute_budget_decision: Any
    geometric_search_run: Any
    search_run_refusal: Any
    candidate_attempts: tuple[Any, ...]
    replay_results: tuple[Any, ...]
    replay_refusals: tuple[Any, ...]
    schema_versions: tuple[tuple[str, str], ...]
    policy_versions: tuple[tuple[str, str], ...]
    #: A bound episode's records (ADR-0231..0233), paired by position; empty otherwise.
    candidate_operator_results: tuple[Any, ...] = ()
    candidate_attempt_bindings: tuple[Any, ...] = ()


class SealedCase(NamedTuple):
    """One lawful episode and the sealed disposition it must seal as."""

    practice_disposition: str
    episode: Any


class RefusedCase(NamedTuple):
    """One broken episode, what broke it, and the refusal it must produce."""

    name: str
    description: str
    practice_disposition: str
    reason_code: str
    episode: Any


class EpisodeFactory:
    """Builds practice episodes for tests (the ``sealed_trace_episodes`` fixture).

    ``record_types`` maps reference class names to host classes (see the
    ``pytest_sealed_trace_record_types`` hook); records are then built as host objects.
    ``layout`` is the identity layout :meth:`seal` uses (sealing-policy §10: ``adr-0230``,
    or ``adr-0233`` for bound episodes; ini ``sealed_trace_identity_layout``).
    """

    def __init__(
        self,
        record_types: Mapping[str, Callable[..., Any]] | None = None,
        layout: str = "adr-0230",
    ) -> None:
        self.record_types = dict(record_types or {})
        self.layout = layout

    def spec(self, **changes: Any) -> EpisodeSpec:
        """An :class:`~sealed_trace.builder.EpisodeSpec` with ``changes`` (problem text,
        facts, organ, labels, span surfaces, operator set)."""
        # the sealer (~70 ms) loads on first use: importing the plugin loads none of it
        from sealed_trace.builder import EpisodeSpec

        return EpisodeSpec(**changes)

    def reference(
        self,
        disposition: str = "sealed_candidate_replay_closed",
        *,
        attempts: int | None = None,
        outcomes: Sequence[str] | None = None,
        spec: EpisodeSpec | None = None,
        bound: bool = False,
    ) -> PracticeEpisode:
        """A lawful episode in the reference types (see :func:`sealed_trace.builder.build_episode`);
        with ``bound``, an ADR-0233 bound episode (seal it under ``adr-0233``).

        Raises:
            ValueError: as ``build_episode`` (unknown disposition, inconsistent outcomes,
                a span that is not in the problem text, a disposition a bound episode
                cannot have).
        """
        # the sealer (~70 ms) loads on first use: importing the plugin loads none of it
        from sealed_trace.builder import build_episode

        return build_episode(
            disposition, attempts=attempts, outcomes=outcomes, spec=spec, bound=bound
        )

    def episode(
        self,
        disposition: str = "sealed_candidate_replay_closed",
        *,
        attempts: int | None = None,
        outcomes: Sequence[str] | None = None,
        spec: EpisodeSpec | None = None,
        bound: bool = False,
    ) -> Any:
        """A lawful episode that seals as ``disposition``, in host types when configured
        (``bound``: an ADR-0233 bound episode)."""
        return self.host(
            self.reference(
                disposition, attempts=attempts, outcomes=outcomes, spec=spec, bound=bound
            )
        )

    def records(
        self,
        disposition: str = "sealed_candidate_replay_closed",
        *,
        attempts: int | None = None,
        outcomes: Sequence[str] | None = None,
        spec: EpisodeSpec | None = None,
        bound: bool = False,
    ) -> EpisodeRecords:
        """The upstream records of a lawful episode, one by one, for upstream modules' tests
        (``bound``: with its operator results and bindings)."""
        e = self.episode(disposition, attempts=attempts, outcomes=outcomes, spec=spec, bound=bound)
        run = e.geometric_search_run
        return EpisodeRecords(
            problem_frame=e.problem_frame,
            contract_assessment=e.contract_assessment,
            residuals=e.residuals,
            search_gate_decision=e.search_gate_decision,
            compute_budget_decision=e.compute_budget_decision,
            geometric_search_run=run,
            search_run_refusal=e.search_run_refusal,
            candidate_attempts=run.candidate_attempts if run is not None else (),
            replay_results=e.replay_results,
            replay_refusals=e.replay_refusals,
            schema_versions=e.schema_versions,
            policy_versions=e.policy_versions,
            candidate_operator_results=tuple(getattr(e, "candidate_operator_results", ())),
            candidate_attempt_bindings=tuple(getattr(e, "candidate_attempt_bindings", ())),
        )

    def tamper(self, name: str, episode: PracticeEpisode | None = None) -> Any:
        """A lawful episode broken by the tamper ``name`` (every other id recomputed); a
        ``bound_*`` tamper breaks a bound episode (seal it under ``adr-0233``).

        Raises:
            KeyError: unknown tamper name; see :data:`sealed_trace.builder.TAMPERS` and
                :data:`sealed_trace.builder.BOUND_TAMPERS`.
        """
        tamper = _tamper(name)
        bound = name in BOUND_TAMPER_NAMES
        base = episode if episode is not None else self.reference(bound=bound)
        return self.host(tamper.apply(base))

    def refused(self, name: str) -> RefusedCase:
        """The :class:`RefusedCase` of the tamper ``name`` (seal its ``.episode``).

        Raises:
            KeyError: unknown tamper name (the message lists the known ones).
        """
        tamper = _tamper(name)
        return RefusedCase(
            tamper.name,
            tamper.description,
            tamper.practice_disposition,
            tamper.reason_code,
            self.tamper(name),
        )

    def host(self, episode: PracticeEpisode) -> Any:
        """``episode`` with every record rebuilt in the configured host types."""
        # the sealer (~70 ms) loads on first use: importing the plugin loads none of it
        from sealed_trace.builder import convert_records

        return convert_records(episode, self.record_types) if self.record_types else episode

    def seal(self, episode: Any, *, layout: str | None = None) -> PracticeTraceOutcome:
        """Seal ``episode`` (:func:`sealed_trace.seal`) under ``layout``, else the factory's
        identity layout (sealing-policy §10).

        Raises:
            ValueError: ``layout`` names no identity layout.
        """
        # the sealer (~70 ms) loads on first use: importing the plugin loads none of it
        from sealed_trace import seal

        return seal(episode, layout=layout or self.layout)


def _tamper(name: str) -> Any:
    """The builder's tamper ``name``, plain or bound.

    Raises:
        KeyError: unknown tamper name (the message lists the known ones).
    """
    # the sealer (~70 ms) loads on first use: importing the plugin loads none of it
    from sealed_trace.builder import BOUND_TAMPERS, TAMPERS

    known = {**TAMPERS, **BOUND_TAMPERS}
    if name not in known:
        raise KeyError(f"unknown tamper {name!r}; known: {', '.join(sorted(known))}")
    return known[name]


def record_types_from_modules(modules: Sequence[str]) -> dict[str, Any]:
    """Classes named like reference record types, collected from the given host modules.

    Raises:
        pytest.UsageError: a module cannot be imported or declares no record class.
    """
    found: dict[str, Any] = {}
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError as error:
            raise pytest.UsageError(
                f"sealed_trace_record_types: cannot import {name!r}: {error}"
            ) from None
        matched = {n: getattr(module, n) for n in REFERENCE_NAMES if hasattr(module, n)}
        if not matched:
            raise pytest.UsageError(
                f"sealed_trace_record_types: {name!r} defines none of {', '.join(REFERENCE_NAMES)}"
            )
        found.update(matched)
    return found


FACTORY_KEY = pytest.StashKey["EpisodeFactory"]()


def make_factory(config: pytest.Config) -> EpisodeFactory:
    """The session's factory, with host types from the hook or the ini option.

    Raises:
        pytest.UsageError: a configured host module cannot be imported or has no record class.
    """
    types = config.hook.pytest_sealed_trace_record_types(config=config)
    if types is None:
        types = record_types_from_modules(setting_list(config, "sealed_trace_record_types"))
    layout = choice(config, "sealed_trace_identity_layout", IDENTITY_LAYOUTS) or "adr-0230"
    return EpisodeFactory(types, layout)


@pytest.fixture(scope="session")
def sealed_trace_episodes(pytestconfig: pytest.Config) -> EpisodeFactory:
    """An :class:`EpisodeFactory` building valid and broken episodes (host types if set)."""
    factory = pytestconfig.stash.get(FACTORY_KEY, None)
    return factory if factory is not None else make_factory(pytestconfig)


@pytest.fixture
def practice_episode(sealed_trace_episodes: EpisodeFactory) -> Any:
    """A lawful two-attempt episode that seals as ``sealed_candidate_replay_closed``."""
    return sealed_trace_episodes.episode()


@pytest.fixture(params=SEALED_DISPOSITION_NAMES)
def sealed_practice_episode(
    request: pytest.FixtureRequest, sealed_trace_episodes: EpisodeFactory
) -> SealedCase:
    """Parametrized over every sealed disposition: a lawful episode for each."""
    return SealedCase(request.param, sealed_trace_episodes.episode(request.param))


@pytest.fixture(params=TAMPER_NAMES)
def refused_practice_episode(
    request: pytest.FixtureRequest, sealed_trace_episodes: EpisodeFactory
) -> RefusedCase:
    """Parametrized over every refusal kind: a broken episode and its expected refusal."""
    return sealed_trace_episodes.refused(request.param)


@pytest.fixture(params=BOUND_DISPOSITION_NAMES)
def bound_practice_episode(
    request: pytest.FixtureRequest, sealed_trace_episodes: EpisodeFactory
) -> SealedCase:
    """Parametrized over every sealed disposition a bound episode (ADR-0233) can have: a
    lawful bound episode for each, in host types when configured; seal it under
    ``adr-0233`` (``sealed_trace_episodes.seal(case.episode, layout="adr-0233")``)."""
    episode = sealed_trace_episodes.episode(request.param, bound=True)
    return SealedCase(request.param, episode)


@pytest.fixture(params=BOUND_TAMPER_NAMES)
def refused_bound_practice_episode(
    request: pytest.FixtureRequest, sealed_trace_episodes: EpisodeFactory
) -> RefusedCase:
    """Parametrized over every bound-episode rule of sealing-policy §10: a broken bound
    episode and its expected refusal under ``adr-0233``."""
    return sealed_trace_episodes.refused(request.param)
