-- Structured fields of a note (structured.summary / facts / concepts): one row per item.
CREATE TABLE IF NOT EXISTS memory_note_fields (
    field_id uuid PRIMARY KEY,
    note_id uuid NOT NULL REFERENCES memory_notes (note_id) ON DELETE CASCADE,
    field_kind text NOT NULL,
    item_index int NOT NULL,
    text text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ck_memory_note_fields_kind CHECK (field_kind IN ('summary', 'fact', 'concept')),
    CONSTRAINT ck_memory_note_fields_item_index CHECK (item_index >= 0),
    CONSTRAINT ck_memory_note_fields_single_summary CHECK (field_kind <> 'summary' OR item_index = 0)
);

CREATE UNIQUE INDEX IF NOT EXISTS uq_memory_note_fields_note_kind_index
    ON memory_note_fields (note_id, field_kind, item_index);
