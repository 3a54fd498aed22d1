"""The Kustomize base deploy/k8s rendered and validated offline; serve.sh as its pods run it."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import copy
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from functools import cache
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from kubernetes_validate.utils import SchemaNotFoundError

from bench.common import free_port
from bench.wsclient import Rerun, Session

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "deploy" / "k8s"
SECRET_EXAMPLE = BASE / "secret.example.yaml"
KINDS = ("Deployment", "Service", "HTTPRoute", "Ingress", "HorizontalPodAutoscaler")
KINDS += ("PodDisruptionBudget",)
# the fields of the Gateway API's SessionPersistence and CookieConfig (GEP-1619)
PERSISTENCE_FIELDS = {"type", "sessionName", "absoluteTimeout", "idleTimeout", "cookieConfig"}
SECRET_VARIABLES = ("STREAMLIT_SERVER_COOKIE_SECRET", "ATTENTION_LAB_CLASS_STORE")
K8S_VERSION = kubernetes_validate.utils.latest_version()
# Gateway API's HTTPRoute is a CRD: kubernetes-validate ships no schema for it. Its validator
# comes from the npm package generated from the Gateway API's Go types (experimental fields such
# as sessionPersistence included), installed once into .cache/ at these exact versions.
GATEWAY_MODELS = ROOT / ".cache" / "gateway-api-models"
GATEWAY_PACKAGES = ["gateway-api@2.0.0", "validate@5.0.2", "base@6.0.1", "apimachinery@3.0.2"]
VALIDATE_ROUTE = """import { HTTPRoute } from
    "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRoute";
const route = JSON.parse((await import("node:fs")).readFileSync(0, "utf8"));
try { new HTTPRoute(route).validate(); console.log("valid"); } catch (e) { console.log(e.message); }
"""


@cache
def rendered() -> tuple[dict, ...]:
    """Every object `kubectl kustomize deploy/k8s` renders; kubectl missing is a failure."""
    if shutil.which("kubectl") is None:
        pytest.fail("kubectl is missing: it renders the Kustomize base")
    done = subprocess.run(["kubectl", "kustomize", str(BASE)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return tuple(doc for doc in yaml.safe_load_all(done.stdout) if doc)


def one(kind: str) -> dict:
    """The one rendered object of ``kind``."""
    found = [doc for doc in rendered() if doc["kind"] == kind]
    assert len(found) == 1, (kind, [d["kind"] for d in rendered()])
    return copy.deepcopy(found[0])


def pod_labels() -> dict:
    return one("Deployment")["spec"]["template"]["metadata"]["labels"]


def pod_spec() -> dict:
    return one("Deployment")["spec"]["template"]["spec"]


def container() -> dict:
    containers = pod_spec()["containers"]
    assert len(containers) == 1  # one process per pod, nothing beside it
    return containers[0]


def env() -> dict[str, dict]:
    """The container's env, by name: {"value": ...} or {"valueFrom": ...}."""
    return {item["name"]: item for item in container()["env"]}


def mebibytes(quantity: str) -> float:
    """A memory quantity in MiB: "250Mi" -> 250.0, "1Gi" -> 1024.0 (the base uses these two)."""
    number, unit = re.fullmatch(r"([0-9.]+)(Mi|Gi)", quantity).groups()
    return float(number) * {"Mi": 1, "Gi": 1024}[unit]


def cpus(quantity: str) -> float:
    """A CPU quantity in cores: "500m" -> 0.5, "1" -> 1.0."""
    return float(quantity[:-1]) / 1000 if quantity.endswith("m") else float(quantity)


def test_the_base_renders_every_object_it_lists() -> None:
    # no Secret among them: applying the base never replaces the cluster's real values
    assert sorted(doc["kind"] for doc in rendered()) == sorted(KINDS)
    assert {doc["metadata"]["name"] for doc in rendered()} == {"attention-lab"}


