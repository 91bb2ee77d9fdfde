"""Regenerate the bundled example episodes and their expected outcomes.

Run from the repository root: ``python examples/make_episodes.py``. Each episode is a small
word problem whose refused assessment went through the residual-gated practice loop; every
id is computed, every span is exact. ``episodes/sealed/`` seal, ``episodes/refused/`` are
deliberately broken (one fault each) and refuse; ``episodes/expected/`` holds the outcome
documents that ``sealed-trace verify`` compares byte for byte.

The ``09-bound-*`` and ``10-bound-*`` episodes and ``bound-forged-binding-id`` are *bound*
episodes (ADR-0231..0233; sealing-policy §10): their documents name ``"identity_layout":
"adr-0233"``, the only layout that accepts bound records, so ``sealed-trace seal`` and
``verify`` need no flag.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from sealed_trace import seal
from sealed_trace.builder import BOUND_TAMPERS, EpisodeSpec, build_episode, refresh_ids
from sealed_trace.episode_json import encode_episode, encode_outcome, seal_document
from sealed_trace.trace import IdentityLayout, PracticeEpisode

HERE = Path(__file__).resolve().parent / "episodes"

PUMP = EpisodeSpec(
    problem_text="The tank was filled by the pump with 60 liters. Then 15 liters were drained. "
    "How much water is in the tank?",
    facts={
        "quantities": [
            {"surface": "60 liters", "value": [60, 1]},
            {"surface": "15 liters", "value": [15, 1]},
        ],
        "question_target": "water in the tank",
    },
    candidate_organ="unary_delta_transition",
    missing_bindings=("changed_object_unbound",),
    assessment_spans=("was filled by",),
    blocked_hazard="passive_voice_unsupported",
)
BAKER = EpisodeSpec(
    problem_text="A baker had 40 rolls. By noon only a quarter of the rolls were left. "
    "How many rolls were sold?",
    facts={
        "quantities": [
            {"surface": "40", "value": [40, 1]},
            {"surface": "a quarter", "value": [1, 4]},
        ],
        "question_target": "rolls sold",
    },
    candidate_organ="fraction_decrease",
    missing_bindings=("base_quantity_unbound", "scale_unbound"),
    assessment_spans=("a quarter",),
    attempt_spans=("40 rolls", "a quarter of the rolls"),
    operator_set_id="fraction_decrease.operators",
)
CLASS = EpisodeSpec(
    problem_text="Of the 30 students in the class, 40 percent walk to school. "
    "How many students walk to school?",
    facts={
        "quantities": [
            {"surface": "30", "value": [30, 1]},
            {"surface": "40 percent", "value": [2, 5]},
        ],
        "question_target": "students who walk",
    },
    candidate_organ="percent_partition",
    missing_bindings=("grounded_partition_subgroup", "grounded_whole_entity"),
    assessment_spans=("40 percent",),
    attempt_spans=("30 students", "walk to school", "the class"),
    operator_set_id="percent_partition.operators",
)
NOTEBOOKS = EpisodeSpec(
    problem_text="Leo bought 3 notebooks and 2 pens. How many notebooks did Leo buy?",
    facts={
        "actors": ["Leo"],
        "quantities": [{"surface": "3", "value": [3, 1]}, {"surface": "2", "value": [2, 1]}],
    },
    candidate_organ="quantity_entity_binding",
    missing_bindings=("quantity_entity_proposal_required",),
    assessment_spans=("3 notebooks",),
    attempt_spans=("3 notebooks", "2 pens"),
    operator_set_id="quantity_entity.operators",
)
MARBLES = EpisodeSpec()
DISAGREE = EpisodeSpec(attempt_spans=("5 more marbles", "12 marbles"))

SEALED: dict[str, PracticeEpisode] = {
    "01-original-refusal": build_episode("sealed_original_refusal", spec=PUMP),
    "02-exhausted-no-candidate": build_episode("sealed_exhausted_no_candidate", spec=BAKER),
    "03-all-candidates-refused": build_episode(
        "sealed_all_candidates_refused", attempts=3, spec=CLASS
    ),
    "04-replay-unavailable": build_episode("sealed_replay_unavailable", spec=NOTEBOOKS),
    "05-contract-closed-proof-refused": build_episode(
        "sealed_contract_closed_proof_refused", spec=MARBLES
    ),
    "06-candidate-replay-closed": build_episode("sealed_candidate_replay_closed", spec=MARBLES),
    "07-multi-attempt": build_episode(
        "sealed_contract_closed_proof_refused",
        outcomes=[
            "contract_refused",
            "contract_replay_unavailable",
            "contract_closed_but_proof_refused",
            "contract_refused",
            "proof_replay_unavailable",
        ],
        spec=BAKER,
    ),
    "08-disagreement": build_episode(
        "sealed_candidate_replay_closed",
        outcomes=["contract_and_proof_closed", "contract_and_proof_closed"],
        spec=DISAGREE,
    ),
}

#: Bound episodes (sealing-policy §10), sealed under the adr-0233 layout their documents name.
BOUND_SEALED: dict[str, PracticeEpisode] = {
    "09-bound-candidate-replay-closed": build_episode(
        "sealed_candidate_replay_closed", attempts=3, spec=MARBLES, bound=True
    ),
    "10-bound-all-candidates-refused": build_episode(
        "sealed_all_candidates_refused", attempts=2, spec=CLASS, bound=True
    ),
}


def _bound_refused() -> dict[str, tuple[PracticeEpisode, str]]:
    """One bound fault: the first binding's id forged (every other id valid)."""
    tamper = BOUND_TAMPERS["bound_forged_binding_id"]
    episode = tamper.apply(BOUND_SEALED["09-bound-candidate-replay-closed"])
    return {"bound-forged-binding-id": (episode, tamper.practice_disposition)}


