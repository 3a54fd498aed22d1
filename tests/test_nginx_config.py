"""The nginx front of scripts/serve.sh: several processes, one browser always on the same one."""

from __future__ import annotations

import gzip
import http.server
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bench.common import free_port, nginx_config, nginx_path, running_nginx
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
    # the route is the browser's cookie when it has a well-formed one, else its address
    assert '"~^[0-9a-f]{32}$" $cookie_attention_lab_route;' in text
    assert "default $client_address;" in text
    assert "default $request_id;" in text  # a browser without a cookie is given a new one
    assert 'Set-Cookie "attention_lab_route=$route_cookie; Path=/; HttpOnly;' in text
    # the websocket passes through and stays open
    assert "proxy_set_header Upgrade $http_upgrade;" in text
    # the Host the browser sent, port included, for every request: never nginx's $host, which
    # drops the port (a LAN name's websocket is then refused)
    assert text.count("proxy_set_header Host ") == 1
    assert "proxy_set_header Host $browser_host;" in text
    assert "proxy_read_timeout 1d;" in text
    assert "listen 127.0.0.1:8501;" in text


def test_serve_script_fills_the_template_the_same_way() -> None:
    script = (ROOT / "scripts" / "serve.sh").read_text()
    assert "deploy/nginx.conf.template" in script
    assert '"/^@UPSTREAMS@$/{' in script  # the placeholder line alone, as nginx_config does
    assert "STREAMLIT_SERVER_COOKIE_SECRET" in script  # one XSRF secret for every process


@pytest.mark.deploy
@pytest.mark.usefixtures("nginx")
def test_nginx_accepts_the_config(tmp_path: Path) -> None:
    conf = tmp_path / "nginx.conf"
    conf.write_text(nginx_config(8501, [8601, 8602], tmp_path))
    done = subprocess.run(
        [NGINX, "-t", "-p", str(tmp_path), "-c", str(conf)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.deploy
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


@pytest.mark.deploy
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
    prepare_static(tmp_path / "static")
    script = max((source() / "js").glob("*.js"), key=lambda p: p.stat().st_size)
    url = f"http://127.0.0.1:{port}/static/js/{script.name}"
    with running_nginx(port, [free_port(exclude=[port])], tmp_path):
        headers, body = _get(url, gzip_ok=True)
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


@pytest.mark.deploy
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


class _NamedHandler(http.server.BaseHTTPRequestHandler):
    """A stand-in for one Streamlit process: says its name; of /media/ it has only its own file
    (/media/<name>.csv), and answers 404 for the others' files, as Streamlit does. Of
    /headers and /media/headers it answers the request's headers, one "name: value" a line."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        name = self.server.name
        if self.path in ("/headers", "/media/headers"):
            body = "".join(f"{k.lower()}: {v}\n" for k, v in self.headers.items()).encode()
        elif self.path.startswith("/media/") and self.path != f"/media/{name}.csv":
            self.send_error(404)
            return
        else:
            body = name.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def _nginx_in_front_of(names: list[str], tmp_path: Path) -> Iterator[str]:
    """nginx with the template's routing in front of one named stand-in process per name;
    yields nginx's base URL."""
    servers = []
    for name in names:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NamedHandler)
        server.name = name
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    ports = [s.server_address[1] for s in servers]
    port = free_port(exclude=ports)
    try:
        with running_nginx(port, ports, tmp_path):
            yield f"http://127.0.0.1:{port}"
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def _ask(url: str, **headers: str) -> tuple[str, str]:
    """(the name of the process that answered, the Set-Cookie nginx added)."""
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=5) as answer:
        return answer.read().decode(), answer.headers.get("Set-Cookie", "")


@pytest.mark.deploy
@pytest.mark.usefixtures("nginx")
def test_a_browser_stays_on_one_process_with_or_without_its_cookie(tmp_path: Path) -> None:
    """The cookie decides when the browser sends it; a browser that sends none (a frame inside
    another site's page may not) stays on one process by its address; addresses spread."""
    with _nginx_in_front_of(["a", "b", "c"], tmp_path) as base:
        name, cookie = _ask(base + "/concat")
        route = re.fullmatch(r"attention_lab_route=([0-9a-f]{32}); Path=/; HttpOnly; (.*)", cookie)
        assert route is not None, cookie
        assert route.group(2) == "SameSite=Lax"  # plain http: the cookie stays first-party
        with_cookie = {
            _ask(
                base + "/_stcore/stream",
                Cookie=f"attention_lab_route={route.group(1)}",
                **{"X-Forwarded-For": f"198.51.100.{i}"},
            )[0]
            for i in range(12)
        }
        assert len(with_cookie) == 1  # the cookie, not the address, decides
        # no cookie: the first address of X-Forwarded-For decides, whatever proxies follow it
        student = {
            _ask(base + "/_stcore/stream", **{"X-Forwarded-For": forwarded})
            for forwarded in ["203.0.113.7", "203.0.113.7, 10.0.0.1", " 203.0.113.7,10.0.0.2"] * 4
        }
        assert len({name for name, _ in student}) == 1
        # each request without a cookie is offered one, a new random route each time
        offered = {re.search("=([0-9a-f]{32});", c).group(1) for _, c in student}
        assert len(offered) == len(student)
        # a malformed cookie counts as none
        _, fixed = _ask(base + "/", Cookie="attention_lab_route=zz")
        assert re.match("attention_lab_route=[0-9a-f]{32};", fixed)
        # a class of students without cookies still spreads over the processes
        spread = [_ask(base + "/", **{"X-Forwarded-For": f"192.0.2.{i}"})[0] for i in range(60)]
        assert set(spread) == {"a", "b", "c"}


