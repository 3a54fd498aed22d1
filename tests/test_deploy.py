"""What a public host gets: .streamlit/config.toml, the Dockerfile, and an app that runs with
exactly requirements.txt in a fresh virtual environment."""

from __future__ import annotations

import ast
import hashlib
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from streamlit import config as st_config

from tests.e2e.harness import http_status, start_server
from ui.frame.page import PAGES

ROOT = Path(__file__).resolve().parents[1]
CONFIG = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
DOCKERFILE = (ROOT / "Dockerfile").read_text()
DEFAULT_BACKGROUNDS = {"light": "#ffffff", "dark": "#171614"}  # Streamlit's, see its config.py


def flatten(table: dict[str, object], prefix: str = "") -> dict[str, object]:
    """{"server": {"port": 1}} -> {"server.port": 1}."""
    flat: dict[str, object] = {}
    for key, value in table.items():
        if isinstance(value, dict):
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two #rrggbb colours (1 to 21)."""

    def luminance(colour: str) -> float:
        channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


# --- .streamlit/config.toml ----------------------------------------------------------------


def test_every_config_key_is_a_streamlit_option() -> None:
    unknown = set(flatten(CONFIG)) - set(st_config._config_options_template)
    assert not unknown, f"not options of the installed streamlit: {sorted(unknown)}"


def test_no_page_needs_magic_which_is_off() -> None:
    """Magic (a bare expression written to the page) is off, so that the server never parses a
    page with ast.parse (not thread-safe on Python 3.11): no page has an expression that magic
    would have drawn (a bare value that is not a call or a docstring)."""
    assert flatten(CONFIG)["runner.magicEnabled"] is False
    bare = []
    for path in (file for file, _, _ in PAGES):  # app.py and every page
        for node in ast.walk(ast.parse((ROOT / path).read_text(encoding="utf-8"))):
            body = getattr(node, "body", None)
            for i, statement in enumerate(body if isinstance(body, list) else []):
                value = getattr(statement, "value", None)
                docstring = (
                    i == 0 and isinstance(value, ast.Constant) and isinstance(value.value, str)
                )
                if isinstance(statement, ast.Expr) and not (
                    isinstance(value, (ast.Call, ast.Await, ast.Yield, ast.YieldFrom)) or docstring
                ):
                    bare.append(f"{path}:{statement.lineno}")
    assert bare == []


def test_config_is_ready_for_a_public_server() -> None:
    flat = flatten(CONFIG)
    assert flat["server.fileWatcherType"] == "none"
    assert flat["server.runOnSave"] is False
    assert flat["server.enableXsrfProtection"] is True
    assert flat["server.enableStaticServing"] is False
    assert 1 <= flat["server.maxUploadSize"] <= 5  # MB; the app uploads nothing
    assert 1 <= flat["server.maxMessageSize"] <= 16  # MB; the default 200 invites abuse
    # "none": an uncaught error shows a generic notice, never a traceback or a message; the
    # app's own st.warning / st.error boxes are not exceptions and show in full
    assert flat["client.showErrorDetails"] == "none"
    assert flat["client.toolbarMode"] in ("viewer", "minimal")  # no Deploy button
    assert flat["client.showSidebarNavigation"] is False  # the frame draws the navigation
    assert flat["browser.gatherUsageStats"] is False
    assert flat["runner.postScriptGC"] is False
    # the address and port come from the command line of each host, never from this file
    assert "server.address" not in flat and "server.port" not in flat


def test_theme_follows_the_visitor_and_stays_readable() -> None:
    theme = CONFIG["theme"]
    assert "base" not in theme, "a fixed base would force light or dark on every visitor"
    for mode, background in DEFAULT_BACKGROUNDS.items():
        accent = theme[mode]["primaryColor"]
        assert re.fullmatch(r"#[0-9a-fA-F]{6}", accent)
        assert contrast(accent, background) >= 4.5, (mode, accent)


# --- Dockerfile ----------------------------------------------------------------------------