def _refused() -> dict[str, tuple[PracticeEpisode, str]]:
    """One fault per episode; the string names the refusal it must produce."""
    closed = SEALED["06-candidate-replay-closed"]
    run = closed.geometric_search_run
    assert run is not None
    forged = dataclasses.replace(run, run_id="0" * 64)
    other_run = dataclasses.replace(run, operator_set_version="candidate_operators.v3")
    refreshed = refresh_ids(dataclasses.replace(closed, geometric_search_run=other_run))
    assert refreshed.geometric_search_run is not None
    orphan = refresh_ids(
        dataclasses.replace(
            closed,
            replay_results=(
                dataclasses.replace(
                    closed.replay_results[0], run_id=refreshed.geometric_search_run.run_id
                ),
                *closed.replay_results[1:],
            ),
        )
    )
    frame = closed.problem_frame
    assert frame is not None
    return {
        "forged-run-id": (
            dataclasses.replace(closed, geometric_search_run=forged),
            "trace_identity_mismatch",
        ),
        "orphan-replay-result": (orphan, "trace_identity_mismatch"),
        "missing-replay-record": (
            dataclasses.replace(closed, replay_results=closed.replay_results[:1]),
            "trace_upstream_incomplete",
        ),
        "unsupported-trace-policy": (
            dataclasses.replace(closed, trace_policy_version="sealed_practice_trace.v2"),
            "trace_policy_unsupported",
        ),
        "inexact-evidence-span": (
            refresh_ids(
                dataclasses.replace(
                    closed,
                    problem_frame=dataclasses.replace(
                        frame, problem_text=frame.problem_text.replace("gained", "earned")
                    ),
                )
            ),
            "trace_invalid_input",
        ),
    }


def main() -> int:
    """Write every example; exit 1 if an example does not give its intended outcome."""
    bad = 0
    for folder in ("sealed", "refused", "expected"):
        (HERE / folder).mkdir(parents=True, exist_ok=True)
    default, bound = IdentityLayout.ADR_0230, IdentityLayout.ADR_0233
    cases = {name: (ep, "sealed", default) for name, ep in SEALED.items()}
    cases.update({name: (ep, want, default) for name, (ep, want) in _refused().items()})
    cases.update({name: (ep, "sealed", bound) for name, ep in BOUND_SEALED.items()})
    cases.update({name: (ep, want, bound) for name, (ep, want) in _bound_refused().items()})
    for name, (episode, want, layout) in cases.items():
        outcome = seal(episode, layout=layout)
        folder = "sealed" if want == "sealed" else "refused"
        got = outcome.practice_disposition.value
        if (want == "sealed") != got.startswith("sealed_") or (want != "sealed" and got != want):
            print(f"{name}: expected {want}, got {got}: {outcome.explanation}", file=sys.stderr)
            bad = 1
        named = layout if layout is bound else None  # ADR-0230 documents stay as they were
        (HERE / folder / f"{name}.json").write_bytes(encode_episode(episode, layout=named))
        (HERE / "expected" / f"{name}.outcome.json").write_bytes(encode_outcome(outcome))
        print(f"{folder}/{name}.json -> {got}")
    # A float cannot live in a reference episode, so this one is written as a document.
    document = json.loads(encode_episode(SEALED["05-contract-closed-proof-refused"]))
    document["problem_frame"]["facts"]["weight_kg"] = 0.5
    data = (json.dumps(document, ensure_ascii=False, sort_keys=True, indent=2) + "\n").encode()
    (HERE / "refused" / "float-in-facts.json").write_bytes(data)
    outcome = seal_document(data)
    (HERE / "expected" / "float-in-facts.outcome.json").write_bytes(encode_outcome(outcome))
    print(f"refused/float-in-facts.json -> {outcome.practice_disposition.value}")
    return bad


if __name__ == "__main__":
    sys.exit(main())
