"""What one table action costs the app: CPU and SQL statements per endpoint, in-process.

    python benchmarks/actions.py [--tables 8] [--actions 2000] [--profile 25] [--server URL] [--keep]

It creates `actions_bench_<pid>`, opens `--tables` tables exactly as benchmarks/load.py does (the
four games in turn) and plays them with the load generator's tablets, but through Django's test
client in this one process: no gunicorn, no HTTP, no other process on the CPU. For each endpoint
it prints the actions, the Django CPU a request takes (`time.process_time`: the request's whole
path through middleware, DRF, permissions, the service and the answer) and the SQL statements it
sends PostgreSQL (savepoints counted; `BEGIN` and `COMMIT` are not: psycopg sends them on its
own). With --profile N it then plays again under cProfile and prints the N functions with the most
cumulative CPU time.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path
from statistics import mean

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import DEFAULT_SERVER, admin_sql, database_url, machine, setup_django
from benchmarks.load import Answer, Tablet, floor_create


def play(client, tablet: Tablet) -> tuple[str, float, int]:
    """One action of `tablet`: its label, the CPU seconds and the statements it took."""
    from django.db import connection

    label, path, body, key = tablet.next_request()
    headers = {"Authorization": f"Token {tablet.token}", "Idempotency-Key": key, "X-Device": "bench"}
    statements = []

    def count(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        started = time.process_time()
        response = client.post(path, body, content_type="application/json", headers=headers)
        cpu = time.process_time() - started
    tablet.absorb(Answer(label, key, response.status_code, cpu, response.json()))
    if response.status_code >= 400 and tablet.pending is None and not tablet.needs_shoe:
        raise RuntimeError(f"{label} refused: {response.status_code} {response.content[:300]!r}")
    return label, cpu, len(statements)


def rounds(client, tablets: list[Tablet], actions: int) -> dict[str, list[tuple[float, int]]]:
    """`actions` actions, round the tables in turn; per label, (cpu, statements) of each."""
    by_label: dict[str, list[tuple[float, int]]] = defaultdict(list)
    for number in range(actions):
        label, cpu, statements = play(client, tablets[number % len(tablets)])
        by_label[label].append((cpu, statements))
    return by_label


def table_of_costs(by_label: dict[str, list[tuple[float, int]]]) -> list[str]:
    lines = [f"  {'endpoint':<12}{'actions':>9}{'CPU ms':>9}{'statements':>12}"]
    everything = [cost for costs in by_label.values() for cost in costs]
    for label, costs in [*sorted(by_label.items()), ("all", everything)]:
        cpu = mean(c for c, _ in costs) * 1000
        statements = mean(s for _, s in costs)
        lines.append(f"  {label:<12}{len(costs):>9}{cpu:>9.1f}{statements:>12.1f}")
    return lines


def main() -> None:
    args = arguments()
    name = f"actions_bench_{os.getpid()}"
    admin_sql(args.server, f'CREATE DATABASE "{name}"')
    try:
        print(machine(args.server), flush=True)
        os.environ.update(SECURE_SSL_REDIRECT="0", LOG_LEVEL="WARNING")  # as benchmarks/load.py serves it
        setup_django(database_url(args.server, name), settings="benchmarks.load_site")
        measure(args)
    finally:
        if "django" in sys.modules:
            from django.db import connections

            connections.close_all()
        if not args.keep:
            admin_sql(args.server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def measure(args) -> None:
    from django.test import Client

    tablets = floor_create(args.tables, args.games.split(","))
    client = Client(HTTP_HOST="127.0.0.1")
    rounds(client, tablets, 4 * len(tablets))  # not counted: code loaded, connection open
    print(f"{args.actions} actions at {len(tablets)} tables ({args.games}), in-process:", flush=True)
    for line in table_of_costs(rounds(client, tablets, args.actions)):
        print(line, flush=True)
    if args.profile:
        profiler = cProfile.Profile(time.process_time)  # CPU, as the figures above
        profiler.runcall(rounds, client, tablets, args.actions)
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(args.profile)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--actions", type=int, default=2000)
    parser.add_argument("--games", default="rocket,blackstone,starboard,pairs")
    parser.add_argument("--profile", type=int, default=0, help="print the N costliest functions (cProfile)")
    parser.add_argument("--server", default=DEFAULT_SERVER, help="see benchmarks/common.py")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    return parser.parse_args()


if __name__ == "__main__":
    main()
