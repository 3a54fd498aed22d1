#!/usr/bin/env bash
# Runs the app as several Streamlit processes behind nginx, one per core by default, on
# http://127.0.0.1:8501. One process runs every session's script under one GIL, so it uses one
# core; on a host with more cores, more processes answer more students. Needs nginx (apt-get
# install nginx), except with ATTENTION_LAB_NGINX=0. Ctrl+C stops everything.
# Usage: scripts/serve.sh [processes] [port]; scripts/serve.sh --count says how many by default;
# an empty count (scripts/serve.sh "" 8600) is the default one
# Environment: PYTHON, a Python that already has requirements.txt (the Dockerfile's; otherwise
# .venv is set up here); ADDRESS, where nginx listens (default 127.0.0.1; a container says
# 0.0.0.0, its own interface). Behind nginx, the Streamlit processes listen on 127.0.0.1 only.
# ATTENTION_LAB_PROCESSES, the count when no argument gives one; ATTENTION_LAB_NGINX=0 with one
# process: no nginx, this script becomes that one Streamlit process on ADDRESS:port (a
# Kubernetes pod: the cluster's load balancer is the front, docs/deploy.md).
# STREAMLIT_SERVER_COOKIE_SECRET, when set, is kept (every replica of a cluster gets the same one
# from a Secret); unset, one is drawn for this script's processes.
set -euo pipefail
cd "$(dirname "$0")/.."

# one process per core this script may use: the machine's cores (nproc), or a container's CPU
# quota when it is smaller; no more than its memory holds at 250 MB a process (a container's
# memory limit when it has one, else the machine's memory; a process peaks near 200 MB with 100
# students); at least 1 and at most 4. The limits come from cgroup v2 (cpu.max, memory.max) or,
# on a cgroup v1 host, from its cpu and memory controllers (cpu.cfs_quota_us over
# cpu.cfs_period_us, -1 for none; memory.limit_in_bytes, a number near 2^63 for none). CGROUP
# names another folder to read them from, laid out as /sys/fs/cgroup.
cores() {
    local cgroup="${CGROUP:-/sys/fs/cgroup}" quota="" period="" n memory total fit dir
    if read -r quota period 2>/dev/null <"$cgroup/cpu.max"; then
        [ "$quota" != "max" ] || quota=""
    else
        for dir in "$cgroup/cpu" "$cgroup/cpu,cpuacct"; do
            if read -r quota 2>/dev/null <"$dir/cpu.cfs_quota_us" \
                && read -r period 2>/dev/null <"$dir/cpu.cfs_period_us"; then
                break
            fi
            quota=""
        done
        [ "${quota:--1}" -gt 0 ] 2>/dev/null && [ "${period:-0}" -gt 0 ] || quota=""
    fi
    n=$(nproc)
    if [ -n "$quota" ] && [ $(((quota + period - 1) / period)) -lt "$n" ]; then
        n=$(((quota + period - 1) / period))
    fi
    total=$(($(awk '/^MemTotal:/ {print $2}' /proc/meminfo) * 1024))
    memory=""
    read -r memory 2>/dev/null <"$cgroup/memory.max" \
        || read -r memory 2>/dev/null <"$cgroup/memory/memory.limit_in_bytes" || memory=max
    # "max" (v2) or 19 digits and more (v1, 8 EB less a page): no limit, the machine's memory
    case "$memory" in
        "" | *[!0-9]* | ???????????????????*) memory=$total ;;
    esac
    fit=$((memory / (250 * 1024 * 1024)))
    n=$((n < fit ? n : fit))
    n=$((n < 4 ? n : 4))
    echo $((n > 1 ? n : 1))
}

if [ "${1:-}" = "--count" ]; then
    cores  # how many processes this host gets by default, and nothing else
    exit 0
fi
processes="${1:-${ATTENTION_LAB_PROCESSES:-$(cores)}}"
port="${2:-8501}"
address="${ADDRESS:-127.0.0.1}"
front="${ATTENTION_LAB_NGINX:-1}"
case "$processes" in
    "" | *[!0-9]* | 0*) echo "the process count must be a whole number from 1, not '$processes'" >&2
        exit 2 ;;
esac
case "$front" in
    0 | 1) ;;
    *) echo "ATTENTION_LAB_NGINX is 1 (nginx in front, the default) or 0, not '$front'" >&2
        exit 2 ;;
esac
if [ "$front" = 0 ] && [ "$processes" != 1 ]; then
    echo "ATTENTION_LAB_NGINX=0 serves one process; $processes need nginx in front" >&2
    exit 2
fi
# Debian installs nginx in /usr/sbin, which is not on a regular user's PATH
nginx="$(command -v nginx || echo /usr/sbin/nginx)"
[ "$front" = 0 ] || [ -x "$nginx" ] || { echo "nginx is missing: apt-get install nginx" >&2; exit 1; }

if [ -n "${PYTHON:-}" ]; then
    python="$PYTHON"
else
    if [ ! -x .venv/bin/python ]; then
        python3 -m venv .venv
    fi
    .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements.txt
    python=.venv/bin/python
fi
export OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"

# one cookie secret for every process, so an XSRF token from one is valid on the others; a
# secret already given is kept, so that every host or pod of one lab shares it
if [ -z "${STREAMLIT_SERVER_COOKIE_SECRET:-}" ]; then
    STREAMLIT_SERVER_COOKIE_SECRET="$("$python" -c "import secrets; print(secrets.token_hex(16))")"
fi
export STREAMLIT_SERVER_COOKIE_SECRET

if [ "$front" = 0 ]; then
    # one process, no nginx: exec, so that the process gets the container's signals itself
    echo "Attention Lab: one process on http://$address:$port"
    exec "$python" -m streamlit run app.py --server.headless true \
        --server.address "$address" --server.port "$port"
fi
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
"$python" deploy/static_assets.py "$prefix/static"
chmod 711 "$prefix"

upstreams=""
for i in $(seq 1 "$processes"); do
    backend=$((port + 100 + i))
    "$python" -m streamlit run app.py --server.headless true \
        --server.address 127.0.0.1 --server.port "$backend" >"$prefix/streamlit-$backend.log" 2>&1 &
    pids+=("$!")
    upstreams+="        server 127.0.0.1:$backend;"$'\n'
done
sed -e "s|@ADDRESS@|$address|" -e "s|@PORT@|$port|" -e "s|@PREFIX@|$prefix|g" -e "s|@WORKERS@|1|" \
    -e "/^@UPSTREAMS@$/{
r /dev/stdin
d
}" deploy/nginx.conf.template >"$prefix/nginx.conf" <<<"$upstreams"
# -e: nginx's start-up log in the working folder too (its default path is root's)
"$nginx" -p "$prefix" -e "$prefix/error.log" -c "$prefix/nginx.conf" &
pids+=("$!")
echo "Attention Lab: $processes process(es) behind nginx on http://$address:$port"
wait -n "${pids[@]}"
