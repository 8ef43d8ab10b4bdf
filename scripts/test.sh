#!/usr/bin/env bash
# make test: check the import contract, lint and types, start the test stack on its own ports (tests/elf.test.toml), run pytest
# (with the 25 slowest tests listed), stop the stack.
set -uo pipefail
cd "$(dirname "$0")/.."
CFG=tests/elf.test.toml
STACK=.venv/bin/elf-stack

cleanup() { "$STACK" down -c "$CFG" || true; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# The house rules first (.importlinter): a wrong-way import fails the run before any service starts.
.venv/bin/lint-imports --no-cache || { echo "== import contract broken (see above)"; exit 1; }
# Then lint (ruff's rule set in pyproject.toml) and types (mypy on the pure rules, the config and the client).
.venv/bin/ruff check . || { echo "== ruff found problems (see above)"; exit 1; }
.venv/bin/python -m mypy || { echo "== mypy found problems (see above)"; exit 1; }

"$STACK" up -c "$CFG" || exit 1
.venv/bin/python -m pytest --durations=25 "$@"
rc=$?
# pytest exit 5 means no test ran: that is a failure here, never a pass.
exit $rc
