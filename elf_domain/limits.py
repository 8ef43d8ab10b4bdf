"""Request size limits of the public API that its HTTP clients (elf-eval, elf-mcp) plan around too, so each
has one spelling. Pure constants, no I/O."""

from __future__ import annotations

# POST /v2/notes/ingest takes at most this many notes in one request (the API answers 400 beyond it).
MAX_NOTES_PER_REQUEST = 100
# A note's ttl_days (add_note, PATCH, and an extracted note's) is at most this many days.
MAX_TTL_DAYS = 36500
# A note's key is at most this many characters.
MAX_NOTE_KEY_CHARS = 128
# POST /v2/events/ingest takes at most this many messages, each of at most this many characters.
MAX_EVENT_MESSAGES = 100
MAX_MESSAGE_CHARS = 16000
# A search's query is at most this many characters; top_k and candidate_k at most these.
MAX_QUERY_CHARS = 2000
MAX_TOP_K = 100
MAX_CANDIDATE_K = 1024
# An ingestion profile id (and created_by) is at most this many characters.
MAX_PROFILE_ID_CHARS = 128
# An ingestion profile version is a Postgres int: larger ones are a 400, not an overflow.
MAX_PROFILE_VERSION = 2**31 - 1
# A source_ref (of a note or a document) is a JSON object of at most this many bytes as UTF-8 JSON.
MAX_SOURCE_REF_BYTES = 16384

# A note's context (memory.domain.note_context): at most this many characters of its NFKC form.
MAX_CONTEXT_CHARS = 1000
