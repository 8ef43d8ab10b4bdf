-- 0006: a note's context (issue 32): optional text that is embedded with the note but is not the note. An
-- agent writing a conversation turn passes the turns around it, so a reply such as "Yes, last Friday!" is found
-- by what it answers. The search returns the note's text; the context only shapes its dense vector (and so its
-- duplicate check). '' means none, as for every note written before this migration.
ALTER TABLE memory_notes ADD COLUMN IF NOT EXISTS context text NOT NULL DEFAULT '';
