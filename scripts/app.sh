#!/usr/bin/env bash
# Runs the app on http://127.0.0.1:8501 after setting up .venv with requirements.txt.
# Usage: scripts/app.sh [extra streamlit args...]
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt

# the matrices are at most 64 x 64: one BLAS thread per process avoids threads waiting for a core
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
exec .venv/bin/python -m streamlit run app.py --server.address 127.0.0.1 "$@"
