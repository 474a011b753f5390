"""What one table action costs the app: CPU and SQL statements per endpoint, in-process.

    python benchmarks/actions.py [--tables 8] [--actions 2000] [--profile 25] [--layers]
                                 [--show-sql LABEL] [--server URL] [--keep]

It creates `actions_bench_<pid>`, opens `--tables` tables exactly as benchmarks/load.py does (the
four games in turn) and plays them with the load generator's tablets, but through Django's test
client in this one process: no granian, no HTTP, no other process on the CPU. For each endpoint
it prints the actions, the Django CPU a request takes (`time.process_time`: the request's whole
path through middleware, DRF, permissions, the service and the answer), the CPU the PostgreSQL
backend serving this process's connection spent on it (its /proc stat, in clock ticks: exact only
as an average over many requests) and the SQL statements it sends PostgreSQL (savepoints counted;
`BEGIN` and `COMMIT` are not: psycopg sends them on its own), and then the WAL PostgreSQL wrote
for the actions and for the floor view's posts, in bytes each (a commit flushes what it wrote).

The same is measured, in the same run, for `/floor/` (benchmarks/load_urls.py: one insert in one
transaction, the floor of this stack), and the issue's goal is printed as a ratio: a table action
within FLOOR_GOAL times the CPU (Django and PostgreSQL together) of the floor view, and by how much
it is missed; when it is missed, what PostgreSQL's own CPU for an action leaves of it (the ratio
an action whose Django CPU was no more than the floor view's would still cost). With --profile N
it then plays again under cProfile and prints the N functions with the most cumulative CPU time;
with --layers it plays again timing each layer of a request (authentication, the record and the
permission, the service, the answer, and the rest); with --show-sql LABEL it prints the
statements of one action so labelled.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import time
from collections import defaultdict
from functools import partial
from pathlib import Path
from statistics import mean

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import DEFAULT_SERVER, admin_sql, database_url, machine, process_cpu, setup_django
from benchmarks.load import Answer, Tablet, floor_create

# Issue 17's goal: a table action costs at most this many times the CPU of the one-insert floor view.
FLOOR_GOAL = 3


class Backend:
    """The CPU seconds PostgreSQL's backend process for Django's connection has used so far
    (`process_cpu`: it runs on this machine)."""

    def __init__(self):
        from django.db import connection

        connection.ensure_connection()
        self.pid = connection.connection.info.backend_pid

    def cpu(self) -> float:
        return process_cpu(self.pid)


def timed(backend: Backend, send) -> tuple[object, float, float, int]:
    """`send()`'s answer, the Django and PostgreSQL CPU seconds it took, and its statements."""
    from django.db import connection

    statements = []

    def count(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        database = backend.cpu()
        started = time.process_time()
        response = send()
        cpu = time.process_time() - started
        database = backend.cpu() - database
    timed.last = statements  # for --show-sql
    return response, cpu, database, len(statements)


def play(client, backend: Backend, tablet: Tablet) -> tuple[str, tuple[float, float, int]]:
    """One action of `tablet`: its label, and the CPU (Django, PostgreSQL) and statements it took."""
    label, path, body, key = tablet.next_request()
    headers = {"Authorization": f"Token {tablet.token}", "Idempotency-Key": key, "X-Device": "bench"}
    send = partial(client.post, path, body, content_type="application/json", headers=headers)
    response, cpu, database, statements = timed(backend, send)
    tablet.absorb(Answer(label, key, response.status_code, cpu, response.json()))
    if response.status_code >= 400 and tablet.pending is None and not tablet.needs_shoe:
        raise RuntimeError(f"{label} refused: {response.status_code} {response.content[:300]!r}")
    return label, (cpu, database, statements)


def rounds(client, backend: Backend, tablets: list[Tablet], actions: int) -> dict[str, list[tuple]]:
    """`actions` actions, round the tables in turn; per label, (cpu, database cpu, statements) of each."""
    by_label: dict[str, list[tuple]] = defaultdict(list)
    for number in range(actions):
        label, cost = play(client, backend, tablets[number % len(tablets)])
        by_label[label].append(cost)
    return by_label


def wal_written() -> int:
    """Bytes of WAL PostgreSQL has written so far (its insert position), all sessions together."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')")
        return int(cursor.fetchone()[0])


def floor_costs(client, backend: Backend, requests: int) -> list[tuple]:
    """(cpu, database cpu, statements) of each of `requests` posts to `/floor/`."""
    send = partial(client.post, "/floor/", headers={"X-Device": "bench"})
    costs = []
    for _ in range(requests):
        response, *cost = timed(backend, send)
        if response.status_code != 201:
            raise RuntimeError(f"/floor/ answered {response.status_code}")
        costs.append(tuple(cost))
    return costs


def averages(costs: list[tuple]) -> tuple[float, float, float]:
    """Mean Django CPU ms, PostgreSQL CPU ms and statements."""
    return (mean(c[0] for c in costs) * 1000, mean(c[1] for c in costs) * 1000, mean(c[2] for c in costs))


def table_of_costs(by_label: dict[str, list[tuple]], floor: list[tuple]) -> list[str]:
    """Per endpoint: actions, CPU ms (Django, PostgreSQL, both), statements, and both CPUs against
    the floor view's: the goal is FLOOR_GOAL times at most."""
    floor_django, floor_database, _ = averages(floor)
    floor_total = floor_django + floor_database
    lines = [f"  {'endpoint':<20}{'actions':>8}{'Django ms':>10}{'PG ms':>8}{'CPU ms':>8}"
             f"{'statements':>11}{'x floor':>9}"]
    everything = [cost for costs in by_label.values() for cost in costs]
    for label, costs in [*sorted(by_label.items()), ("all", everything), ("floor (one insert)", floor)]:
        django, database, statements = averages(costs)
        lines.append(f"  {label:<20}{len(costs):>8}{django:>10.2f}{database:>8.2f}{django + database:>8.2f}"
                     f"{statements:>11.1f}{(django + database) / floor_total:>8.1f}x")
    django, database, _ = averages(everything)
    ratio = (django + database) / floor_total
    verdict = "met" if ratio <= FLOOR_GOAL else f"missed by {ratio / FLOOR_GOAL:.1f}x"
    lines.append(f"  goal: an action within {FLOOR_GOAL}x the floor view's CPU (Django + PostgreSQL): it "
                 f"costs {ratio:.1f}x, {verdict}")
    if ratio > FLOOR_GOAL:
        lines.append(in_the_way(database, floor_django, floor_total))
    return lines


def in_the_way(database: float, floor_django: float, floor_total: float) -> str:
    """What PostgreSQL's own CPU for an action leaves of the goal: the ratio an action would still
    cost if its Django CPU were no more than the floor view's (which has no token, no parsing and
    no answer to build)."""
    bound = (database + floor_django) / floor_total
    leaves = "still misses" if bound > FLOOR_GOAL else "would meet"
    return (f"  in the way: PostgreSQL's own CPU an action ({database:.2f} ms) is "
            f"{database / floor_total:.1f}x the floor view's whole; with Django's CPU no more than the "
            f"floor view's ({floor_django:.2f} ms), an action would cost {bound:.1f}x: it {leaves} the goal")


def main() -> None:
    args = arguments()
    name = f"actions_bench_{os.getpid()}"
    admin_sql(args.server, f'CREATE DATABASE "{name}"')
    try:
        print(machine(args.server), flush=True)
        os.environ.update(SECURE_SSL_REDIRECT="0", LOG_LEVEL="WARNING")  # as benchmarks/load.py serves it
        setup_django(database_url(args.server, name), settings="benchmarks.load_site")
        import casino.wsgi  # noqa: F401  the application as a server process loads it (casino/wsgi.py)

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
    backend = Backend()
    rounds(client, backend, tablets, 4 * len(tablets))  # not counted: code loaded, connection open
    floor_costs(client, backend, 50)
    print(f"{args.actions} actions at {len(tablets)} tables ({args.games}), and as many posts to /floor/, "
          "in-process:", flush=True)
    wal = wal_written()
    by_label = rounds(client, backend, tablets, args.actions)
    action_wal = wal_written() - wal
    if args.show_sql:
        show_sql(client, backend, tablets, args.show_sql)
    wal = wal_written()
    floor = floor_costs(client, backend, args.actions)
    floor_wal = wal_written() - wal
    for line in table_of_costs(by_label, floor):
        print(line, flush=True)
    print(f"  WAL written: {action_wal / args.actions:,.0f} bytes an action, {floor_wal / args.actions:,.0f} "
          "a post to /floor/ (each commit flushes its own)", flush=True)
    if args.layers:
        for line in layers(client, backend, tablets, args.actions):
            print(line, flush=True)
    if args.profile:
        profiler = cProfile.Profile(time.process_time)  # CPU, as the figures above
        profiler.runcall(rounds, client, backend, tablets, args.actions)
        pstats.Stats(profiler, stream=sys.stdout).sort_stats("cumulative").print_stats(args.profile)


# The layers of a request (issue 17 point 2): where each is entered, as (module, object, attribute).
LAYERS = {
    "authentication (the token)": ("casino.tokens", "ExpiringTokenAuthentication", "authenticate"),
    "the record and the permission": ("tables.api.views", "TableAPI", "get_object"),
    "the service's transaction": ("tables.services.hands", None, "_step_once"),
    "the answer (the hand's screen)": ("tables.api.views", None, "hand_response"),
}


def layers(client, backend: Backend, tablets: list[Tablet], actions: int) -> list[str]:
    """Play `actions` more actions with each layer's Django CPU timed, and print it per action."""
    import importlib

    spent = defaultdict(float)

    def timing(name, function):
        def timed_layer(*args, **kwargs):
            started = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] += time.process_time() - started

        return timed_layer

    originals = []
    for name, (module_name, holder, attribute) in LAYERS.items():
        owner = importlib.import_module(module_name)
        owner = getattr(owner, holder) if holder else owner
        originals.append((owner, attribute, getattr(owner, attribute)))
        setattr(owner, attribute, timing(name, getattr(owner, attribute)))
    try:
        by_label = rounds(client, backend, tablets, actions)
    finally:
        for owner, attribute, original in originals:
            setattr(owner, attribute, original)
    total = sum(cost[0] for costs in by_label.values() for cost in costs)
    lines = [f"the layers of {actions} actions, Django CPU ms an action:"]
    for name in LAYERS:
        lines.append(f"  {name:<36}{spent[name] / actions * 1000:>7.2f}{spent[name] / total:>7.0%}")
    rest = total - sum(spent.values())
    lines.append(f"  {'DRF, middleware, parsing, JSON':<36}{rest / actions * 1000:>7.2f}{rest / total:>7.0%}")
    return lines


def show_sql(client, backend: Backend, tablets: list[Tablet], label: str) -> None:
    """Play on until an action labelled `label` and print the statements it sent."""
    for number in range(1000):
        if play(client, backend, tablets[number % len(tablets)])[0] == label:
            print(f"the statements of one {label}:", *timed.last, sep="\n  ")
            return


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--actions", type=int, default=2000)
    parser.add_argument("--games", default="rocket,blackstone,starboard,pairs")
    parser.add_argument("--profile", type=int, default=0, help="print the N costliest functions (cProfile)")
    parser.add_argument("--layers", action="store_true", help="print the Django CPU of each layer")
    parser.add_argument("--show-sql", metavar="LABEL", help="print the statements of one action so labelled")
    parser.add_argument("--server", default=DEFAULT_SERVER, help="see benchmarks/common.py")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    return parser.parse_args()


if __name__ == "__main__":
    main()
