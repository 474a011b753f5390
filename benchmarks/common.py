"""What the benchmarks share: the PostgreSQL server they make their throwaway databases on, Django
set up on one of them, and the machine line each prints first.

The server defaults to this machine's PostgreSQL over its Unix socket (`BENCH_SERVER` or
`--server` to change it, e.g. postgres://postgres@127.0.0.1:5432): on one machine the app would use
the socket, and here each round trip over TCP loopback costs several times as much.
"""

import os
import platform
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

DEFAULT_SERVER = os.environ.get("BENCH_SERVER", "postgres://postgres@/?host=/var/run/postgresql")


def database_url(server: str, name: str) -> str:
    """The URL of database `name` on `server` (a URL whose path is empty or a database's)."""
    return urlunsplit(urlsplit(server)._replace(path=f"/{name}"))


def admin_sql(server: str, sql: str) -> list[tuple]:
    """Run `sql` in the server's `postgres` database (CREATE DATABASE cannot run in a transaction)."""
    import psycopg

    with psycopg.connect(database_url(server, "postgres"), autocommit=True) as connection:
        cursor = connection.execute(sql)
        return cursor.fetchall() if cursor.description else []


def setup_django(url: str, settings: str = "casino.settings") -> None:
    """Django on the database at `url`, migrated."""
    os.environ["DATABASE_URL"] = url
    os.environ["DJANGO_SETTINGS_MODULE"] = settings
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def machine(server: str) -> str:
    import psycopg

    model = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")),
        platform.processor() or "unknown CPU",
    )
    version, synchronous_commit, fsync, shared_buffers = admin_sql(
        server,
        "SELECT current_setting('server_version'), current_setting('synchronous_commit'), "
        "current_setting('fsync'), current_setting('shared_buffers')",
    )[0]
    return (
        f"machine: {os.cpu_count()} CPUs, {model} ({python_speed():.2f} s for {SPEED_LOOP:,} additions in a "
        f"Python loop); PostgreSQL {version} (synchronous_commit={synchronous_commit}, fsync={fsync}, "
        f"shared_buffers={shared_buffers}) at {server}; Python {platform.python_version()}; "
        f"psycopg {psycopg.__version__} (libpq {psycopg.pq.version()})"
    )


SPEED_LOOP = 10_000_000
CLOCK_TICK = 1 / os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """CPU seconds process `pid` (on this machine: PostgreSQL's backend for a connection) has used so
    far, user and system, from its /proc stat: in clock ticks, so exact only over many requests."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * CLOCK_TICK  # utime, stime (fields 14, 15)


def python_speed() -> float:
    """CPU seconds of a fixed pure-Python loop: the same model of machine runs at different speeds
    on different days (a shared host), so figures are only compared beside this reading."""
    started = time.process_time()
    total = 0
    for number in range(SPEED_LOOP):
        total += number
    return time.process_time() - started
