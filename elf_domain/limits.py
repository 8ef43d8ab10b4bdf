"""Request size limits of the public API that its HTTP clients (elf-eval, elf-mcp) plan around too, so each
has one spelling. Pure constants, no I/O."""

from __future__ import annotations

# POST /v2/notes/ingest takes at most this many notes in one request (the API answers 400 beyond it).
MAX_NOTES_PER_REQUEST = 100
# An ingestion profile id (and created_by) is at most this many characters.
MAX_PROFILE_ID_CHARS = 128
# An ingestion profile version is a Postgres int: larger ones are a 400, not an overflow.
MAX_PROFILE_VERSION = 2**31 - 1
# A source_ref (of a note or a document) is a JSON object of at most this many bytes as UTF-8 JSON.
MAX_SOURCE_REF_BYTES = 16384

# A note's context (memory.domain.note_context): at most this many characters of its NFKC form.
MAX_CONTEXT_CHARS = 1000
