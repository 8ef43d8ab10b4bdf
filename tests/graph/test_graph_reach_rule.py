"""graph.domain.rules.may_supersede (issue 31 item 4), the pure rule behind tests/graph/test_graph_identity.py:
which older open fact a writer's new fact may close, from how much of its evidence the writer reads and owns."""

from __future__ import annotations

import pytest

from graph.domain.rules import EvidenceReach, may_supersede


@pytest.mark.parametrize(
    "scope, older, expected",
    [
        ("agent_private", EvidenceReach(total=1, readable=1, own=1), True),  # my own private fact
        ("agent_private", EvidenceReach(total=2, readable=2, own=2), True),
        ("agent_private", EvidenceReach(total=1, readable=0, own=0), False),  # another agent's private fact
        ("agent_private", EvidenceReach(total=2, readable=1, own=1), False),  # mine, but another agent's note is on it
        ("project_shared", EvidenceReach(total=1, readable=1, own=0), True),  # another agent's, granted to me
        ("project_shared", EvidenceReach(total=1, readable=0, own=0), False),  # another agent's, no grant
        ("org_shared", EvidenceReach(total=2, readable=1, own=1), False),  # rests also on a note I cannot read
        ("org_shared", EvidenceReach(total=2, readable=2, own=1), True),
        ("project_shared", EvidenceReach(total=0, readable=0, own=0), False),  # no evidence: no one's to close
    ],
)
def test_a_writer_supersedes_only_facts_it_may_read_whole(scope, older, expected):
    assert may_supersede(scope=scope, older=older) is expected
