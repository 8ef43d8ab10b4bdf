"""A kept bundle (acb_bundles) that quotes sensitivity-high content is stored sealed, its JSON compressed before it
is sealed; it reads back as the bundle the build answered, in the model and so in the admin. A body sealed before
bodies were compressed still opens; a reader that may not see sealed values gets the placeholder."""

from __future__ import annotations

import json
import uuid

import pytest
from django.db import connection

from acb import sealing
from acb import selectors as sel
from acb.models import AcbBundle
from acb.services.bundle import build
from acb.services.event_log import Writer, record_event
from elf_kernel.crypto import aad, cipher

pytestmark = pytest.mark.django_db(transaction=True)

SECRET_WORD = "marmalade"


def _stored(acb_id: str) -> dict:
    with connection.cursor() as cur:
        cur.execute("SELECT body::text FROM acb_bundles WHERE acb_id = %s", [acb_id])
        return json.loads(cur.fetchone()[0])


@pytest.fixture
def bundle() -> dict:
    tenant = f"acb-kept-{uuid.uuid4().hex[:8]}"
    writer = Writer(tenant, "p1", "s1", "coder")
    for i in range(60):  # a body of some size, as real ones are (hundreds of KiB)
        record_event(writer=writer, channel="private", actor_type="agent", actor_id="coder", kind="message",
                     sensitivity="high" if i == 7 else "none", tags=[], refs=[],
                     content={"text": f"Turn {i}: the billing export {SECRET_WORD if i == 7 else 'job'} ran "
                                      "again after the nightly release and the queue drained in time."})
    return build(view=sel.View(tenant, "p1", "s1", "coder", "private"), intent=None, query_text="billing export",
                 max_tokens=65_000)


def test_a_high_bundle_is_stored_compressed_and_sealed_and_reads_back_whole(bundle):
    plain = json.dumps({k: v for k, v in bundle.items() if k != "acb_id"}, sort_keys=True)
    assert SECRET_WORD in plain  # the private bundle quotes the high event
    stored = _stored(bundle["acb_id"])
    assert list(stored) == [sealing.ENCRYPTED] and SECRET_WORD not in json.dumps(stored)
    # hex doubles what it seals: without compression the envelope would be over twice the JSON
    assert len(stored[sealing.ENCRYPTED]) < len(plain), (len(stored[sealing.ENCRYPTED]), len(plain))
    kept = AcbBundle.objects.get(acb_id=bundle["acb_id"])
    assert kept.body == {k: v for k, v in bundle.items() if k != "acb_id"}
    with sealing.reveal(False):
        hidden = AcbBundle.objects.get(acb_id=bundle["acb_id"])
    assert hidden.body == {"provenance": {sealing.ENCRYPTED: sealing.PLACEHOLDER}}


def test_a_body_sealed_before_compression_still_opens(bundle):
    kept = AcbBundle.objects.get(acb_id=bundle["acb_id"])
    text = json.dumps(kept.body, sort_keys=True)
    old = {sealing.ENCRYPTED: cipher().seal(text, aad("acb_bundles", "body", kept.tenant_id, kept.acb_id))}
    with connection.cursor() as cur:
        cur.execute("UPDATE acb_bundles SET body = %s::jsonb WHERE acb_id = %s", [json.dumps(old), kept.acb_id])
    assert AcbBundle.objects.get(acb_id=kept.acb_id).body == kept.body
