#!/usr/bin/env bash
# make test-external: ELF on services it does not manage (docs/deploying.md). Postgres (an admin superuser, an owner
# role that is no superuser, SCRAM over TCP), Redis with a password and a Qdrant server are started apart from
# elf-stack on free ports; elf-api runs from this checkout and elf-worker from a copy of it, each with its own
# config; tests_external/ then drives them over HTTP and prints the sizing measurements.
#
# Everything lives in one temp folder, removed at exit whatever happened; any process the run started that is
# still alive then (its pid is in <folder>/pids/, Postgres' in its postmaster.pid) is stopped by that pid.
set -uo pipefail
cd "$(dirname "$0")/.."

WORK=$(mktemp -d "${TMPDIR:-/tmp}/elf-external.XXXXXX")
chmod 755 "$WORK"  # Postgres' system user (when run as root) reaches its data folder inside
START=$(date +%s)

stop_pid() {  # SIGTERM the process group led by $1 (every process here leads one), SIGKILL what is left
  local pid=$1 i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
  for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -KILL -- "-$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$? f pid
  for f in "$WORK"/pids/*.pid; do
    [ -f "$f" ] || continue
    pid=$(head -n1 "$f")
    [ -n "$pid" ] && echo "== test-external: stopping leftover $(basename "$f" .pid) (pid $pid)" && stop_pid "$pid"
  done
  f="$WORK/services/postgres/data/postmaster.pid"
  if [ -f "$f" ]; then
    pid=$(head -n1 "$f")
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      echo "== test-external: stopping leftover postgres (pid $pid)"
      kill -INT "$pid" 2>/dev/null  # Postgres' fast shutdown
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  if [ "$rc" != 0 ]; then  # the services' and hosts' logs, for a failed run in CI
    for f in "$WORK"/services/*/*.log "$WORK"/*-host/*.log; do
      [ -f "$f" ] && { echo "---- ${f#"$WORK"/} (last 60 lines)"; tail -n 60 "$f"; }
    done
  fi
  rm -rf "$WORK"
  echo "== test-external: exit $rc after $(( $(date +%s) - START ))s"
}
trap cleanup EXIT

# pytest runs in the background so that a signal to this script is handled at once (bash runs a trap only after
# a foreground child ends); it is passed on as SIGTERM, which tests_external/conftest.py turns into an interrupt:
# the fixtures stop the deployment, then cleanup above removes whatever is left.
PYTEST=
on_signal() {
  trap '' INT TERM
  [ -n "$PYTEST" ] && kill -TERM "$PYTEST" 2>/dev/null && wait "$PYTEST"
  exit 130
}
trap on_signal INT TERM
.venv/bin/python -m pytest -c tests_external/pytest.ini --rootdir=. --external-workdir="$WORK" --durations=10 "$@" &
PYTEST=$!
wait "$PYTEST"
