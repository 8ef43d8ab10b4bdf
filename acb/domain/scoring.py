"""Retrieval scoring (agent-memory-acb-prd 8.2): score = alpha * semantic + beta * recency + gamma * importance.

semantic is Postgres' ts_rank_cd of the chunk for the query, normalised to [0, 1) as rank / (rank + 1); recency is
exp(-age / tau) with age measured back from the newest event of the session (not the wall clock: the same log
gives the same bundle whenever it is built); importance comes from the chunk's kind (vocabulary.IMPORTANCE)."""

from __future__ import annotations

import math

from .vocabulary import ALPHA, BETA, GAMMA, RECENCY_TAU_HOURS


def score(rank: float, age_hours: float, importance: float) -> float:
    semantic = rank / (rank + 1.0) if rank > 0 else 0.0
    recency = math.exp(-max(age_hours, 0.0) / RECENCY_TAU_HOURS)
    return ALPHA * semantic + BETA * recency + GAMMA * importance


def scoring_provenance() -> dict:
    return {"alpha": ALPHA, "beta": BETA, "gamma": GAMMA, "recency_tau_hours": RECENCY_TAU_HOURS,
            "semantic": "ts_rank_cd / (ts_rank_cd + 1)", "recency_from": "newest event of the session"}
