"""BM25 sparse vectors computed in the app with Qdrant's own tokenizer.

`models.Document(text, model="qdrant/bm25")` would need fastembed, which downloads its model; instead the
app computes the same sparse vectors with `qdrant_edge.Bm25` (Qdrant's tokenizer, Snowball English stemmer
and English stopwords) and sends them as `SparseVector`s. Documents carry BM25 term-frequency weights
(k, b and a fixed avg_len, so a document's vector depends on no corpus); queries carry 1.0 per unique term. The
IDF factor is applied by the server, through the collection's `idf` modifier on the `bm25` sparse vector, in a
real Qdrant server and the embedded one alike, over the caller's (tenant, project) (each BM25 request names it
as the IDF corpus: `hybrid.scoped_idf`).

Stopwords: qdrant-edge's English list is NLTK's 179-word list (checked: every one of the 179 is dropped,
and no other word of the LoCoMo texts and questions is), the list that beat Lucene's 33 words by 6 points of
recall@10 on LoCoMo. So the default English configuration is used as is.
"""

from __future__ import annotations

import qdrant_edge as qe
from qdrant_client import models

# Qdrant's BM25 defaults, the parameters of its server-side "qdrant/bm25" model.
BM25_K = 1.2
BM25_B = 0.75
BM25_AVG_LEN = 256.0

_MODEL = qe.Bm25(qe.Bm25Config(k=BM25_K, b=BM25_B, avg_len=BM25_AVG_LEN, language="english"))


def _to_client(vector: qe.SparseVector) -> models.SparseVector:
    return models.SparseVector(indices=list(vector.indices), values=[float(v) for v in vector.values])


def embed_document(text: str) -> models.SparseVector:
    """The BM25 sparse vector of a stored text (term-frequency weights; IDF is applied by the server)."""
    return _to_client(_MODEL.embed_document(text))


def embed_query(text: str) -> models.SparseVector:
    """The BM25 sparse vector of a query (1.0 per unique term). Empty when the text is only stopwords."""
    return _to_client(_MODEL.embed_query(text))