def _headers_seen(url: str, **headers: str) -> dict[str, list[str]]:
    """The headers a stand-in process received for a request sent to nginx with ``headers``."""
    seen: dict[str, list[str]] = {}
    for line in _ask(url, **headers)[0].splitlines():
        key, _, value = line.partition(": ")
        seen.setdefault(key, []).append(value)
    return seen


@pytest.mark.deploy
@pytest.mark.usefixtures("nginx")
def test_a_process_is_given_the_address_the_browser_used_port_included(tmp_path: Path) -> None:
    """Streamlit opens a page's websocket only when its Origin names the Host it is given, and
    the app writes the links it shows (a QR code of the page) from that Host: a process gets the
    browser's Host as it was sent, a LAN name and port included, and the forwarded headers say
    the same, unless a host's proxy in front already said otherwise."""
    with _nginx_in_front_of(["a"], tmp_path) as base:
        for path in ("/headers", "/media/headers"):  # a page or the websocket, and a download
            seen = _headers_seen(
                base + path, Host="teacher.local:8501", Origin="http://teacher.local:8501"
            )
            assert seen["host"] == ["teacher.local:8501"], path
            assert seen["origin"] == ["http://teacher.local:8501"]
            assert seen["x-forwarded-host"] == ["teacher.local:8501"]
            assert seen["x-forwarded-proto"] == ["http"]
            assert seen["x-forwarded-for"] == ["127.0.0.1"]
        # on port 80 a browser writes no port, and none is added
        assert _headers_seen(base + "/headers", Host="teacher.local")["host"] == ["teacher.local"]
        # behind a host's proxy (a Space's): its name and scheme stand, its address list grows
        seen = _headers_seen(
            base + "/headers",
            Host="10.0.0.5:8501",
            **{
                "X-Forwarded-Host": "you-lab.hf.space",
                "X-Forwarded-Proto": "https",
                "X-Forwarded-For": "203.0.113.7",
            },
        )
        assert seen["host"] == ["10.0.0.5:8501"]
        assert seen["x-forwarded-host"] == ["you-lab.hf.space"]
        assert seen["x-forwarded-proto"] == ["https"]
        assert seen["x-forwarded-for"] == ["203.0.113.7, 127.0.0.1"]


@pytest.mark.deploy
@pytest.mark.usefixtures("nginx")
def test_over_https_the_cookie_also_goes_with_a_frame_of_another_site(tmp_path: Path) -> None:
    with _nginx_in_front_of(["a", "b"], tmp_path) as base:
        _, cookie = _ask(base + "/", **{"X-Forwarded-Proto": "https"})
        assert cookie.endswith("; Path=/; HttpOnly; SameSite=None; Secure; Partitioned")
        _, cookie = _ask(base + "/media/a.csv", **{"X-Forwarded-Proto": "http"})
        assert cookie.endswith("; Path=/; HttpOnly; SameSite=Lax")


@pytest.mark.deploy
@pytest.mark.usefixtures("nginx")
def test_a_download_is_found_whichever_process_it_reaches_first(tmp_path: Path) -> None:
    """Only its session's process has a download's file; the others answer 404, and nginx asks
    the next process until one has it, for every address and route."""
    with _nginx_in_front_of(["a", "b", "c"], tmp_path) as base:
        for owner in ("a", "b", "c"):
            for i in range(10):
                name, _ = _ask(f"{base}/media/{owner}.csv", **{"X-Forwarded-For": f"192.0.2.{i}"})
                assert name == owner
                cookie = f"attention_lab_route={i:032x}"
                assert _ask(f"{base}/media/{owner}.csv", Cookie=cookie)[0] == owner
        # a file that no process has is still a 404, after every process was asked
        with pytest.raises(urllib.error.HTTPError) as missing:
            _ask(base + "/media/nobody.csv")
        assert missing.value.code == 404


