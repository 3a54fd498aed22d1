"""The nginx front of scripts/serve.sh: several processes, one browser always on the same one."""

from __future__ import annotations

import gzip
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from bench.common import free_port, nginx_config, nginx_path
from deploy.static_assets import TEXT_SUFFIXES, source
from deploy.static_assets import prepare as prepare_static

ROOT = Path(__file__).resolve().parents[1]


NGINX = nginx_path() or "nginx"


@pytest.fixture
def nginx() -> str:
    """nginx's program; a missing nginx is a failure, never a skip."""
    if nginx_path() is None:
        pytest.fail("nginx is missing: scripts/test.sh installs it (apt-get install nginx)")
    return NGINX


def test_the_template_routes_every_request_of_a_browser_to_one_process(tmp_path: Path) -> None:
    text = nginx_config(8501, [8601, 8602, 8603], tmp_path)
    assert "@" not in text  # every placeholder filled in
    upstream = re.search(r"upstream streamlit \{(.*?)\}", text, re.S).group(1)
    assert re.findall(r"server (\S+);", upstream) == [
        "127.0.0.1:8601",
        "127.0.0.1:8602",
        "127.0.0.1:8603",
    ]
    assert "hash $route consistent;" in upstream
    # the route is the browser's cookie when it has a well-formed one, else a new random id
    assert '"~^[0-9a-f]{32}$" $cookie_attention_lab_route;' in text
    assert "default $request_id;" in text
    assert 'Set-Cookie "attention_lab_route=$route; Path=/; HttpOnly; SameSite=Lax"' in text
    # the websocket passes through and stays open
    assert "proxy_set_header Upgrade $http_upgrade;" in text
    assert "proxy_read_timeout 1d;" in text
    assert "listen 127.0.0.1:8501;" in text


def test_serve_script_fills_the_template_the_same_way() -> None:
    script = (ROOT / "scripts" / "serve.sh").read_text()
    assert "deploy/nginx.conf.template" in script
    assert '"/^@UPSTREAMS@$/{' in script  # the placeholder line alone, as nginx_config does
    assert "STREAMLIT_SERVER_COOKIE_SECRET" in script  # one XSRF secret for every process


