"""Benchmark the ledger: transactions per second through `ledger_post`, against bulk inserts of the same rows.

    python benchmarks/ledger.py [--transactions 20000] [--server URL]
                                [--tables 4] [--keep]

It creates `ledger_bench_<pid>`, migrates it and opens `--tables` Rocket tables (a tray filled from
the cage, six players bought in, through `ledger_post`), creates the wager account of every hand to
come, and plays a few warm-up hands (counting the SQL statements of one post). Then it times:

- `ledger_post`: `--transactions` transactions, half bets (player -> wager) and half settlements
  (the stakes back, then each seat's result against the tray), one or two seats a hand, 2 to 7
  postings each, with the lines, kinds and memos `tables.services.hands` gives them, hands dealt
  round the tables' chains. Each post runs inside its own `transaction.atomic()`, as a hand action
  does (`run_once` opens it; `ledger_post` and `chain_append` nest in it as savepoints), so each
  transaction is one commit. The cost includes everything the service does: the checks, the row
  locks, the chain hash and its read-back, the cached balances and the chain head.
- the limit: the same Transaction and Posting rows, read back from that run with every column as
  the service wrote it (ids, chain positions, hashes, times), written with psycopg 3 in one
  transaction, once by `COPY ... FROM STDIN` (`cursor.copy`) and once by `executemany` of INSERTs
  (pipelined by psycopg). Afterwards each copy is read back and compared with the service's rows.

No batched mode: no service posts many transactions in one atomic block (every seat, bet,
settlement, fill, credit and cash-out is its own `run_once`; only the demo seed posts its four
opening fills in one).

Keeping it honest. The same rows cannot be written twice into one set of tables (unique ids and
chain positions, and the tables refuse DELETE), so each bulk mode writes into its own copy of the
database taken just before the timed service run (`CREATE DATABASE ... TEMPLATE`): same tables,
indexes, foreign keys and triggers, all left on. The append-only triggers fire on UPDATE, DELETE
and TRUNCATE only; the balance check (deferred, at commit, one query per posting and per
transaction) and the refusal of a late posting (before each posting insert) fire for the bulk
inserts as for the service, so postings go in before their transactions, as the service does.
Same server, same settings: synchronous_commit is left as the server has it (printed) for every
mode; the service commits once per transaction, each bulk mode once. A CHECKPOINT runs before each
timed phase. The bulk modes write only the two tables; the cached balances and chain heads the
service also updates, and the hashes it computes, are its own cost. One connection, one writer:
the tables never wait on each other here.

The machine is printed with the figures: they depend on it and on what else runs on it.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

# First, so that `import ledger` is the app and not this file.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import DEFAULT_SERVER, admin_sql, database_url, machine, setup_django

SEED = "ledger-benchmark"
SEATS = 6
BETS = (10, 20, 50, 100, 200)
BUY_IN = 10_000_000  # never runs out: the benchmark times posts, not refusals
TRAY_FILL = 1_000_000_000
WARMUP_HANDS = 10


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transactions", type=int, default=20_000)
    parser.add_argument("--server", default=DEFAULT_SERVER, help="see benchmarks/common.py")
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--keep", action="store_true", help="keep the databases")
    return parser.parse_args()


# -- the database ------------------------------------------------------------------------------------


# -- the floor and the hands -------------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """One table with the accounts its hands use."""

    table: object
    tray: object
    players: list


@dataclass(frozen=True)
class Floor:
    user: object
    places: list[Place]
    wagers: dict[int, object]  # hand id -> its wager account

    def place(self, hand: int) -> Place:
        return self.places[(hand - 1) % len(self.places)]


@dataclass(frozen=True)
class Post:
    """One call of `ledger_post`, as the hand services make it."""

    table: object
    kind: str
    memo: str
    hand_id: int
    lines: list


def open_floor(tables: int, hands: int) -> Floor:
    """Casino, pit, tables with their trays filled and six players bought in; a wager account per hand."""
    from casino.models import User
    from ledger.services import account_get
    from tables.models import Casino, Pit

    user = User.objects.create_user(username=f"bench-{os.getpid()}", password=None)
    casino = Casino.objects.create(name="Bench Casino")
    pit = Pit.objects.create(casino=casino, name="Pit 1")
    cage = account_get(kind="cage", casino=casino)
    patrons = account_get(kind="patrons", casino=casino)
    places = [_open_table(pit, number, user, cage, patrons) for number in range(1, tables + 1)]
    floor = Floor(user=user, places=places, wagers={})
    floor.wagers.update(_wager_accounts(floor, hands))
    return floor


def _open_table(pit, number: int, user, cage, patrons) -> Place:
    from ledger.services import Line, account_get, ledger_post
    from tables.models import Game, Table

    table = Table.objects.create(pit=pit, name=f"Rocket {number}", game=Game.ROCKET, min_bet=10, max_bet=500)
    tray, drop = account_get(kind="tray", table=table), account_get(kind="drop", table=table)
    ledger_post(lines=[Line(cage, -TRAY_FILL, "fill"), Line(tray, TRAY_FILL, "fill")],
                kind="fill", memo=f"{table}: fill", by=user, table=table)
    players = []
    for seat in range(1, SEATS + 1):
        player = account_get(kind="player", table=table, ref=number * 100 + seat, label=f"Seat {seat}")
        lines = [Line(patrons, -BUY_IN, "buy-in cash"), Line(drop, BUY_IN, "buy-in cash"),
                 Line(tray, -BUY_IN, "buy-in chips"), Line(player, BUY_IN, "buy-in chips")]
        ledger_post(lines=lines, kind="buy_in", memo=f"Seat {seat}: buy-in", by=user, table=table)
        players.append(player)
    return Place(table=table, tray=tray, players=players)


def _wager_accounts(floor: Floor, hands: int) -> dict[int, object]:
    """Created in bulk beforehand: account_get would make each on the hand's first post, untimed here."""
    from ledger.models import Account
    from ledger.services import DEFAULT_FLOORS, account_code

    accounts = []
    for hand in range(1, hands + 1):
        table = floor.place(hand).table
        accounts.append(Account(
            kind=Account.Kind.WAGER, casino_id=floor.places[0].tray.casino_id, table=table, ref=hand,
            code=account_code(kind=Account.Kind.WAGER, table=table, ref=hand),
            floor=DEFAULT_FLOORS[Account.Kind.WAGER],
        ))
    return {account.ref: account for account in Account.objects.bulk_create(accounts)}


