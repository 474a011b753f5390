"""What a round trip to PostgreSQL costs in CPU, the client's and the server's, when the requests
come back to back and when each comes after a dealer's pause.

    python benchmarks/round_trips.py [--requests 1000] [--pauses 0,3,10]

A table action waits on the database five to sixteen times (a card five, a start of a hand
sixteen: counted with strace, docs/performance.md "Issue 17, session 20"). Each "request" below sends
one round trip, then four more (`SELECT 1` each, prepared, as the app's are): the first's cost is
what a request pays to wake the server after a pause, the next four's what each further round trip
of the same request costs. Only `SELECT 1` is sent, so the server's own `postgres` database is used
and nothing is written. The figures are CPU (the process's and its backend's, from /proc) per
request, the median of three runs; compare them only within one run (docs/performance.md).
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import DEFAULT_SERVER, database_url, machine, process_cpu  # noqa: E402

FURTHER = 4  # round trips a request makes after its first


def cost(connection, requests: int, trips: int, pause: float) -> float:
    """CPU seconds (client and server) a request of `trips` round trips, `pause` seconds apart."""
    cursor, pid = connection.cursor(), connection.info.backend_pid
    client, server = time.process_time(), process_cpu(pid)
    for _ in range(requests):
        for _ in range(trips):
            cursor.execute("SELECT 1")
            cursor.fetchall()
        time.sleep(pause)
    return (time.process_time() - client + process_cpu(pid) - server) / requests


def measured(connection, requests: int, pause: float) -> tuple[float, float]:
    """(the first round trip of a request, each further one), CPU ms, the medians of three runs."""
    one = statistics.median(cost(connection, requests, 1, pause) for _ in range(3))
    more = statistics.median(cost(connection, requests, 1 + FURTHER, pause) for _ in range(3))
    return one * 1e3, (more - one) / FURTHER * 1e3


def table(rows: dict[float, tuple[float, float]]) -> list[str]:
    """The lines printed: per pause (ms), the first round trip's CPU and each further one's."""
    lines = ["  pause ms   first round trip ms   each further ms"]
    lines += [f"  {pause:8g}   {first:19.3f}   {further:15.3f}" for pause, (first, further) in rows.items()]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--pauses", default="0,3,10", help="ms between requests, comma-separated")
    parser.add_argument("--server", default=DEFAULT_SERVER, help="see benchmarks/common.py")
    args = parser.parse_args()
    import psycopg

    print(machine(args.server))
    pauses = [float(pause) for pause in args.pauses.split(",")]
    url = database_url(args.server, "postgres")
    with psycopg.connect(url, autocommit=True, prepare_threshold=0) as connection:
        rows = {pause: measured(connection, args.requests, pause / 1e3) for pause in pauses}
    print(f"CPU a request (client and server), {args.requests} requests a run, the median of three runs:")
    print("\n".join(table(rows)))


if __name__ == "__main__":
    main()
