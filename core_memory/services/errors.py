"""Core memory's failures, each with its stable code; elf_kernel's one exception handler renders them."""

from __future__ import annotations

from elf_kernel.errors import ElfError

from ..domain.markdown import ParseError


class MarkdownInvalid(ElfError):
    status, error_code = 422, "MARKDOWN_INVALID"

    @classmethod
    def of(cls, exc: ParseError) -> MarkdownInvalid:
        return cls(f"Line {exc.line}, {exc.field}: {exc.message}.", [f"$.line[{exc.line}].{exc.field}"])


class RejectSecret(ElfError):
    status, error_code = 422, "REJECT_SECRET"

    def __init__(self, fields: list[str]):
        super().__init__("A secret or personal identifier was found; core memory never stores one.", fields)


class RunEnded(ElfError):
    status, error_code = 409, "RUN_ENDED"


class AlreadyDecided(ElfError):
    status, error_code = 409, "ALREADY_DECIDED"


class VersionConflict(ElfError):
    status, error_code = 412, "VERSION_CONFLICT"


class DocumentTooLarge(ElfError):
    status, error_code = 413, "PAYLOAD_TOO_LARGE"
