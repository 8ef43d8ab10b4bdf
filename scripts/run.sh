#!/usr/bin/env bash
# make run: the embedded stack, the API, the worker and elf-mcp in the foreground; Ctrl-C stops all of it.
set -uo pipefail
cd "$(dirname "$0")/.."
CFG=${1:-elf.toml}
if [ ! -f "$CFG" ]; then
  cp elf.toml.example "$CFG"
  echo "== created $CFG from elf.toml.example"
fi
BIN=.venv/bin
pids=()

stop_all() {
  trap - INT TERM EXIT
  echo
  echo "== stopping"
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  "$BIN/elf-stack" down -c "$CFG"
  exit 0
}
trap stop_all INT TERM EXIT

"$BIN/elf-stack" up -c "$CFG" || exit 1
"$BIN/elf-api" -c "$CFG" & pids+=($!)
"$BIN/elf-worker" -c "$CFG" & pids+=($!)

read -r HTTP ADMIN MCP < <("$BIN/python" -c "
from elf_config import load_config
c = load_config('$CFG'); print(c.service.http_bind, c.service.admin_bind, c.service.mcp_bind if c.mcp else '-')")
# elf-mcp only when the config has an [mcp] section (the context it acts in).
if [ "$MCP" != "-" ]; then
  "$BIN/elf-mcp" -c "$CFG" & pids+=($!)
fi
for _ in $(seq 1 120); do
  "$BIN/python" -c "import sys, urllib.request; urllib.request.urlopen('http://$HTTP/health', timeout=2)
if '$MCP' != '-': urllib.request.urlopen('http://$MCP/health', timeout=2)" 2>/dev/null && break
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || { echo "a process exited during start-up"; stop_all; }; done
  sleep 0.5
done

cat <<MSG

== ELF is up (config: $CFG)
   public API   http://$HTTP        (health: http://$HTTP/health, docs: http://$HTTP/docs/)
   admin API    http://$ADMIN       (Django admin: http://$ADMIN/admin/, docs: http://$ADMIN/docs/)
$( [ "$MCP" != "-" ] && echo "   MCP server   http://$MCP/mcp   (Claude Code: claude mcp add --transport http elf http://$MCP/mcp)" \
   || echo "   MCP server   not started: add an [mcp] section to $CFG" )
   try:
     curl -s http://$HTTP/health
     curl -s http://$HTTP/v2/context -H 'X-ELF-Tenant-Id: t1' -H 'X-ELF-Project-Id: p1' -H 'X-ELF-Agent-Id: a1'
   Ctrl-C stops everything this command started.
MSG
wait -n "${pids[@]}"
echo "== a process exited; stopping everything"
stop_all