def plan(floor: Floor, hands: int, seed: str = SEED) -> list[Post]:
    """Each hand's bet and settlement, dealt round the tables."""
    rng, posts = random.Random(seed), []
    for hand in range(1, hands + 1):
        place = floor.place(hand)
        seats = rng.sample(place.players, rng.choice((1, 1, 2)))
        bets = [rng.choice(BETS) for _ in seats]
        results = [_result(rng, bet) for bet in bets]
        posts.append(Post(place.table, "bet", f"Hand {hand}: bets", hand,
                          bet_lines(seats, bets, floor.wagers[hand])))
        posts.append(Post(place.table, "settlement", f"Hand {hand} settlement", hand,
                          settlement_lines(seats, bets, results, floor.wagers[hand], place.tray)))
    return posts


def _result(rng: random.Random, bet: int) -> tuple[int, str]:
    """A Rocket result: the seat pairs (pays tenth x rank) or the dealer pairs (pays the seat)."""
    amount = bet // 10 * rng.randint(1, 10)
    return (-amount, "pair") if rng.random() < 0.55 else (amount, "dealer pair")


def bet_lines(seats: list, bets: list[int], wager) -> list:
    from ledger.services import Line

    lines = []
    for player, bet in zip(seats, bets, strict=True):
        lines += [Line(player, -bet, "bet"), Line(wager, bet, "bet")]
    return lines


def settlement_lines(seats: list, bets: list[int], results: list[tuple[int, str]], wager, tray) -> list:
    """As `tables.services.hands._settlement_lines`: stakes back, then the engine's entries summed
    per account and reason (the tray's lines of one reason are one line)."""
    from ledger.services import Line

    lines = []
    for player, bet in zip(seats, bets, strict=True):
        lines += [Line(wager, -bet, "bet returned"), Line(player, bet, "bet returned")]
    house: dict[str, int] = {}
    for player, (amount, reason) in zip(seats, results, strict=True):
        lines.append(Line(player, amount, reason))
        house[reason] = house.get(reason, 0) - amount
    return lines + [Line(tray, amount, reason) for reason, amount in house.items() if amount]


# -- the service ---------------------------------------------------------------------------------------


def post_all(posts: list[Post], user) -> list:
    """Post each in its own atomic block, as a hand action does; return the transactions' ids."""
    from django.db import transaction

    from ledger.services import ledger_post

    ids = []
    for post in posts:
        with transaction.atomic():
            txn = ledger_post(lines=post.lines, kind=post.kind, memo=post.memo, by=user, table=post.table,
                              hand_id=post.hand_id)
        ids.append(txn.pk)
    return ids


def statements_per_post(posts: list[Post], user) -> float:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        post_all(posts, user)
    return len(captured) / len(posts)


# -- the rows ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rows:
    """One table's rows, as tuples in the order of `columns`; `key` holds the transaction's id."""

    table: str
    columns: tuple[str, ...]
    key: str
    values: list[tuple]


def ledger_tables() -> list[tuple]:
    """(model, key column), in write order: a posting must arrive before its transaction row."""
    from ledger.models import Posting, Transaction

    return [(Posting, "transaction_id"), (Transaction, "id")]


def service_rows(ids: list) -> list[Rows]:
    """Every column of the Transaction and Posting rows of `ids`, as the service stored them."""
    out = []
    for model, key in ledger_tables():
        fields = model._meta.concrete_fields
        values = model.objects.filter(**{f"{key}__in": ids}).values_list(*(f.attname for f in fields))
        # Sorted on the leading columns (posting id; chain and position), which are unique.
        out.append(Rows(model._meta.db_table, tuple(f.column for f in fields), key, sorted(values)))
    return out


