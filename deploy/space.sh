#!/usr/bin/env bash
# Puts the app on a Hugging Face Space (Docker SDK) as one new commit that replaces whatever the
# Space holds. The Hub refuses a push that carries a binary file outside its large-file storage,
# and this repository's history has binary files (the README's screenshots), so the Space gets
# none of it: a new repository of one commit with the files of HEAD, every binary file (any file
# with a zero byte, or above 10 MB: screenshots, a model's checkpoint) stored by git-lfs, and a
# README.md that starts with the front matter Spaces read (Docker, port 8501). A Space made on the
# web page starts with a commit of its own; the push replaces it (--force).
# Usage: deploy/space.sh https://huggingface.co/spaces/<you>/<space>
#        deploy/space.sh --prepare DIR    only makes that repository in DIR (empty or new): to look
#                                         at it, or build its Dockerfile; pushes nothing
# Needs git and git-lfs (Debian/Ubuntu: apt-get install git-lfs; macOS: brew install git-lfs).
# The push asks for a username (yours on the Hub) and a password: an access token with write
# access (https://huggingface.co/settings/tokens), once for git and once for git-lfs unless a
# credential helper keeps it (git config --global credential.helper cache).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

usage() {
    sed -n 's/^# \{0,1\}//; /^Usage:/,/^Needs/p' "$0" | sed '$d' >&2
    exit 2
}
case "${1:-}" in
    "" | -h | --help) usage ;;
    --prepare)
        [ -n "${2:-}" ] || usage
        dir="$2"
        remote=""
        ;;
    *)
        dir=""
        remote="$1"
        ;;
esac
git lfs version >/dev/null 2>&1 \
    || { echo "git-lfs is missing: apt-get install git-lfs (macOS: brew install git-lfs)" >&2; exit 1; }

if [ -n "$(git -C "$root" status --porcelain --untracked-files=no)" ]; then
    echo "note: uncommitted changes stay here; the Space gets HEAD ($(git -C "$root" rev-parse --short HEAD))" >&2
fi
if [ -z "$dir" ]; then
    scratch="$(mktemp -d "${TMPDIR:-/tmp}/attention-lab-space.XXXXXX")"
    trap 'rm -rf "$scratch"' EXIT
    dir="$scratch/space"
fi
mkdir -p "$dir"
[ -z "$(ls -A "$dir")" ] || { echo "$dir is not empty" >&2; exit 2; }
git -C "$root" archive HEAD | tar -x -C "$dir"
cd "$dir"

# the front matter first: Spaces read the SDK and the port the container listens on from it
{
    cat <<'EOF'
---
title: Attention Lab
emoji: 🔎
colorFrom: blue
colorTo: indigo
sdk: docker
app_port: 8501
pinned: false
---

EOF
    cat README.md
} >README.md.new
mv README.md.new README.md

git init -q
git symbolic-ref HEAD refs/heads/main
git lfs install --local >/dev/null

# the binary files, tracked by their extension ("*.png"), by their path when they have none
binaries=()
patterns=()
while IFS= read -r -d '' file; do
    file="${file#./}"
    if ! cmp -s "$file" <(tr -d '\000' <"$file") || [ "$(wc -c <"$file")" -gt 10000000 ]; then
        binaries+=("$file")
        case "${file##*/}" in
            *.*) patterns+=("*.${file##*.}") ;;
            *) patterns+=("/$file") ;;
        esac
    fi
done < <(find . -path ./.git -prune -o -type f -print0)
if [ "${#patterns[@]}" -gt 0 ]; then
    printf '%s\n' "${patterns[@]}" | sort -u | while IFS= read -r pattern; do
        git lfs track "$pattern" >/dev/null
    done
fi

git add -A
git -c user.name="$(git -C "$root" config user.name || echo 'Attention Lab')" \
    -c user.email="$(git -C "$root" config user.email || echo 'attention-lab@localhost')" \
    commit -q -m "Attention Lab $(git -C "$root" rev-parse --short HEAD)"

# what the Hub checks: no binary file in the commit outside git-lfs (each one a pointer)
for file in ${binaries[@]+"${binaries[@]}"}; do
    if ! git cat-file blob "HEAD:$file" | head -c 200 | grep -q '^version https://git-lfs'; then
        echo "$file is not stored by git-lfs: the Hub would refuse the push" >&2
        exit 1
    fi
done
echo "one commit, $(git ls-files | wc -l | tr -d ' ') files, ${#binaries[@]} of them in git-lfs"

if [ -n "$remote" ]; then
    # git-lfs's pre-push hook sends the binary files first
    git push --force "$remote" main:main
    echo "pushed: the Space builds the image now (its Logs tab shows the build)"
fi
