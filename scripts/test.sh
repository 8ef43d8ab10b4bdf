#!/usr/bin/env bash
# make test: start the test stack on its own ports (tests/elf.test.toml), run pytest, stop the stack.
set -uo pipefail
cd "$(dirname "$0")/.."
CFG=tests/elf.test.toml
STACK=.venv/bin/elf-stack

cleanup() { "$STACK" down -c "$CFG" || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

"$STACK" up -c "$CFG" || exit 1
.venv/bin/python -m pytest "$@"
rc=$?
# pytest exit 5 means no test ran: that is a failure here, never a pass.
exit $rc
