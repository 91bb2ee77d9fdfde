"""The upstream identity chain's order (ADR-0230 §7.1, §9), written once.

The chain is the record ids in pipeline order: problem frame, contract assessment, residuals,
search gate decision, compute budget decision, search run, candidate attempts, replay results,
replay refusals. :data:`CHAIN_FIELDS` names the fields of a trace input or a sealed trace
that hold them, in that order; :func:`identity_chain` reads them into one tuple.
"""

from __future__ import annotations

from typing import Final

__all__ = ["CHAIN_FIELDS", "identity_chain"]

#: ``(field, holds a list of ids)``, in pipeline order.
CHAIN_FIELDS: Final = (
    ("problem_frame_digest", False),
    ("original_contract_assessment_id", False),
    ("residual_ids", True),
    ("search_gate_decision_id", False),
    ("compute_budget_id", False),
    ("geometric_search_run_id", False),
    ("candidate_attempt_ids", True),
    ("replay_result_ids", True),
    ("replay_refusal_ids", True),
)


def identity_chain(record: object) -> tuple[str, ...]:
    """The ids of ``record`` (a trace input, a sealed trace or a namespace with the same
    fields) in pipeline order, lists flattened in place."""
    chain: list[str] = []
    for name, many in CHAIN_FIELDS:
        value = getattr(record, name)
        chain.extend(value if many else (value,))
    return tuple(chain)
