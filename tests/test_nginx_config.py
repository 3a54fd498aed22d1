"""The nginx front of scripts/serve.sh: several processes, one browser always on the same one."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bench.common import nginx_config

ROOT = Path(__file__).resolve().parents[1]


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


@pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx is not installed here")
def test_nginx_accepts_the_config(tmp_path: Path) -> None:
    conf = tmp_path / "nginx.conf"
    conf.write_text(nginx_config(8501, [8601, 8602], tmp_path))
    done = subprocess.run(
        ["nginx", "-t", "-p", str(tmp_path), "-c", str(conf)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