def instructions(dockerfile: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", dockerfile)
    lines = [line.strip() for line in joined.splitlines()]
    pairs = [line.split(None, 1) for line in lines if line and not line.startswith("#")]
    return [(pair[0].upper(), pair[1] if len(pair) > 1 else "") for pair in pairs]


def test_dockerfile_serves_port_8501_as_uid_1000() -> None:
    steps = instructions(DOCKERFILE)
    names = [name for name, _ in steps]
    assert steps[0] == ("FROM", "python:3.11-slim")
    assert any(n == "RUN" and re.search(r"useradd .*--uid 1000\b", a) for n, a in steps)

    def index(name: str, pattern: str) -> int:
        found = [i for i, (n, a) in enumerate(steps) if n == name and re.search(pattern, a)]
        assert len(found) == 1, (name, pattern)
        return found[0]

    # requirements first, so a code change reuses the dependency layer
    copy_requirements = index("COPY", r"^requirements\.txt ")
    install = index("RUN", r"pip install -r requirements\.txt")
    copy_code = index("COPY", r"(^| )\. \.$")
    assert copy_requirements < install < copy_code
    # the server runs as the user, not as root
    user = index("USER", r"^user$")
    assert user > install and names.count("USER") == 1
    assert ("EXPOSE", "8501") in steps
    assert "/_stcore/health" in steps[index("HEALTHCHECK", r"")][1]

    # nginx in front of as many processes as the container holds (scripts/serve.sh with no
    # count; its routing and its count are tested in test_nginx_config.py), on the container's
    # own interface, with the image's Python
    install_nginx = index("RUN", r"apt-get install .*\bnginx\b")
    assert install_nginx < user and "rm -rf /var/lib/apt/lists" in steps[install_nginx][1]
    assert json.loads(steps[index("CMD", r"")][1]) == ["bash", "scripts/serve.sh"]
    env = " ".join(a for n, a in steps if n == "ENV")
    assert "ADDRESS=0.0.0.0" in env.split() and "PYTHON=python" in env.split()
    serve = (ROOT / "scripts" / "serve.sh").read_text()
    assert 'port="${2:-8501}"' in serve  # port 8501 unless told otherwise


def dockerignore_pattern(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern as Docker reads it: ``*`` and ``?`` within one path segment,
    ``**`` across any number of them, anchored at the top of the context."""
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


def test_dockerignore_keeps_what_the_app_needs() -> None:
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]

    def ignored(path: str) -> bool:
        """As Docker reads the file: a pattern that matches the path or one of its folders
        excludes it, the last pattern that matches decides, ``!`` keeps."""
        parts = path.split("/")
        candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
        verdict = False
        for p in patterns:
            keep = p.startswith("!")
            regex = dockerignore_pattern(p.removeprefix("!").strip("/"))
            if any(regex.fullmatch(c) for c in candidates):
                verdict = not keep
        return verdict

    needed = ["app.py", "requirements.txt", ".streamlit/config.toml"]
    needed += ["scripts/serve.sh", "deploy/nginx.conf.template", "deploy/static_assets.py"]
    needed += [file for file, _, _ in PAGES] + ["ui/frame/page.py", "llm/engine.py"]
    needed += ["exercises/check.py", "ui/turn/panel.py", "sandbox/worker.py", "sandbox/runner.py"]
    needed += ["llm/model.npz"]  # a checkpoint the app loads
    assert [path for path in needed if ignored(path)] == []
    unneeded = [".venv/bin/python", ".git/HEAD", "artifacts/x.png", "scripts/test.sh", "bench/x.py"]
    unneeded += ["docs/screenshot.png", "tests/e2e/harness.py", ".pytest_cache/v/x"]
    unneeded += ["deploy/space.sh"]  # it pushes to a Space; the Space's image does not run it
    # what a local run compiles, in every folder: the image compiles its own
    unneeded += ["__pycache__/app.cpython-311.pyc", "llm/__pycache__/engine.cpython-311.pyc"]
    unneeded += ["ui/text/__pycache__/en.cpython-311.pyc", "sandbox/worker.pyc"]
    assert [path for path in unneeded if not ignored(path)] == []


# --- Hugging Face Spaces: deploy/space.sh --------------------------------------------------

SPACE_SCRIPT = ROOT / "deploy" / "space.sh"
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\n"

# The Hub's rule for a push, as a pre-receive hook: a file with a zero byte (or above 10 MB)
# that is not a git-lfs pointer is refused, in any commit the push brings.
HUB_HOOK = """#!{python}
import subprocess, sys
new = [line.split()[1] for line in sys.stdin if line.strip()]
listed = subprocess.run(["git", "rev-list", "--objects", *new, "--not", "--all"],
                        capture_output=True, text=True, check=True).stdout.splitlines()
paths = dict(entry.partition(" ")[::2] for entry in listed)
batch = subprocess.run(["git", "cat-file", "--batch"], input="\\n".join(paths).encode() + b"\\n",
                       capture_output=True, check=True).stdout
at = 0  # read in place: slicing off what was read copies the rest, each object again
while at < len(batch):
    end = batch.index(b"\\n", at)
    sha, kind, size = batch[at:end].decode().split()
    start, at = end + 1, end + 2 + int(size)
    if kind == "blob" and (batch.find(b"\\0", start, at - 1) >= 0 or int(size) > 10_000_000):
        sys.exit("Your push was rejected because it contains binary files: " + paths[sha])
"""


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


def space(*args: str, cwd: Path = ROOT, script: Path = SPACE_SCRIPT) -> subprocess.CompletedProcess:
    """deploy/space.sh with ``args``; git-lfs missing is a failure, never a skip."""
    lfs = subprocess.run(["git", "lfs", "version"], capture_output=True)
    if lfs.returncode != 0:
        pytest.fail("git-lfs is missing: scripts/test.sh installs it (apt-get install git-lfs)")
    return subprocess.run(["bash", str(script), *args], cwd=cwd, capture_output=True, text=True)


def front_matter(readme: str) -> tuple[dict[str, str], str]:
    """The ``key: value`` lines between the first two ``---`` lines, and the text after them."""
    lines = readme.split("\n")
    assert lines[0] == "---", lines[0]
    end = lines.index("---", 1)
    fields = dict(line.split(": ", 1) for line in lines[1:end])
    return fields, "\n".join(lines[end + 1 :])


def fake_hub(tmp_path: Path) -> Path:
    """A bare repository that refuses binary files as the Hub does, holding a first commit of
    its own as a Space made on the web page does."""
    hub = tmp_path / "space.git"
    subprocess.run(["git", "init", "-q", "--bare", str(hub)], check=True)
    hook = hub / "hooks" / "pre-receive"
    hook.write_text(HUB_HOOK.format(python=sys.executable))
    hook.chmod(0o755)
    web = tmp_path / "web"
    web.mkdir()
    (web / "README.md").write_text("---\ntitle: x\nsdk: gradio\n---\n")
    (web / ".gitattributes").write_text("*.bin filter=lfs diff=lfs merge=lfs -text\n")
    git(web, "init", "-q")
    git(web, "add", ".")
    git(web, "-c", "user.name=w", "-c", "user.email=w@x", "commit", "-q", "-m", "initial commit")
    git(web, "push", "-q", str(hub), "HEAD:refs/heads/main")
    return hub


@pytest.mark.deploy
def test_a_space_gets_one_commit_with_its_binary_files_in_git_lfs(tmp_path: Path) -> None:
    """--prepare makes what a Space is pushed: HEAD's files in one commit, the README with the
    front matter Spaces read, and each binary file a git-lfs pointer to its exact content."""
    done = space("--prepare", str(tmp_path / "space"))
    assert done.returncode == 0, done.stderr
    prepared = tmp_path / "space"
    assert git(prepared, "rev-list", "--count", "HEAD") == "1\n"
    head = git(ROOT, "ls-tree", "-r", "-z", "--name-only", "HEAD").split("\0")[:-1]
    assert sorted(git(prepared, "ls-files").splitlines()) == sorted([*head, ".gitattributes"])

    fields, rest = front_matter((prepared / "README.md").read_text())
    assert fields["sdk"] == "docker"
    assert ("EXPOSE", fields["app_port"]) in instructions(DOCKERFILE)
    assert fields["colorFrom"] in {"red", "yellow", "green", "blue", "indigo", "purple", "pink"}
    assert rest.lstrip("\n") == git(ROOT, "show", "HEAD:README.md")

    binaries = []
    for path in head:
        original = subprocess.run(
            ["git", "show", f"HEAD:{path}"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        stored = subprocess.run(
            ["git", "cat-file", "blob", f"HEAD:{path}"], cwd=prepared, capture_output=True
        ).stdout
        if b"\0" in original:
            binaries.append(path)
            assert stored.startswith(LFS_POINTER), path
            assert f"oid sha256:{hashlib.sha256(original).hexdigest()}".encode() in stored
        elif path != "README.md":
            assert stored == original, path
        # the folder holds the real files, as the Space's build gets them
        if path != "README.md":
            assert (prepared / path).read_bytes() == original, path
    assert any(path.endswith(".png") for path in binaries)  # the README's screenshots
    assert sorted(git(prepared, "lfs", "ls-files", "-n").splitlines()) == sorted(binaries)


@pytest.mark.deploy
def test_any_binary_file_goes_to_git_lfs_whatever_its_name(tmp_path: Path) -> None:
    """A checkpoint (.npz), a file without an extension, a text file above 10 MB: each is
    tracked; text files stay plain."""
    project = tmp_path / "project"
    (project / "deploy").mkdir(parents=True)
    (project / "deploy" / "space.sh").write_bytes(SPACE_SCRIPT.read_bytes())
    (project / "README.md").write_text("# A lab\n")
    (project / "llm").mkdir()
    (project / "llm" / "model.npz").write_bytes(b"PK\x03\x04\x00\x01" * 100)
    (project / "icon").write_bytes(b"\x89PNG\x00")
    (project / "big.csv").write_text("1,2\n" * 3_000_000)
    (project / "app.py").write_text("print('hi')\n")
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "lab")
    done = space("--prepare", str(tmp_path / "space"), script=project / "deploy" / "space.sh")
    assert done.returncode == 0, done.stderr
    prepared = tmp_path / "space"
    lfs = sorted(git(prepared, "lfs", "ls-files", "-n").splitlines())
    assert lfs == ["big.csv", "icon", "llm/model.npz"]
    attributes = (prepared / ".gitattributes").read_text()
    assert "*.npz filter=lfs" in attributes and "/icon filter=lfs" in attributes
    assert (prepared / "llm" / "model.npz").read_bytes() == b"PK\x03\x04\x00\x01" * 100


@pytest.mark.deploy
def test_the_push_replaces_a_spaces_first_commit_and_the_hub_takes_it(tmp_path: Path) -> None:
    """Against a repository that refuses binary files as the Hub does and starts with the web
    page's commit: this repository's own history is refused, deploy/space.sh's push is taken
    and replaces that commit, and a clone gets the real files back."""
    hub = fake_hub(tmp_path)
    url = f"file://{hub}"

    def push(*options: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["git", "push", *options, url, "HEAD:refs/heads/main"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )

    # `git push space main`: the web page's commit is not in this history
    plain = push()
    assert plain.returncode != 0 and "[rejected]" in plain.stderr, plain.stderr
    # and forced, the history's screenshots are refused
    forced = push("--force")
    assert forced.returncode != 0
    assert "rejected because it contains binary files: docs/" in forced.stderr, forced.stderr

    done = space(url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "forced update" in done.stderr
    assert git(hub, "rev-list", "--count", "main") == "1\n"  # the web page's commit is gone
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "-b", "main", url, str(clone)], check=True, capture_output=True
    )
    git(clone, "lfs", "install", "--local")  # where git-lfs is not set up for every repository
    git(clone, "lfs", "pull")
    assert front_matter((clone / "README.md").read_text())[0]["sdk"] == "docker"
    for png in git(ROOT, "ls-files", "*.png").splitlines():
        assert (clone / png).read_bytes() == (ROOT / png).read_bytes(), png
    assert (clone / "Dockerfile").read_text() == git(ROOT, "show", "HEAD:Dockerfile")


# --- a fresh virtual environment -----------------------------------------------------------

RUN_EVERY_PAGE = """
import sys
from streamlit.testing.v1 import AppTest
failed = []
for path in sys.argv[1:]:
    at = AppTest.from_file(path, default_timeout=60).run()
    if at.exception or not at.title:
        failed.append((path, [e.message for e in at.exception]))
print(failed)
sys.exit(1 if failed else 0)
"""


@pytest.mark.deploy
def test_requirements_alone_serve_the_app(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    pip = [python, "-m", "pip", "--disable-pip-version-check", "-q"]
    # no byte-compiling of every installed file (half the install's CPU): the pages compile
    # what they import
    subprocess.run(
        [*pip, "install", "--no-compile", "-r", "requirements.txt"],
        cwd=ROOT,
        check=True,
        timeout=900,
    )
    subprocess.run([*pip, "check"], check=True)
    # nothing from the development requirements came along
    for module in ("pytest", "playwright", "hypothesis"):
        probe = subprocess.run([python, "-c", f"import {module}"], capture_output=True)
        assert probe.returncode != 0, f"{module} is importable in the fresh environment"

    # every page runs to its end (a title, no exception) with these packages only
    pages = [file for file, _, _ in PAGES]
    run = subprocess.run(
        [python, "-c", RUN_EVERY_PAGE, *pages], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr[-3000:]

    server = start_server("deploy", python=python)
    try:
        assert http_status(f"{server.url}/_stcore/health") == 200
        assert http_status(f"{server.url}/") == 200
        assert http_status(f"{server.url}/softmax?d_model=16&n_heads=8&seed=7") == 200
    finally:
        server.stop()
