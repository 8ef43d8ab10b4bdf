"""manage.py -c elf.toml core_memory export|import --workspace DIR --tenant T --project P [--run R]

Edit a workspace's PROFILE.md (and, with --run, that run's SESSION.md) as files on disk.

export writes DIR/PROFILE.md (and DIR/SESSION.md) byte for byte as stored; a document never written is its
empty form (``# PROFILE\\n``, ``# SESSION\\n``). import reads back the files of DIR that are present (SESSION.md
only with --run) and stores each one through the service's PUT path (services.entries.put_document), so the
same line validation, English gate and secret check apply. All files are written in one transaction: on any
error every error is printed (``PROFILE.md: Line 4, priority: ...``), nothing is stored, and the exit status is 1.
"""

from __future__ import annotations

import re
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from core_memory.domain.vocabulary import FILE_NAMES, MemoryScope, Source
from core_memory.selectors import Workspace
from core_memory.services.documents import WriteResult, current_text
from core_memory.services.entries import put_document
from elf_config.identifiers import ORG_PROJECT_ID, identifier_problem
from elf_kernel.context import RequestContext
from elf_kernel.errors import ElfError

AGENT = "manage.py"
_LINE_FIELD = re.compile(r"^\$\.line\[(\d+)\]\.(\w+)$")


class _Rollback(Exception):
    """Raised inside the import transaction after an error, so that nothing of any file is kept."""


def _where(fields: list[str]) -> str:
    """``$.line[4].value`` as ``Line 4, value``; other JSONPaths as they are."""
    out = []
    for f in fields:
        m = _LINE_FIELD.match(f)
        out.append(f"Line {m.group(1)}, {m.group(2)}" if m else f)
    return "; ".join(out)


def describe(name: str, exc: ElfError) -> str:
    text = f"{name}: {exc.message}"
    where = _where(exc.fields)
    if where and not exc.message.startswith("Line "):
        text += f" ({where})"
    return f"{text} [{exc.error_code}]"


class Command(BaseCommand):
    help = ("Export a workspace's PROFILE.md (and a run's SESSION.md) to files, or import edited files back "
            "through the same validation as PUT (all or nothing).")

    def add_arguments(self, parser) -> None:
        parser.add_argument("action", choices=("export", "import"))
        parser.add_argument("--workspace", required=True, help="the folder holding PROFILE.md and SESSION.md")
        parser.add_argument("--tenant", required=True)
        parser.add_argument("--project", required=True)
        parser.add_argument("--run", help="a run id: SESSION.md of that run too")

    def handle(self, *args, **options) -> None:
        ctx = self._context(options)
        folder = Path(options["workspace"])
        run_id = options["run"]
        scopes = [MemoryScope.PROFILE] + ([MemoryScope.SESSION] if run_id else [])
        if options["action"] == "export":
            self.export(ctx, folder, scopes, run_id)
        else:
            self.import_(ctx, folder, scopes, run_id)

    @staticmethod
    def _context(options) -> RequestContext:
        problems = [f"--{name} {why}" for name in ("tenant", "project", "run")
                    if options[name] is not None and (why := identifier_problem(options[name]))]
        if options["project"] == ORG_PROJECT_ID:
            problems.append(f"--project must not be the reserved project id {ORG_PROJECT_ID}")
        if problems:
            raise CommandError("; ".join(problems))
        return RequestContext(tenant_id=options["tenant"], project_id=options["project"], agent_id=AGENT,
                              read_profile=None)

    def export(self, ctx: RequestContext, folder: Path, scopes: list[MemoryScope], run_id: str | None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        for scope in scopes:
            text, version, ended = current_text(Workspace.of(ctx, scope, run_id))
            path = folder / FILE_NAMES[scope]
            path.write_bytes(text.encode("utf-8"))  # bytes, so no newline translation
            note = " (never written: its empty form)" if version == 0 else ""
            note += f" (run {run_id} ended: read-only)" if ended else ""
            self.stdout.write(f"exported {FILE_NAMES[scope]} version {version} to {path} "
                              f"({len(text.encode('utf-8'))} bytes){note}")

    def import_(self, ctx: RequestContext, folder: Path, scopes: list[MemoryScope], run_id: str | None) -> None:
        if not folder.is_dir():
            raise CommandError(f"{folder} is not a folder")
        if not run_id and (folder / FILE_NAMES[MemoryScope.SESSION]).exists():
            raise CommandError(f"{folder / 'SESSION.md'} is present but no --run was given: a SESSION.md belongs "
                               "to a run (nothing imported)")
        texts, errors = {}, []
        for scope in scopes:
            path = folder / FILE_NAMES[scope]
            if not path.exists():
                continue
            try:
                texts[scope] = path.read_bytes().decode("utf-8")  # exact bytes: CRLF stays CRLF
            except UnicodeDecodeError as exc:
                errors.append(f"{FILE_NAMES[scope]}: not valid UTF-8 (byte {exc.start})")
        if not texts and not errors:
            raise CommandError(f"nothing to import: no {' or '.join(FILE_NAMES[s] for s in scopes)} in {folder}")
        results: dict[MemoryScope, WriteResult] = {}
        try:
            with transaction.atomic():
                for scope, text in texts.items():
                    try:
                        with transaction.atomic():  # a savepoint: the next file is still checked
                            results[scope] = put_document(
                                ctx=ctx, scope=scope, run_id=run_id if scope is MemoryScope.SESSION else None,
                                text=text, actor=Source.USER_EXPLICIT, if_version=None,
                                reason=f"imported from {folder / FILE_NAMES[scope]} by manage.py core_memory import")
                    except ElfError as exc:
                        errors.append(describe(FILE_NAMES[scope], exc))
                if errors:
                    raise _Rollback
        except _Rollback:
            pass
        if errors:
            for e in errors:
                self.stderr.write(e)
            raise CommandError(f"{len(errors)} error(s); nothing was imported")
        for scope, r in results.items():
            state = "changed" if r.changed else "unchanged"
            self.stdout.write(f"imported {FILE_NAMES[scope]}: version {r.doc.version} ({state}, "
                              f"{r.doc.entries.count()} entries, {len(r.audit_ids)} audit rows)")
