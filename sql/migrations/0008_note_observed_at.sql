-- 0008: when a note's statement was made (issue 32): optional, given by the writer (e.g. the time of the
-- conversation session a turn belongs to), distinct from created_at/updated_at (when the service stored it). A
-- search whose query names a date (for example "on 25 May, 2022" or "in June 2022") also looks among the notes
-- observed then (search.domain.time_phrases). NULL for every note written before this migration.
ALTER TABLE memory_notes ADD COLUMN IF NOT EXISTS observed_at timestamptz NULL;
