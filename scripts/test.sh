#!/usr/bin/env bash
# Runs every test, browser tests included, on a fresh machine: sets up .venv, chromium and nginx
# first.
# Usage: scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's chromium for the browser tests, nginx for the tests of scripts/serve.sh, git-lfs for
# those of deploy/space.sh, PostgreSQL for the class store's, HAProxy for the multi-host ones
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
git lfs version >/dev/null 2>&1 || missing+=(git-lfs)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
command -v ip >/dev/null || missing+=(iproute2)
command -v npm >/dev/null || missing+=(npm)
if [ "${#missing[@]}" -gt 0 ]; then
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -q
    $sudo_cmd apt-get install -y -q "${missing[@]}"
fi

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
# --no-compile: Python compiles a module the first time a test imports it, and keeps it
# (tests/conftest.py, even where PYTHONDONTWRITEBYTECODE is set); pip would compile every file
# of every package first (12 of the 30 s of a new .venv's install)
.venv/bin/python -m pip install -q --no-compile --disable-pip-version-check -r requirements-dev.txt

.venv/bin/python -m ruff check .
.venv/bin/python -m ruff format --check .
# every test, browser and deploy ones included: pyproject's addopts leaves them out of a bare
# `pytest`; a -m given here (scripts/test.sh -m "not deploy") still chooses. One pytest-xdist
# worker per core, each with its own server and browser (tests/conftest.py keeps the tests
# that must share one worker together); -n 0 given here runs them all in this process
exec .venv/bin/python -m pytest -o addopts=-ra -n auto --dist loadgroup "$@"
