"""Rate limits per browser: a token bucket per student id and kind, kept in the store.

The buckets live in the database, not in a process, because the lab runs as several processes
(and servers) behind one address: a browser whose requests are spread over them still gets one
bucket. Joins, reports and answers write to the store anyway, so the bucket costs one more row
in the same transaction (locked with FOR UPDATE on PostgreSQL; SQLite's writes are serial).
Idle buckets are full again, so the sweep deletes them.
"""

from __future__ import annotations

import sqlalchemy as sa

from classroom.config import Rate
from classroom.schema import buckets

IDLE_SECONDS = 600.0  # a bucket untouched this long is full: the sweep deletes it


def take(conn: sa.Connection, kind: str, student_id: str, rate: Rate, now: float) -> bool:
    """Take one token from ``kind``'s bucket for ``student_id``; False when it is empty.

    Example: with ``Rate(burst=20, per_minute=20)``, 1000 calls at the same instant take 20;
    30 s later 10 more are there.
    """
    key = f"{kind}:{student_id}"
    row = conn.execute(sa.select(buckets).where(buckets.c.key == key).with_for_update()).first()
    if row is None:
        tokens = float(rate.burst)
    else:
        refill = max(0.0, now - row.updated) * rate.per_minute / 60.0
        tokens = min(float(rate.burst), row.tokens + refill)
    if tokens < 1.0:
        return False
    if row is None:
        try:
            with conn.begin_nested():
                conn.execute(buckets.insert().values(key=key, tokens=tokens - 1.0, updated=now))
        except sa.exc.IntegrityError:  # the same browser's first request, twice at once
            return True
    else:
        values = {"tokens": tokens - 1.0, "updated": now}
        conn.execute(buckets.update().where(buckets.c.key == key).values(**values))
    return True


def purge(conn: sa.Connection, now: float) -> None:
    """Delete the buckets idle for ``IDLE_SECONDS`` (they are full)."""
    conn.execute(buckets.delete().where(buckets.c.updated < now - IDLE_SECONDS))