@pytest.mark.usefixtures("nginx")
def test_nginx_accepts_the_config(tmp_path: Path) -> None:
    conf = tmp_path / "nginx.conf"
    conf.write_text(nginx_config(8501, [8601, 8602], tmp_path))
    done = subprocess.run(
        [NGINX, "-t", "-p", str(tmp_path), "-c", str(conf)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_static_files_get_a_gzip_copy_of_every_text_file(tmp_path: Path) -> None:
    """deploy/static_assets.py copies every file Streamlit serves under /static/ and writes a
    .gz beside each text file that decompresses to it; fonts and images stay as they are."""
    dest = tmp_path / "static"
    count, plain, packed = prepare_static(dest)
    served = sorted(p.relative_to(source()) for p in source().rglob("*") if p.is_file())
    assert served and all((dest / p).read_bytes() == (source() / p).read_bytes() for p in served)
    texts = [p for p in served if p.suffix in TEXT_SUFFIXES]
    assert count == len(texts) and any(p.suffix == ".js" for p in texts)
    for p in texts:
        assert (
            gzip.decompress((dest / p).with_name(p.name + ".gz").read_bytes())
            == (source() / p).read_bytes()
        )
    assert not any(dest.rglob("*.woff2.gz")) and not any(dest.rglob("*.png.gz"))
    assert packed < plain / 2  # minified JavaScript compresses about 3x


def _get(url: str, gzip_ok: bool = True) -> tuple[dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"} if gzip_ok else {})
    with urllib.request.urlopen(request, timeout=5) as response:
        return {k.lower(): v for k, v in response.headers.items()}, response.read()


@pytest.mark.usefixtures("nginx")
def test_nginx_sends_streamlits_files_itself_compressed() -> None:
    """Behind nginx, /static/ never reaches a Streamlit process (none runs here): a browser that
    takes gzip gets the .gz copy, one that does not gets the file, both cached for a year."""
    with tempfile.TemporaryDirectory(prefix="attention-lab-nginx.") as folder:
        tmp_path = Path(folder)
        tmp_path.chmod(0o711)  # as scripts/serve.sh leaves it: nginx's workers may run as nobody
        _serve_static(tmp_path)


def _serve_static(tmp_path: Path) -> None:
    port = free_port()
    conf = tmp_path / "nginx.conf"
    conf.write_text(nginx_config(port, [free_port(exclude=[port])], tmp_path))
    prepare_static(tmp_path / "static")
    script = max((source() / "js").glob("*.js"), key=lambda p: p.stat().st_size)
    url = f"http://127.0.0.1:{port}/static/js/{script.name}"
    nginx = subprocess.Popen(
        [NGINX, "-p", str(tmp_path), "-c", str(conf)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                headers, body = _get(url, gzip_ok=True)
                break
            except OSError:
                if time.monotonic() > deadline or nginx.poll() is not None:
                    raise
                time.sleep(0.1)
        assert headers["content-type"] == "application/javascript"  # else no browser runs it
        assert headers["content-encoding"] == "gzip" and headers["vary"] == "Accept-Encoding"
        assert gzip.decompress(body) == script.read_bytes()
        assert len(body) < script.stat().st_size / 2
        assert "immutable" in headers["cache-control"]
        headers, body = _get(url, gzip_ok=False)
        assert "content-encoding" not in headers and body == script.read_bytes()
        for sample in [*(source() / "css").glob("*.css"), *(source() / "media").glob("*.woff2")]:
            headers, _ = _get(f"http://127.0.0.1:{port}/static/{sample.parent.name}/{sample.name}")
            assert (
                headers["content-type"]
                == {".css": "text/css", ".woff2": "font/woff2"}[sample.suffix]
            )
    finally:
        nginx.terminate()
        nginx.wait(timeout=10)


@pytest.mark.usefixtures("nginx")
def test_serve_script_runs_the_app_behind_nginx_and_stops_on_term() -> None:
    """scripts/serve.sh as the Dockerfile runs it (PYTHON given, so no .venv is made): the app
    answers through nginx from two processes, Streamlit's files come compressed, and a TERM
    to the script (what ``docker stop`` sends) stops every process and removes its folder."""
    with tempfile.TemporaryDirectory(prefix="attention-lab-test.") as folder:
        Path(folder).chmod(0o711)  # like /tmp: nginx's workers may run as nobody
        _serve_and_stop(Path(folder))


def _serve_and_stop(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "PYTHON": sys.executable, "ADDRESS": "127.0.0.1", "TMPDIR": str(tmp_path)}
    script = subprocess.Popen(
        ["bash", "scripts/serve.sh", "2", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(base + "/_stcore/health", timeout=2) as answer:
                    assert answer.status == 200
                    break
            except OSError:
                assert script.poll() is None, script.stdout.read()
                assert time.monotonic() < deadline, "no healthy answer through nginx in 90 s"
                time.sleep(0.3)
        children = subprocess.run(
            ["ps", "-o", "args=", "--ppid", str(script.pid)], capture_output=True, text=True
        ).stdout.splitlines()
        assert sum("streamlit run app.py" in c for c in children) == 2
        assert sum(c.startswith("nginx") for c in children) == 1
        _, page = _get(base + "/", gzip_ok=False)
        index = re.search(rb'src="\./static/js/(index\.[^"]+\.js)"', page)
        headers, _ = _get(base + "/static/js/" + index.group(1).decode())
        assert headers["content-encoding"] == "gzip"
        assert list(tmp_path.glob("attention-lab-nginx.*"))  # its working folder
    finally:
        script.terminate()  # the script alone, as docker stop signals PID 1
        script.wait(timeout=30)
        leftover = subprocess.run(
            ["pgrep", "-g", str(script.pid)], capture_output=True, text=True
        ).stdout.split()
        if leftover:
            os.killpg(script.pid, signal.SIGKILL)
    assert leftover == [], "processes outlived serve.sh"
    assert not list(tmp_path.glob("attention-lab-nginx.*")), "its working folder stayed"
