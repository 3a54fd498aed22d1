"""The class store: one SQLAlchemy engine per URL and process, transactions that fail fast.

``Store.read()`` and ``Store.write()`` are transactions (context managers yielding a Core
connection). Whatever goes wrong with the database (down, locked, unreachable, a bad URL) comes
out of them as ``ClassError("unavailable")`` within about 2 s, logged without any secret: the
PostgreSQL connection gives up after 2 s (``connect_timeout``), a statement or a lock after 2 s,
SQLite waits 2 s for a lock (``busy_timeout``), the pool 2 s for a connection; ``pool_pre_ping``
replaces a dead connection, so the first call after the database is back works. The schema is
created on first use. SQLite runs in WAL mode; its writes take the lock first (BEGIN IMMEDIATE)
so that two writers wait for each other instead of failing.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa

from classroom import config, schema
from classroom.errors import ClassError

TIMEOUT_SECONDS = 2
PG_OPTIONS = "-c statement_timeout={ms} -c lock_timeout={ms}".format(ms=TIMEOUT_SECONDS * 1000)

log = logging.getLogger(__name__)
_STORES: dict[str, Store] = {}
_LOCK = threading.Lock()


def store_for(url: str | None = None) -> Store:
    """This process's store for ``url`` (the configured one by default): one engine, one pool."""
    url = url or config.store_url()
    with _LOCK:
        if url not in _STORES:
            _STORES[url] = Store(url)
        return _STORES[url]


class Store:
    """One database: its engine (made on first use) and whether its schema is ready."""

    def __init__(self, url: str, clock: Callable[[], float] = time.time) -> None:
        self.url = url
        self._clock = clock
        self._engine: sa.Engine | None = None
        self._ready = False
        self._lock = threading.Lock()

    @property
    def backend(self) -> str:
        """ "sqlite" or "postgresql"."""
        return sa.make_url(self.url).get_backend_name()

    @contextmanager
    def read(self) -> Iterator[sa.Connection]:
        """A transaction for reading."""
        with self._transaction(write=False) as conn:
            yield conn

    @contextmanager
    def write(self) -> Iterator[sa.Connection]:
        """A transaction that writes (on SQLite it holds the write lock from its start)."""
        with self._transaction(write=True) as conn:
            yield conn

    def dispose(self) -> None:
        """Close the pool's connections and forget this store in the process."""
        with _LOCK:
            if _STORES.get(self.url) is self:
                del _STORES[self.url]
        if self._engine is not None:
            self._engine.dispose()

    @contextmanager
    def _transaction(self, write: bool) -> Iterator[sa.Connection]:
        try:
            engine = self._ready_engine()
            with engine.connect() as conn:
                conn.execution_options(classroom_write=write)
                with conn.begin():
                    yield conn
        except (sa.exc.SQLAlchemyError, OSError, schema.SchemaTooNew) as err:
            self._ready = False  # the next call checks the schema again (a restored database)
            raise _unavailable(err) from None

    def _ready_engine(self) -> sa.Engine:
        with self._lock:
            if self._engine is None:
                self._engine = make_engine(self.url)
            if not self._ready:
                self._ready = self._prepare(self._engine)
            return self._engine

    def _prepare(self, engine: sa.Engine) -> bool:
        """Check the schema (a read), create or migrate it (a write) only when needed."""
        with engine.connect() as conn, conn.begin():
            if schema.is_current(conn):
                return True
        with engine.connect() as conn:
            conn.execution_options(classroom_write=True)
            with conn.begin():
                schema.prepare(conn, self._clock())
        return True


def _unavailable(err: BaseException) -> ClassError:
    cause = getattr(err, "orig", None) or err
    first_line = str(cause).strip().splitlines()[0][:200] if str(cause).strip() else ""
    log.warning("class store unavailable: %s: %s", type(cause).__name__, first_line)
    return ClassError("unavailable")


def make_engine(url: str) -> sa.Engine:
    """An engine for ``url``: SQLite (WAL, busy timeout) or PostgreSQL through psycopg 3."""
    parsed = sa.make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        return _sqlite_engine(parsed)
    if backend == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
        return sa.create_engine(
            parsed,
            pool_pre_ping=True,
            pool_timeout=TIMEOUT_SECONDS,
            pool_size=5,
            max_overflow=5,
            connect_args={"connect_timeout": TIMEOUT_SECONDS, "options": PG_OPTIONS},
        )
    raise sa.exc.ArgumentError(f"the class store takes sqlite or postgresql URLs, not {backend}")


def _sqlite_engine(url: sa.URL) -> sa.Engine:
    if url.database and url.database != ":memory:":
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    engine = sa.create_engine(
        url,
        pool_pre_ping=True,
        pool_timeout=TIMEOUT_SECONDS,
        connect_args={"timeout": TIMEOUT_SECONDS, "check_same_thread": False},
    )
    sa.event.listen(engine, "connect", _sqlite_connect)
    sa.event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_connect(dbapi_conn, _record) -> None:  # noqa: ANN001 (the driver's own types)
    dbapi_conn.isolation_level = None  # SQLAlchemy's "begin" event starts the transactions
    cursor = dbapi_conn.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")  # safe in WAL mode: a crash loses no database
    cursor.execute(f"PRAGMA busy_timeout={TIMEOUT_SECONDS * 1000}")
    cursor.close()


def _sqlite_begin(conn: sa.Connection) -> None:
    write = conn.get_execution_options().get("classroom_write", False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
