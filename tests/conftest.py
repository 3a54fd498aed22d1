"""How the tests share the cores: pytest-xdist's worker count and the groups that stay together.

``-n auto`` (pyproject's addopts, scripts/test.sh) gives one worker per core to a run of a
folder or of the whole suite, and none to a run of named files or tests, which starts faster
alone. With ``--dist loadgroup`` every test goes to whichever worker is free, except those of
a group, which all run on one worker, one after the other: the tests that share a module-scoped
server (one server, not one per worker), those whose fixed ports or names would clash across
workers, and the multi-host tests, which make and remove network namespaces of fixed names.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Playwright, expect, sync_playwright

# every run keeps the code Python compiles (__pycache__, which git ignores), even in a shell that
# sets PYTHONDONTWRITEBYTECODE: the test modules as rewritten for their asserts (collecting them
# took 6 s a worker without) and, for the workers and servers it starts, Streamlit and the lab
# (importing Streamlit in a new .venv: 2.1 s instead of 0.7)
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

TESTS = Path(__file__).resolve().parent
# test files (relative to tests/) whose tests all run on one worker
ONE_WORKER_FILES = {
    "e2e/test_e2e_lan.py": "serve-sh-lan",  # a module-scoped scripts/serve.sh
    "e2e/test_e2e_serve.py": "serve-sh",  # a module-scoped scripts/serve.sh
    "test_nginx_config.py": "nginx",  # bench.common.free_port: checked, then taken
}
# folders (relative to tests/) whose tests all run on one worker
ONE_WORKER_FOLDERS = {"hosts": "hosts"}


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """One worker per core for a folder or the whole suite; none for named files or tests
    (PYTEST_XDIST_AUTO_NUM_WORKERS, when set, decides instead)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    named = [arg for arg in config.args if not arg.startswith("-")]
    if named and all(is_test_file(arg) for arg in named):
        return 0
    return None  # xdist's own hook: the cores this process may use


def is_test_file(arg: str) -> bool:
    """A file or a test id (``tests/test_x.py::test_y``), not a folder."""
    path = Path(arg.split("::", 1)[0])
    return "::" in arg or path.suffix == ".py" or path.is_file()


def group_of(path: Path) -> str | None:
    """The xdist group of the tests in ``path``, or None when they may go to any worker."""
    try:
        relative = path.resolve().relative_to(TESTS)
    except ValueError:
        return None
    if relative.as_posix() in ONE_WORKER_FILES:
        return ONE_WORKER_FILES[relative.as_posix()]
    return ONE_WORKER_FOLDERS.get(relative.parts[0]) if len(relative.parts) > 1 else None


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        group = group_of(item.path)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session", autouse=True)
def groups_hold(request: pytest.FixtureRequest) -> None:
    """Fail a run whose groups would not hold: a pytest that xdist does not follow (9.2 keeps a
    test's id where xdist's ``@group`` cannot reach it) sends a group's tests to several workers,
    and two workers then each start what only one may, the multi-host lab first."""
    if not request.config.getoption("loadgroup", False):
        return
    items = request.session.items
    loose = [item.nodeid for item in items if group_of(item.path) and "@" not in item.nodeid]
    if loose:
        pytest.fail(
            f"the xdist groups do not hold with pytest {pytest.__version__} and this "
            f"pytest-xdist ({loose[0]} has no @group): install requirements-dev.txt's versions"
        )


# an expect() waits as long as a page may take to answer on a busy machine (two workers and
# their servers on two cores): its own 5 s default fails a slow page before it is wrong
expect.set_options(timeout=15_000)


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    """The worker's one playwright driver: its sync API runs an event loop of its own, so a
    second driver in the same process fails; the browser tests and the multi-host ones each
    launch their chromium from this one."""
    with sync_playwright() as driver:
        yield driver
