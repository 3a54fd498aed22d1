#!/usr/bin/env bash
# Runs the app as several Streamlit processes behind nginx, one per core by default, on
# http://127.0.0.1:8501. One process runs every session's script under one GIL, so it uses one
# core; on a host with more cores, more processes answer more students. Needs nginx
# (apt-get install nginx-light). Ctrl+C stops everything.
# Usage: scripts/serve.sh [processes] [port]
set -euo pipefail
cd "$(dirname "$0")/.."

processes="${1:-$(nproc)}"
port="${2:-8501}"
command -v nginx >/dev/null || { echo "nginx is missing: apt-get install nginx-light" >&2; exit 1; }

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"

# one cookie secret for every process, so an XSRF token from one is valid on the others
export STREAMLIT_SERVER_COOKIE_SECRET="$(.venv/bin/python -c "import secrets; print(secrets.token_hex(16))")"
prefix="$(mktemp -d "${TMPDIR:-/tmp}/attention-lab-nginx.XXXXXX")"
pids=()
stop() {
    kill "${pids[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$prefix"
}
trap stop EXIT INT TERM

# Streamlit's front-end files, for nginx to send compressed (deploy/static_assets.py); nginx's
# workers, which run as nobody when nginx starts as root, must be able to reach them
.venv/bin/python deploy/static_assets.py "$prefix/static"
chmod 711 "$prefix"

upstreams=""
for i in $(seq 1 "$processes"); do
    backend=$((port + 100 + i))
    .venv/bin/python -m streamlit run app.py --server.headless true \
        --server.address 127.0.0.1 --server.port "$backend" >"$prefix/streamlit-$backend.log" 2>&1 &
    pids+=("$!")
    upstreams+="        server 127.0.0.1:$backend;"$'\n'
done
sed -e "s|@PORT@|$port|" -e "s|@PREFIX@|$prefix|g" -e "s|@WORKERS@|1|" \
    -e "/^@UPSTREAMS@$/{
r /dev/stdin
d
}" deploy/nginx.conf.template >"$prefix/nginx.conf" <<<"$upstreams"
nginx -p "$prefix" -c "$prefix/nginx.conf" &
pids+=("$!")
echo "Attention Lab: $processes processes behind nginx on http://127.0.0.1:$port"
wait -n "${pids[@]}"
