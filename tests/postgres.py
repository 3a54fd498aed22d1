"""A real PostgreSQL server for the tests: Debian's initdb and pg_ctl in a temporary folder.

``PostgresServer`` runs one on a free loopback port (``listen_addresses = 127.0.0.1``, its unix
socket in its own folder), as the ``postgres`` user when the tests run as root. The fixture
``postgres`` (scope session) yields a started server and always stops it and removes its folder,
even when tests fail; ``server.stop()`` and ``server.start()`` stop and restart it mid-test.
``store_url`` runs a test on both class stores (SQLite, PostgreSQL; ``postgres_url`` on the
latter alone), ``clock`` gives it a clock moved by hand. A test module takes them with
``pytest_plugins = ["tests.postgres"]``.
Tests that use it are skipped when PostgreSQL is not installed (``scripts/test.sh`` installs it).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from classroom.schema import metadata

BIN = Path(os.environ.get("ATTENTION_LAB_PG_BIN", "/usr/lib/postgresql/15/bin"))
USER = "postgres"


def free_port() -> int:
    """A TCP port free on 127.0.0.1 at the time of asking."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PostgresServer:
    """One PostgreSQL cluster in a temporary folder, on 127.0.0.1:``port``."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="attention-lab-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.running = False
        if os.geteuid() == 0:
            shutil.chown(self.folder, USER, USER)

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://{USER}@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        command = [str(BIN / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", USER, "--", *command]
        return subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, check=True, cwd=self.folder
        )

    def init(self) -> None:
        """initdb: a cluster that trusts local connections (it listens on loopback only)."""
        self._run("initdb", "-D", str(self.data), "-U", USER, "--auth=trust", "-E", "UTF8")

    def start(self) -> None:
        """Start (or restart) the server and wait until it accepts connections."""
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        log = str(self.folder / "server.log")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", log, "-w", "start")
        self.running = True

    def stop(self) -> None:
        """Stop the server (its clients' connections are cut, what was committed is kept)."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        self.running = False

    def remove(self) -> None:
        """Stop the server if it runs, and delete its folder."""
        if self.running:
            with contextlib.suppress(subprocess.SubprocessError, OSError):
                self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A running PostgreSQL server for the whole session (its ``url``, ``stop``, ``start``)."""
    if not (BIN / "pg_ctl").exists():
        pytest.skip(f"PostgreSQL is not installed ({BIN}): scripts/test.sh installs it")
    server = PostgresServer()
    try:
        server.init()
        server.start()
        yield server
    finally:
        server.remove()


# The class store on both backends: the same suite runs on SQLite and on PostgreSQL.


class Clock:
    """A clock the tests move by hand (seconds)."""

    def __init__(self, t: float = 1_800_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture
def clock() -> Clock:
    """A test's own clock, shared by its store, its classes and its caches."""
    return Clock()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty class store's URL: a SQLite file, or the session's PostgreSQL (emptied before
    and after the test)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'classes.sqlite'}"
        return
    yield request.getfixturevalue("postgres_url")


@pytest.fixture
def postgres_url(postgres: PostgresServer) -> Iterator[str]:
    """The session's PostgreSQL, without the class store's tables before and after the test."""
    drop_tables(postgres)
    yield postgres.url
    drop_tables(postgres)


def drop_tables(server: PostgresServer) -> None:
    """Drop the class store's tables from ``server`` (started again if a test stopped it)."""
    if not server.running:
        server.start()
    engine = sa.create_engine(server.url)
    try:
        metadata.drop_all(engine)
    finally:
        engine.dispose()
