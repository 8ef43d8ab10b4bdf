"""Conversation cues in ranking (issue 32), pure: who said a note, and which notes were observed together.

Notes that store a conversation carry two cues plain relevance does not read:

- **The speaker.** A note whose text opens with a speaker label, one to three capitalised words and a colon
  ("Caroline: I went to a support group yesterday"), was said by that speaker (``speaker_label``,
  elf_domain.speakers). When the
  query names the speaker (every token of the label is a token of the query: "When did Caroline go to the
  support group?"), the note gets the ``context.speaker`` term: ``speaker_weight`` times the spread of the
  candidates' final scores, so the lift is the same share of the ranking whatever the formula's scale. BM25
  alone cannot tell "Caroline: I went..." from "Melanie: Caroline went...": both hold the name once.
- **The episode.** Notes written with the same ``observed_at`` (the turns of one session stored with the
  session's time) belong to one episode. A candidate below the best candidate of its episode is pulled
  ``episode_pull`` of the way up to it (the ``context.episode`` term, ``episode_pull * (best - own)``): the turns
  around a strong match are likelier to hold the rest of the answer than an equally scored turn of another day.
  The episode's best candidate itself, and a note without ``observed_at``, get nothing. The pull never lifts a
  candidate above its episode's best, so the order of the episodes' best candidates is unchanged.

The terms are appended to each chunk's explain like the formula's own, and ``final_score`` stays their sum.
Both cues are off at weight 0.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence

from .ranking import Ranked, RankingTerm, tokens

TERM_SPEAKER = "context.speaker"
TERM_EPISODE = "context.episode"


def names_speaker(query_tokens: frozenset[str], label: str | None) -> bool:
    """Whether every token of ``label`` (see ranking.tokens) is among ``query_tokens``."""
    if not label:
        return False
    label_tokens = tokens(label)
    return bool(label_tokens) and all(t in query_tokens for t in label_tokens)


def _with_term(r: Ranked, name: str, value: float) -> Ranked:
    """``r`` with the term appended (built directly: ``dataclasses.replace`` took 5.5 us a chunk, this 0.8)."""
    terms = (*r.terms, RankingTerm(name, value))
    return Ranked(candidate=r.candidate, retrieval_rank=r.retrieval_rank, rerank_rank=r.rerank_rank,
                  rerank_score=r.rerank_score, final_score=sum(t.value for t in terms), terms=terms,
                  policy_id=r.policy_id)


def _spread(ranked: Sequence[Ranked]) -> float:
    scores = [r.final_score for r in ranked]
    return max(scores) - min(scores) if scores else 0.0


def speaker_boost(ranked: Sequence[Ranked], *, query: str, speakers: Mapping[Hashable, str | None],
                  weight: float) -> tuple[list[Ranked], list[str]]:
    """``ranked`` in the same order, each chunk of a note whose speaker (``speakers``: note id -> label) the
    query names with the ``context.speaker`` term added; and the labels the query named, sorted."""
    if weight <= 0 or not ranked:
        return list(ranked), []
    query_tokens = frozenset(tokens(query))
    named = {label for label in set(speakers.values()) if names_speaker(query_tokens, label)}
    if not named:
        return list(ranked), []
    lift = weight * _spread(ranked)
    return ([_with_term(r, TERM_SPEAKER, lift) if speakers.get(r.candidate.note_id) in named else r
             for r in ranked], sorted(str(label) for label in named))


def episode_pull(ranked: Sequence[Ranked], *, episodes: Mapping[Hashable, Hashable | None],
                 share: float) -> list[Ranked]:
    """``ranked`` in the same order, each chunk below the best chunk of its note's episode (``episodes``: note
    id -> the note's observed_at, None for none) with the ``context.episode`` term ``share * (best - own)``."""
    if share <= 0 or not ranked:
        return list(ranked)
    best: dict[Hashable, float] = {}
    for r in ranked:
        episode = episodes.get(r.candidate.note_id)
        if episode is not None and r.final_score > best.get(episode, float("-inf")):
            best[episode] = r.final_score
    out = []
    for r in ranked:
        episode = episodes.get(r.candidate.note_id)
        gap = best[episode] - r.final_score if episode is not None else 0.0
        out.append(_with_term(r, TERM_EPISODE, share * gap) if gap > 0 else r)
    return out
