"""The extension point of note writes: other apps act on a stored note inside its transaction.

Memory does not import the apps built on top of it; the composition root registers their hooks at start-up
(``elf_project.apps``). Graph memory is one: it turns ``structured.relations`` into facts with the note as
evidence. A hook runs only for a note the policy stage remembered or updated (never for ignored or rejected
notes), in the note's transaction, so the note and its side effects commit or roll back together. It runs
once the note's row exists: for new notes written together (``write_new_notes_together``), when they are
inserted, in input order and before any later note's hook.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from elf_kernel.context import RequestContext

from ...models import MemoryNote


@dataclass(frozen=True)
class NoteWritten:
    ctx: RequestContext  # the note's home context (org_shared notes: project __org__)
    note: MemoryNote
    structured: dict | None
    op: str  # ADD | UPDATE | NONE
    at: datetime  # the time of this write: the default start of anything the note asserts
    field_path: str  # JSONPath of the note in the request, for warnings


NoteWriteHook = Callable[[NoteWritten], list[str]]  # returns warnings for the note's result

_hooks: list[NoteWriteHook] = []


def register_note_write_hook(hook: NoteWriteHook) -> None:
    """Register once per process (idempotent), from the composition root."""
    if hook not in _hooks:
        _hooks.append(hook)


def run_note_write_hooks(event: NoteWritten) -> list[str]:
    warnings: list[str] = []
    for hook in _hooks:
        warnings += hook(event)
    return warnings