def _count(cgroup: Path, cores: int | None = 16) -> int:
    """How many processes scripts/serve.sh starts by default, its limits read from ``cgroup``,
    on a machine of ``cores`` cores (nproc reads OMP_NUM_THREADS; None: this machine's)."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_THREAD_LIMIT")}
    if cores is not None:
        env["OMP_NUM_THREADS"] = str(cores)
    done = subprocess.run(
        ["bash", "scripts/serve.sh", "--count"],
        cwd=ROOT,
        env={**env, "CGROUP": str(cgroup)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return int(done.stdout)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text + "\n")


def _cgroup_v1(cpus: tuple[int, int], memory: int) -> dict[str, str]:
    """The files of a cgroup v1 host's controllers, as a container sees its own."""
    return {
        "cpu/cpu.cfs_quota_us": str(cpus[0]),
        "cpu/cpu.cfs_period_us": str(cpus[1]),
        "memory/memory.limit_in_bytes": str(memory),
    }


def _cgroup_v2(cpus: tuple[int, int], memory: int) -> dict[str, str]:
    return {"cpu.max": f"{cpus[0]} {cpus[1]}", "memory.max": str(memory)}


LIMITS = [
    ((300000, 100000), 2 << 30, 3),  # 3 CPUs, 2 GB: one process a CPU
    ((250000, 100000), 2 << 30, 3),  # 2.5 CPUs: the half counts
    ((50000, 100000), 2 << 30, 1),  # half a CPU: still one process
    ((800000, 100000), 4 << 30, 4),  # 8 CPUs: 4 at most
    ((400000, 100000), 600 << 20, 2),  # 600 MB hold two processes of 250 MB, not four
    ((200000, 100000), 200 << 20, 1),  # too little memory for one: one all the same
    ((150000, 50000), 1 << 30, 3),  # another period: 3 CPUs
]


@pytest.mark.parametrize("layout", [_cgroup_v2, _cgroup_v1], ids=["cgroup-v2", "cgroup-v1"])
@pytest.mark.parametrize(("cpus", "memory", "processes"), LIMITS)
def test_serve_script_runs_as_many_processes_as_the_container_holds(
    tmp_path: Path, layout, cpus: tuple[int, int], memory: int, processes: int
) -> None:
    _write(tmp_path, layout(cpus, memory))
    assert _count(tmp_path) == processes
    # a quota above the machine's cores: one process a core
    assert _count(tmp_path, cores=1) == 1


def _machine_count() -> int:
    """What the machine itself holds: its cores, its memory at 250 MB a process, 1 to 4."""
    with open("/proc/meminfo") as meminfo:
        kb = next(int(line.split()[1]) for line in meminfo if line.startswith("MemTotal:"))
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_THREAD_LIMIT")}
    cores = int(subprocess.run(["nproc"], capture_output=True, text=True, env=env).stdout)
    return max(1, min(cores, kb * 1024 // (250 << 20), 4))


def test_serve_script_reads_no_limit_as_the_machines_own(tmp_path: Path) -> None:
    """A container without limits: v2 says "max", v1 a quota of -1 and a memory limit near
    2^63 (8 EB less a page); no cgroup files at all is the same. Each limit alone still counts."""
    machine = _machine_count()
    assert machine >= 1
    v2 = tmp_path / "v2"
    _write(v2, {"cpu.max": "max 100000", "memory.max": "max"})
    v1 = tmp_path / "v1"
    _write(v1, _cgroup_v1((-1, 100000), 9223372036854771712))
    assert _count(v2, None) == _count(v1, None) == _count(tmp_path / "none", None) == machine
    assert _count(v1, cores=3) == 3 and _count(v2, cores=3) == 3
    # one CPU and no memory limit; no CPU limit and memory for one process
    _write(tmp_path / "cpu-only", _cgroup_v1((100000, 100000), 9223372036854775807))
    assert _count(tmp_path / "cpu-only") == 1
    _write(tmp_path / "memory-only", {"cpu.max": "max 100000", "memory.max": str(300 << 20)})
    assert _count(tmp_path / "memory-only") == 1


def test_serve_script_reads_the_cpu_controller_where_v1_hosts_mount_it(tmp_path: Path) -> None:
    """Some v1 hosts mount cpu and cpuacct together as cpu,cpuacct (cpu a link to it, or
    absent); a v2 host's own files win over v1 ones left beside them (a hybrid host)."""
    _write(
        tmp_path / "joint",
        {
            "cpu,cpuacct/cpu.cfs_quota_us": "300000",
            "cpu,cpuacct/cpu.cfs_period_us": "100000",
            "memory/memory.limit_in_bytes": str(4 << 30),
        },
    )
    assert _count(tmp_path / "joint") == 3
    hybrid = tmp_path / "hybrid"
    _write(
        hybrid, {**_cgroup_v1((400000, 100000), 4 << 30), **_cgroup_v2((200000, 100000), 4 << 30)}
    )
    assert _count(hybrid) == 2