def test_every_object_validates_strictly_but_the_httproute_which_has_no_schema_there() -> None:
    """kubernetes-validate --strict on every rendered object and on the Secret's example; the
    HTTPRoute is the one object it has no schema for (a CRD), checked in the next test."""
    without_schema = []
    for doc in [*rendered(), yaml.safe_load(SECRET_EXAMPLE.read_text())]:
        try:
            kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
        except SchemaNotFoundError:
            without_schema.append(doc["kind"])
    assert without_schema == ["HTTPRoute"]
    # the negative control: strict validation refuses a field the API does not have
    wrong = one("Deployment")
    wrong["spec"]["template"]["spec"]["containers"][0]["sessionAffinity"] = "None"
    with pytest.raises(kubernetes_validate.ValidationError, match="sessionAffinity"):
        kubernetes_validate.validate(wrong, K8S_VERSION, strict=True)


def gateway_models() -> Path:
    """The folder with the Gateway API's validators (node_modules inside), installed with npm
    the first time; npm or node missing is a failure, never a skip."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.fail("npm and node are missing: scripts/test.sh installs them (apt-get install npm)")
    marker = GATEWAY_MODELS / "node_modules" / "@kubernetes-models" / "gateway-api" / "package.json"
    if marker.exists() and json.loads(marker.read_text())["version"] == "2.0.0":
        return GATEWAY_MODELS
    GATEWAY_MODELS.mkdir(parents=True, exist_ok=True)
    install = [npm, "install", "--prefix", str(GATEWAY_MODELS), "--no-audit", "--no-fund"]
    packages = [f"@kubernetes-models/{name}" for name in GATEWAY_PACKAGES]
    done = subprocess.run([*install, *packages], capture_output=True, text=True)
    assert done.returncode == 0, f"npm install {GATEWAY_PACKAGES} failed:\n{done.stderr[-2000:]}"
    return GATEWAY_MODELS


def route_verdict(route: dict) -> str:
    """'valid', or what the Gateway API's HTTPRoute validator says is wrong with ``route``."""
    (script := gateway_models() / "validate-route.mjs").write_text(VALIDATE_ROUTE)
    done = subprocess.run(["node", script], input=json.dumps(route), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_httproute_validates_against_the_gateway_api_types() -> None:
    assert route_verdict(one("HTTPRoute")) == "valid"
    wrong = one("HTTPRoute")  # the negative control: a persistence type the spec does not have
    wrong["spec"]["rules"][0]["sessionPersistence"]["type"] = "ClientIP"
    assert "sessionPersistence/type must be equal to one of" in route_verdict(wrong)


def test_the_httproute_keeps_a_browser_on_its_pod_by_cookie() -> None:
    route = one("HTTPRoute")
    assert route["apiVersion"] == "gateway.networking.k8s.io/v1"
    [rule] = route["spec"]["rules"]
    [backend] = rule["backendRefs"]
    assert (backend["name"], backend["port"]) == ("attention-lab", 8501)  # service.yaml
    persistence = rule["sessionPersistence"]
    # the Gateway API's field names exactly (its validator lets an unknown key through)
    assert set(persistence) <= PERSISTENCE_FIELDS
    assert set(persistence.get("cookieConfig", {})) <= {"lifetimeType"}
    assert persistence["type"] == "Cookie"
    assert persistence["sessionName"] == "attention-lab-route"
    # the file says the field needs the experimental channel's CRD
    assert "EXPERIMENTAL channel" in (BASE / "httproute.yaml").read_text()


def test_the_ingress_keeps_a_browser_on_its_pod_by_cookie_and_the_websocket_open() -> None:
    ingress = one("Ingress")
    notes = ingress["metadata"]["annotations"]
    prefix = "nginx.ingress.kubernetes.io/"
    assert notes[prefix + "affinity"] == "cookie"
    assert notes[prefix + "affinity-mode"] == "persistent"
    assert notes[prefix + "session-cookie-name"] == "attention-lab-route"
    for timeout in ("proxy-read-timeout", "proxy-send-timeout"):
        assert int(notes[prefix + timeout]) == 3600  # seconds; nginx's default 60 cuts websockets
    [path] = ingress["spec"]["rules"][0]["http"]["paths"]
    assert path["path"] == "/" and path["pathType"] == "Prefix"
    service = path["backend"]["service"]
    assert service["name"] == "attention-lab"
    assert service["port"]["name"] == one("Service")["spec"]["ports"][0]["name"]


def test_no_object_anywhere_has_client_ip_affinity() -> None:
    """A whole school behind one address would land on one pod."""
    every = yaml.safe_dump_all(rendered()) + SECRET_EXAMPLE.read_text()
    assert "clientip" not in every.lower()
    service = one("Service")
    assert service["spec"]["type"] == "ClusterIP"
    assert service["spec"]["sessionAffinity"] == "None"
    assert service["spec"]["selector"] == pod_labels()


def test_every_probe_asks_streamlits_health_on_the_apps_port() -> None:
    app = container()
    [port] = app["ports"]
    assert port["containerPort"] == 8501
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        get = app[probe]["httpGet"]
        assert get["path"] == "/_stcore/health", probe
        assert get["port"] in (8501, port["name"]), probe
    # a liveness check gives up later than readiness: a busy pod leaves the Service, not life
    probes = ("livenessProbe", "readinessProbe")
    live, ready = (app[p]["periodSeconds"] * app[p]["failureThreshold"] for p in probes)
    assert live > ready


def test_an_update_keeps_the_capacity_and_a_pod_leaves_the_balancer_before_it_stops() -> None:
    pre_stop = container()["lifecycle"]["preStop"]["exec"]["command"]
    assert pre_stop[0] == "sleep"  # coreutils' sleep, in python:3.11-slim
    assert (pause := int(pre_stop[1])) >= 5
    assert pod_spec()["terminationGracePeriodSeconds"] > pause + 10  # Streamlit's own stop after
    # the autoscaler owns the count (2 or more): a `replicas` would reset it at every apply
    assert "replicas" not in one("Deployment")["spec"]
    strategy = one("Deployment")["spec"]["strategy"]
    assert strategy["type"] == "RollingUpdate"
    assert strategy["rollingUpdate"]["maxUnavailable"] == 0
    assert strategy["rollingUpdate"]["maxSurge"] == 1


def test_the_pod_runs_as_the_images_user_without_privileges() -> None:
    spec, app = pod_spec(), container()
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert spec["securityContext"]["runAsUser"] == 1000
    assert spec["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert spec["automountServiceAccountToken"] is False
    # no ATTENTION_LAB_SERVICE_HOST and the like from the Service's name in the app's namespace
    assert spec["enableServiceLinks"] is False
    context = app["securityContext"]
    assert context["allowPrivilegeEscalation"] is False
    assert context["capabilities"] == {"drop": ["ALL"]}
    assert context["readOnlyRootFilesystem"] is True
    assert context.get("runAsUser", 1000) == 1000 and context.get("runAsNonRoot", True) is True


def test_one_process_per_pod_writes_only_to_empty_dirs() -> None:
    """/tmp, $HOME/.streamlit and the data folder: each mount is an emptyDir of the pod."""
    values = {name: item.get("value") for name, item in env().items()}
    mounts = {m["mountPath"]: m["name"] for m in container()["volumeMounts"]}
    volumes = {v["name"]: v for v in pod_spec()["volumes"]}
    for path in ("/tmp", f"{values['HOME']}/.streamlit", values["ATTENTION_LAB_DATA"]):
        assert path in mounts, path
        assert "emptyDir" in volumes[mounts[path]], path
    # one Streamlit process per pod, on the pod's interface (scripts/serve.sh's one-process mode)
    pod_mode = dict(ATTENTION_LAB_PROCESSES="1", ATTENTION_LAB_NGINX="0", ADDRESS="0.0.0.0")
    assert values.items() >= (pod_mode | {"TMPDIR": "/tmp", "PYTHON": "python"}).items()
    assert "command" not in container() and "args" not in container()  # the image's serve.sh


def test_every_replica_reads_the_cookie_secret_and_the_store_from_one_secret() -> None:
    refs = {name: env()[name]["valueFrom"]["secretKeyRef"] for name in SECRET_VARIABLES}
    assert {ref["name"] for ref in refs.values()} == {"attention-lab"}
    example = yaml.safe_load(SECRET_EXAMPLE.read_text())
    assert example["metadata"]["name"] == "attention-lab"
    assert {ref["key"] for ref in refs.values()} == set(example["stringData"])
    assert all(ref.get("optional") is not True for ref in refs.values())  # no pod without them
    assert example["stringData"]["class-store"].startswith("postgresql+psycopg://")
    # the example's values are placeholders, not a secret anyone could reuse
    assert all("REPLACE" in value for value in example["stringData"].values())


def test_requests_and_limits_hold_a_process_at_its_measured_peak() -> None:
    """bench/: one process peaks near 200 MB with 100 students."""
    resources = container()["resources"]
    requests, limits = resources["requests"], resources["limits"]
    assert 200 < mebibytes(requests["memory"]) <= mebibytes(limits["memory"])
    assert mebibytes(limits["memory"]) >= 2 * 200  # the peak and two checker children
    assert 0 < cpus(requests["cpu"]) <= cpus(limits["cpu"]) <= 1  # one GIL: one core at most


def test_the_autoscaler_adds_pods_fast_and_removes_them_slowly() -> None:
    assert (hpa := one("HorizontalPodAutoscaler"))["apiVersion"] == "autoscaling/v2"
    spec = hpa["spec"]
    assert spec["scaleTargetRef"]["kind"] == "Deployment"
    assert spec["scaleTargetRef"]["name"] == one("Deployment")["metadata"]["name"]
    assert spec["minReplicas"] >= 2 and spec["maxReplicas"] > spec["minReplicas"]
    assert [metric["resource"]["name"] for metric in spec["metrics"]] == ["cpu"]
    down, up = spec["behavior"]["scaleDown"], spec["behavior"]["scaleUp"]
    assert down["stabilizationWindowSeconds"] >= 600
    assert down.get("selectPolicy", "Max") != "Disabled"
    assert down["policies"], "no scale-down policy: the default removes every surplus pod at once"
    for policy in down["policies"]:  # never more than one pod per five minutes
        assert policy == {"type": "Pods", "value": 1, "periodSeconds": policy["periodSeconds"]}
        assert policy["periodSeconds"] >= 300
    assert up["stabilizationWindowSeconds"] <= 60
    assert all(policy["periodSeconds"] <= 60 for policy in up["policies"])


def test_a_drain_stops_one_pod_at_a_time() -> None:
    spec = one("PodDisruptionBudget")["spec"]
    assert spec.get("maxUnavailable") == 1 or spec.get("minAvailable") == 1
    assert spec["selector"]["matchLabels"].items() <= pod_labels().items()


GIVEN_SECRET = "a1b2c3d4" * 8
# as a pod with readOnlyRootFilesystem runs serve.sh: in a mount namespace of its own, every
# filesystem read-only, a tmpfs (the pod's emptyDir) on each folder named; then exec the rest
READ_ONLY = """set -eu
while read -r _ _ _ _ point _; do
    case "$point" in /proc* | /sys* | /dev*) ;; *) mount -o remount,bind,ro "$point" ;; esac
done < <(tac /proc/self/mountinfo)
if touch /.write-probe "$PWD/.write-probe" 2>/dev/null; then echo still writable >&2; exit 3; fi
while [ "$1" != -- ]; do mount -t tmpfs -o size=64m,mode=1777 tmpfs "$1"; shift; done
shift; exec "$@"
"""


def environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode().partition("=")[::2] for item in raw if item)


def group(pgid: int) -> list[tuple[int, str]]:
    """(pid, command line) of every process left in the process group ``pgid``."""
    listed = subprocess.run(["pgrep", "-a", "-g", str(pgid)], capture_output=True, text=True)
    pairs = [line.split(" ", 1) for line in listed.stdout.splitlines()]
    return [(int(pid), args) for pid, args in pairs]


async def visit_once(session: Session) -> Rerun:
    await session.connect()
    try:
        return await session.load(timeout=60)
    finally:
        await session.close()


def wait_healthy(url: str, script: subprocess.Popen) -> None:
    deadline = time.monotonic() + 90
    while True:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as answer:
                assert answer.status == 200
                return
        except OSError:
            assert script.poll() is None, script.stdout.read()
            assert time.monotonic() < deadline, "no healthy answer in 90 s"
            time.sleep(0.3)


@pytest.mark.deploy
@pytest.mark.parametrize("front", ["0", "1"])
def test_serve_keeps_the_given_cookie_secret_with_one_process(front: str, tmp_path: Path) -> None:
    """ATTENTION_LAB_PROCESSES=1: with ATTENTION_LAB_NGINX=0 the script becomes the one
    Streamlit process (no nginx), else one behind nginx; both keep the secret they are given."""
    tmp_path.chmod(0o711)  # nginx's workers may run as nobody
    for folder in ("home", "tmp", "data"):
        (tmp_path / folder).mkdir()
    port = free_port()
    variables = dict(PYTHON=sys.executable, ADDRESS="127.0.0.1", ATTENTION_LAB_PROCESSES="1")
    variables |= dict(ATTENTION_LAB_NGINX=front, STREAMLIT_SERVER_COOKIE_SECRET=GIVEN_SECRET)
    variables |= dict(HOME=f"{tmp_path}/home", TMPDIR=f"{tmp_path}/tmp")
    variables["ATTENTION_LAB_DATA"] = f"{tmp_path}/data"
    command = ["bash", "scripts/serve.sh", "", str(port)]  # "": the count from the environment
    if front == "0":  # the pod's mode, on a read-only root with the pod's three emptyDirs
        writable = [variables["HOME"], variables["TMPDIR"], variables["ATTENTION_LAB_DATA"]]
        namespace = ["unshare", "--mount", "--propagation", "private", "bash", "-c", READ_ONLY]
        command = [*namespace, "read-only", *writable, "--", *command]
    output = dict(stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    script = subprocess.Popen(command, env=os.environ | variables, start_new_session=True, **output)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", script)
        processes = group(script.pid)
        streamlit = [pid for pid, args in processes if "streamlit run app.py" in args]
        nginx = [pid for pid, args in processes if args.startswith("nginx: master")]
        assert len(streamlit) == 1, processes
        if front == "0":
            assert not any("nginx" in args for _, args in processes)
            assert streamlit == [script.pid]  # exec: it gets the pod's signals itself
        else:
            assert len(nginx) == 1 and streamlit != [script.pid]
        assert environ(streamlit[0])["STREAMLIT_SERVER_COOKIE_SECRET"] == GIVEN_SECRET
        # a visitor's page runs to its end, its figures drawn (on the read-only root too)
        visit = Session(f"ws://127.0.0.1:{port}/_stcore/stream", "softmax", {"seed": 3})
        # in a thread of its own: on a worker where playwright's sync API runs, this thread
        # has an event loop running already
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            rerun = pool.submit(asyncio.run, visit_once(visit)).result()
        assert rerun.errors == [] and rerun.charts > 0
    finally:
        script.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            script.wait(timeout=30)
        if leftover := group(script.pid):  # the script itself too, if it did not stop
            os.killpg(script.pid, signal.SIGKILL)
    assert leftover == [], "processes outlived serve.sh"


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"ATTENTION_LAB_PROCESSES": "2", "ATTENTION_LAB_NGINX": "0"}, "serves one process"),
        ({"ATTENTION_LAB_PROCESSES": "two"}, "whole number from 1, not 'two'"),
        ({"ATTENTION_LAB_PROCESSES": "0"}, "whole number from 1, not '0'"),
        ({"ATTENTION_LAB_NGINX": "no"}, "ATTENTION_LAB_NGINX is 1"),
    ],
)
def test_serve_refuses_what_it_cannot_run(variables: dict[str, str], message: str) -> None:
    """A clear message and exit status 2, before anything starts."""
    variables = {**os.environ, "PYTHON": sys.executable, **variables}
    done = subprocess.run(
        ["bash", "scripts/serve.sh"], cwd=ROOT, env=variables, capture_output=True, text=True
    )
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