def stored_rows(cursor, like: list[Rows], ids: list) -> list[Rows]:
    """The rows of `ids` as another database (or table) holds them, read with a psycopg cursor."""
    out = []
    for rows in like:
        cursor.execute(f"SELECT {_names(rows)} FROM {rows.table} WHERE {rows.key} = ANY(%s)", [ids])
        out.append(replace(rows, values=sorted(cursor.fetchall())))
    return out


def _names(rows: Rows) -> str:
    return ", ".join(f'"{column}"' for column in rows.columns)


def copy_rows(cursor, rows: list[Rows]) -> None:
    for batch in rows:
        with cursor.copy(f"COPY {batch.table} ({_names(batch)}) FROM STDIN") as copy:
            for row in batch.values:
                copy.write_row(row)


def insert_rows(cursor, rows: list[Rows]) -> None:
    for batch in rows:
        marks = ", ".join(["%s"] * len(batch.columns))
        cursor.executemany(f"INSERT INTO {batch.table} ({_names(batch)}) VALUES ({marks})", batch.values)


def timed_bulk(url: str, write, rows: list[Rows]) -> float:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn, conn.cursor() as cursor:
        # Connected, and the tables' catalogue entries loaded, before the clock starts.
        cursor.execute(f"SELECT 1 FROM {', '.join(r.table for r in rows)} LIMIT 1")
        started = time.perf_counter()
        with conn.transaction():
            write(cursor, rows)
        seconds = time.perf_counter() - started
        ids = [row[rows[-1].columns.index("id")] for row in rows[-1].values]
        if stored_rows(cursor, rows, ids) != rows:
            raise AssertionError(f"{url}: the bulk rows differ from the rows the service wrote")
    return seconds


# -- the run -------------------------------------------------------------------------------------------


def timed_service(posts: list[Post], user) -> tuple[float, list]:
    from django.db import connection

    from ledger.models import Account, Transaction

    connection.ensure_connection()
    Account.objects.filter(pk=posts[0].lines[0].account.pk).exists()  # catalogue loaded, as for bulk
    Transaction.objects.exists()
    started = time.perf_counter()
    ids = post_all(posts, user)
    return time.perf_counter() - started, ids


def measure(args, name: str, clones: dict[str, str]) -> None:
    from django.db import connections

    hands = args.transactions // 2
    floor = open_floor(args.tables, WARMUP_HANDS + hands)
    posts = plan(floor, WARMUP_HANDS + hands)
    per_post = statements_per_post(posts[: 2 * WARMUP_HANDS], floor.user)
    timed = posts[2 * WARMUP_HANDS :]
    connections.close_all()  # a template database takes no other connection
    for clone in clones.values():
        admin_sql(args.server, f"CREATE DATABASE {clone} TEMPLATE {name}")

    admin_sql(args.server, "CHECKPOINT")
    service_s, ids = timed_service(timed, floor.user)
    rows = service_rows(ids)
    results = [("ledger_post, one atomic per transaction", service_s)]
    for label, mode, write in (("COPY FROM STDIN, one transaction", "copy", copy_rows),
                               ("executemany INSERT, one transaction", "insert", insert_rows)):
        admin_sql(args.server, "CHECKPOINT")
        results.append((label, timed_bulk(database_url(args.server, clones[mode]), write, rows)))
    report(results, len(ids), len(rows[0].values), per_post)


def report(results: list[tuple[str, float]], transactions: int, postings: int, per_post: float) -> None:
    copy_s, insert_s = results[1][1], results[2][1]
    print(f"\n{transactions:,} transactions, {postings:,} postings "
          f"({postings / transactions:.2f} a transaction); {per_post:.1f} SQL statements per ledger_post "
          "(savepoints included)")
    print(f"{'mode':<40} {'seconds':>8} {'tx/s':>9} {'postings/s':>11} {'of COPY':>8} {'of executemany':>15}")
    for label, seconds in results:
        print(f"{label:<40} {seconds:8.2f} {transactions / seconds:9,.0f} {postings / seconds:11,.0f} "
              f"{copy_s / seconds:8.3f} {insert_s / seconds:15.3f}")
    service_s = results[0][1]
    print(f"COPY writes the same rows {service_s / copy_s:.0f}x faster than ledger_post, "
          f"executemany {service_s / insert_s:.0f}x")


def main() -> None:
    args = parse()
    name = f"ledger_bench_{os.getpid()}"
    clones = {"copy": f"{name}_copy", "insert": f"{name}_insert"}
    print(machine(args.server))
    admin_sql(args.server, f"CREATE DATABASE {name}")
    try:
        setup_django(database_url(args.server, name))
        measure(args, name, clones)
    finally:
        if "django" in sys.modules:
            from django.db import connections

            connections.close_all()
        if not args.keep:
            for database in (name, *clones.values()):
                admin_sql(args.server, f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")


if __name__ == "__main__":
    main()
