"""The ``unary_delta_transition`` contract organ: a small, honest check that may refuse.

It binds a role only from what it literally sees: the start state from "<Name> had <N>
<things>.", one delta quantity in the change sentence, the changed object as the word right
after the delta, and the direction from the verb right before it, looked up in the organ's
closed (and deliberately small) lexicon. Whatever it cannot bind is named, never guessed.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from kernel.frame import read_change
from kernel.identity import digest, spans
from kernel.records import ContractAssessmentProjection, ProblemFrameProjection

ORGAN: Final = "unary_delta_transition"
#: The verbs whose direction this organ binds; any other verb leaves the direction unbound.
DIRECTION_LEXICON: Final = {"found": "increase", "lost": "decrease"}


def assessment_id(assessment: ContractAssessmentProjection) -> str:
    """Recompute ``assessment_id`` (sealing-policy §2; prose excluded, no self key)."""
    a = assessment
    return digest(
        {
            "problem_frame_digest": a.problem_frame_digest,
            "candidate_organ": a.candidate_organ,
            "missing_bindings": list(a.missing_bindings),
            "unresolved_hazards": list(a.unresolved_hazards),
            "runnable": a.runnable,
            "evidence_spans": spans(a.evidence_spans),
        }
    )


def assess(frame: ProblemFrameProjection) -> ContractAssessmentProjection:
    """Assess ``frame`` against the unary-delta contract; runnable only if every role binds."""
    r = read_change(frame)
    missing: list[str] = []
    hazards: list[str] = []
    if r.state_entity is None:
        missing.append("state_entity_unbound")
    if r.cue is None:
        missing.append("action_cue_unbound")
    if not r.delta_quantities:
        missing.append("delta_quantity_unbound")
    elif len(r.delta_quantities) > 1:
        missing.append("delta_quantity_ambiguous")
    else:
        next_word = r.after_delta[0].text if r.after_delta else None
        if r.state_object is None or next_word != r.state_object.text:
            missing.append("changed_object_unbound")
        if r.cue is None or r.cue.text not in DIRECTION_LEXICON:
            missing.append("direction_unbound")
    if r.passive is not None:
        hazards.append("passive_voice_unsupported")
    evidence = tuple(s for s in (r.passive or r.cue,) if s is not None)
    refused = "; ".join((*missing, *hazards))
    assessment = ContractAssessmentProjection(
        "",
        frame.frame_digest,
        ORGAN,
        tuple(missing),
        tuple(hazards),
        not missing and not hazards,
        evidence,
        f"The {ORGAN} contract refused: {refused}." if refused else f"The {ORGAN} contract closed.",
    )
    return dataclasses.replace(assessment, assessment_id=assessment_id(assessment))
