"""Each outbox's claim reads its due rows in claim order from the partial index of migration 0011 and stops at its
LIMIT, instead of reading and sorting every due row (after a million-note import: 988k rows, 250-400 ms per claim
of 32, measured in issue 35). The plan is asked with sequential scans, bitmap scans and sorts off, since on a test
database's small tables a scan and a sort are cheaper either way: what is checked is that an index serves this
query in its order, so a claim whose condition or order drifts from the index's fails here."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from docs_ext.indexing.lease import LEASER as DOC_LEASER
from memory.indexing.lease import LEASER as NOTE_LEASER
from traces.services.outbox import _LEASER as TRACE_LEASER

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("leaser", "index"), [
    (NOTE_LEASER, "idx_outbox_due"),
    (DOC_LEASER, "idx_doc_outbox_due"),
    (TRACE_LEASER, "idx_trace_outbox_due"),
])
def test_the_claim_reads_the_due_index_in_order(leaser, index):
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SET LOCAL enable_seqscan = off")
        cur.execute("SET LOCAL enable_bitmapscan = off")
        cur.execute("SET LOCAL enable_sort = off")  # a sort is avoided only if an index gives the claim's order
        cur.execute("EXPLAIN " + leaser._claim_sql.format(extra=""), {"lease": 30, "limit": 32})
        plan = "\n".join(row[0] for row in cur.fetchall())
    assert f"Index Scan using {index} on {leaser.table}" in plan, plan
    assert "Sort" not in plan, plan
