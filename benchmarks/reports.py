"""Benchmark the reports on 100,000 and 1,000,000 hands in a throwaway PostgreSQL database.

    python benchmarks/reports.py [--hands 100000,1000000] [--server URL]
                                 [--tables 20] [--days 120] [--keep]

For each size it creates `reports_bench_<pid>_<hands>`, migrates it, seeds it with bulk COPY straight
into the tables (bypassing the services: that is the point of a benchmark) and prints each report's
time next to the bare SQL aggregate that computes the same totals, then drops the database
(unless --keep).

What is seeded, per hand: the hand (its setup, bets and settlement as the services record them), every
card event (burns included) and decision, and in the ledger the bet and settlement transactions
with their postings, so the house-edge, statistics and reconciliation reports read them exactly as
they read real play. Hands are dealt from simulated 8- and 6-deck shoes (`tables.simulation.SimShoe`)
with the always-hit strategy, one to six seats, bets of 10 to 200. Hash-chain fields are left
empty (computing 30 million SHA-256 hashes in Python would take longer than the benchmark): the
house-edge and statistics reports do not read them; reconciliation reports the broken chain.

Protection triggers are switched off for the load (ALTER TABLE ... DISABLE TRIGGER ALL, as the
database's owner): this database is thrown away afterwards.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.common import DEFAULT_SERVER, admin_sql, database_url, setup_django

SEED = "reports-benchmark"
SEATS_MAX = 6
BETS = (10, 20, 50, 100, 200)
CONFIGS = (5, 3)  # burns of the 8-deck shoes: two Rocket rules configurations, two theoretical edges
DECKS = 8
BUY_IN = 5000  # each seat buys in once per table and day: the drop


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", default="100000,1000000")
    parser.add_argument("--server", default=DEFAULT_SERVER, help="see benchmarks/common.py")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--days", type=int, default=120)
    parser.add_argument("--keep", action="store_true", help="keep the seeded databases")
    parser.add_argument("--database", help="time the reports on a database seeded earlier (--keep)")
    return parser.parse_args()


# -- the database ------------------------------------------------------------------------------------


# -- dealing -------------------------------------------------------------------------------------------


class Writer:
    """Rows as COPY text, one buffer per table."""

    def __init__(self):
        self.buffers: dict[str, io.StringIO] = {}
        self.counts: dict[str, int] = {}

    def row(self, table: str, *values) -> None:
        buffer = self.buffers.setdefault(table, io.StringIO())
        buffer.write("\t".join(_text(v) for v in values) + "\n")
        self.counts[table] = self.counts.get(table, 0) + 1


def _text(value) -> str:
    if value is None:
        return "\\N"
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":")).replace("\\", "\\\\")
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bool):
        return "t" if value else "f"
    return str(value)


def play_always_hit(tenths: list[int], draw) -> tuple[list[tuple], list[int]]:
    """A Rocket hand, always hitting: its events in order (("card", receiver, seat, rank, why) or
    ("decision", seat)) and each seat's result in units. The rules as docs/rules/rocket.md gives them."""
    n, events = len(tenths), []
    own, deltas = [set() for _ in range(n)], [0] * n
    for i in range(n):
        rank = draw()
        own[i].add(rank)
        events.append(("card", "seat", i + 1, rank, "deal"))
    first = draw()
    events.append(("card", "dealer", None, first, "deal"))
    if first == 3:
        return events, [3 * t for t in tenths]
    dealer, live = {first}, list(range(n))
    while live:
        still = []
        for i in live:
            events.append(("decision", i + 1))
            rank = draw()
            events.append(("card", "seat", i + 1, rank, "hit"))
            if rank in own[i]:
                deltas[i] = -tenths[i] * rank
            else:
                own[i].add(rank)
                still.append(i)
        live = still
        if not live:
            break
        rank = draw()
        events.append(("card", "dealer", None, rank, "dealer"))
        if rank == 3 or rank in dealer:
            for i in live:
                deltas[i] = tenths[i] * rank
            break
        dealer.add(rank)
    return events, deltas


class Ids:
    def __init__(self):
        self.next: dict[str, int] = {}

    def take(self, table: str) -> int:
        self.next[table] = self.next.get(table, 0) + 1
        return self.next[table]


def seed(hands_total: int, tables_n: int, days: int) -> dict:
    """Deal and COPY everything; return what was written (row counts)."""
    from django.db import connection

    from casino.models import User
    from ledger.models import Account
    from tables.models import Casino, Pit

    started = time.perf_counter()
    w, ids, rng = Writer(), Ids(), random.Random(SEED)
    user = User.objects.create_user(username="bench", password=None)
    casino = Casino.objects.create(name="Bench Casino")
    pit = Pit.objects.create(casino=casino, name="Pit 1")
    patrons = Account.objects.create(kind="patrons", casino=casino, code=f"c{casino.pk}:patrons")
    ids.next["ledger_account"] = patrons.pk
    ledger = _Ledger(w, ids, casino.pk, user.pk)
    first_day = date.today() - timedelta(days=days)
    per_table = hands_total // tables_n
    for t in range(1, tables_n + 1):
        burn = CONFIGS[t % len(CONFIGS)]
        w.row("tables_table", t, pit.pk, f"Rocket {t}", "rocket", 10, 500, 100, {}, 1000)
        w.row("ledger_chain", t, f"table:{t}", 0, "0" * 64)
        table = _Table(w, ids, rng, ledger, t, burn, user.pk, patrons.pk)
        table.deal(per_table, first_day, days)
    seeded = time.perf_counter()
    _copy(connection, w)
    copied = time.perf_counter()
    return {"rows": w.counts, "deal_s": seeded - started, "copy_s": copied - seeded}


class _Ledger:
    def __init__(self, w: Writer, ids: Ids, casino: int, user: int):
        self.w, self.ids, self.position, self.casino, self.user = w, ids, {}, casino, user

    def account(self, kind, table, ref, code) -> int:
        pk = self.ids.take("ledger_account")
        self.w.row("ledger_account", pk, kind, self.casino, table, ref, code, "", None, 0)
        return pk

    def post(self, table, kind, when, hand_id, lines) -> None:
        tx = f"{self.ids.take('tx'):032x}"
        self.position[table] = self.position.get(table, 0) + 1
        for account, amount, reason in lines:
            if amount:
                self.w.row("ledger_posting", self.ids.take("ledger_posting"), tx, account, amount, reason)
        self.w.row(
            "ledger_transaction",
            table,
            self.position[table],
            "",
            "",
            tx,
            kind,
            "",
            self.casino,
            table,
            hand_id,
            when,
            self.user,
            None,
            "",
            None,
        )


class _Table:
    """One table's seats, accounts, shoes and hands, dealt hand after hand from one simulated shoe."""

    def __init__(self, w, ids, rng, ledger, t, burn, user, patrons):
        from tables.simulation import SimShoe

        self.w, self.ids, self.rng, self.ledger, self.t, self.user = w, ids, rng, ledger, t, user
        self.patrons = patrons
        self.tray = ledger.account("tray", t, None, f"t{t}:tray")
        self.drop = ledger.account("drop", t, None, f"t{t}:drop")
        self.wager = ledger.account("wager", t, None, f"t{t}:wager")  # one for the table: nothing reads it
        self.sessions, self.players = {}, {}
        for number in range(1, SEATS_MAX + 1):
            seat = ids.take("tables_seat")
            w.row("tables_seat", seat, t, number)
            self.sessions[number] = session = ids.take("tables_seatsession")
            w.row("tables_seatsession", session, seat, "", BUY_IN, datetime.now(UTC), user, None)
            self.players[number] = ledger.account("player", t, session, f"t{t}:player:{session}")
        self.sim = SimShoe(DECKS, random.Random(f"{SEED}:{t}"), burn=burn)
        self.shoe, self.cards_out = None, {}
        self.card_chain = self.decision_chain = 0

    def deal(self, count: int, first_day: date, days: int) -> None:
        step = timedelta(seconds=days * 86400 / max(count, 1))
        moment = datetime.combine(first_day, datetime.min.time(), tzinfo=UTC) + timedelta(hours=7)
        day = None
        for number in range(1, count + 1):
            moment += step
            if moment.date() != day:
                day = moment.date()
                self.buy_ins(moment)
            self.hand(number, moment)
        for shoe, out in self.cards_out.items():
            self.w.row("tables_shoe_close", shoe, out)

    def buy_ins(self, moment: datetime) -> None:
        for seat in range(1, SEATS_MAX + 1):
            self.ledger.post(
                self.t,
                "buy_in",
                moment,
                None,
                [
                    (self.patrons, -BUY_IN, "buy-in cash"),
                    (self.drop, BUY_IN, "buy-in cash"),
                    (self.tray, -BUY_IN, "buy-in chips"),
                    (self.players[seat], BUY_IN, "buy-in chips"),
                ],
            )

    def hand(self, number: int, moment: datetime) -> None:
        shuffles = self.sim.shuffles
        self.sim.begin_hand()
        if self.shoe is None or self.sim.shuffles != shuffles:
            self.new_shoe(moment)
        seats = sorted(self.rng.sample(range(1, SEATS_MAX + 1), self.rng.randint(1, SEATS_MAX)))
        bets = {seat: self.rng.choice(BETS) for seat in seats}
        events, deltas = play_always_hit([bets[s] // 10 for s in seats], self.sim.draw)
        self.sim.end_hand()
        hand = self.ids.take("tables_hand")
        self.events(hand, seats, events, moment)
        house = -sum(deltas)
        results = {str(s): d for s, d in zip(seats, deltas, strict=True)}
        settlement = {
            "deltas": {**results, "house": house},
            "entries": [],
            "carry_out": 0,
            "shortfalls": {},
            "result": {},
        }
        committed = {str(s): bets[s] for s in seats}
        self.w.row(
            "tables_hand",
            hand,
            self.t,
            self.shoe,
            number,
            "rocket",
            {
                "game": "rocket",
                "seats": seats,
                "stakes": committed,
                "options": {"decks": DECKS},
                "carry": 0,
                "state": {},
                "shoe": {"decks": DECKS, "remaining": [0] + [DECKS * r for r in range(1, 11)], "unseen": 0},
            },
            {str(s): self.sessions[s] for s in seats},
            committed,
            len(events) + 1,
            "settled",
            settlement,
            moment,
            self.user,
            moment,
        )
        self.money(hand, seats, bets, deltas, house, moment)

    def events(self, hand: int, seats: list[int], events: list[tuple], moment: datetime) -> None:
        for seq, event in enumerate(events, start=1):
            if event[0] == "card":
                _, receiver, index, rank, why = event
                self.card(hand, seq, receiver, seats[index - 1] if index else None, rank, why, moment)
            else:
                self.decision_chain += 1
                self.w.row(
                    "tables_decision",
                    self.ids.take("tables_decision"),
                    self.t,
                    self.decision_chain,
                    "",
                    "",
                    hand,
                    seq,
                    seats[event[1] - 1],
                    ["hit"],
                    self.user,
                    "",
                    moment,
                    f"bench-{hand}-{seq}",
                )

    def card(self, hand, seq, receiver, seat, rank, why, moment) -> None:
        self.card_chain += 1
        self.cards_out[self.shoe] += 1
        self.w.row(
            "tables_cardevent",
            self.ids.take("tables_cardevent"),
            self.t,
            self.card_chain,
            "",
            "",
            self.shoe,
            self.cards_out[self.shoe],
            rank,
            receiver,
            seat,
            why,
            hand,
            seq,
            self.user,
            "",
            moment,
        )

    def money(self, hand, seats, bets, deltas, house, moment) -> None:
        players, wager = self.players, self.wager
        bet_lines = [line for s in seats for line in ((players[s], -bets[s], "bet"), (wager, bets[s], "bet"))]
        self.ledger.post(self.t, "bet", moment, hand, bet_lines)
        lines = [
            line
            for s in seats
            for line in ((wager, -bets[s], "bet returned"), (players[s], bets[s], "bet returned"))
        ]
        lines += [(players[s], d, "result") for s, d in zip(seats, deltas, strict=True)]
        lines.append((self.tray, house, "result"))
        self.ledger.post(self.t, "settlement", moment, hand, lines)

    def new_shoe(self, moment: datetime) -> None:
        self.shoe = self.ids.take("tables_shoe")
        self.cards_out[self.shoe] = 0
        self.w.row(
            "tables_shoe",
            self.shoe,
            self.t,
            DECKS,
            "physical",
            self.sim.burn,
            "0.80",
            "retired",
            moment,
            round(0.8 * 55 * DECKS),
            0,
            False,
            "",
            None,
            "",
            moment,
        )
        for _ in range(self.sim.burn):
            self.card(None, None, "burn", None, None, "", moment)


CHAIN = "chain_id, position, prev_hash, hash"
COLUMNS = {
    "tables_table": "id, pit_id, name, game, min_bet, max_bet, chip_unit_cents, options, "
    "payout_approval_threshold",
    "ledger_chain": "id, name, length, head",
    "ledger_account": "id, kind, casino_id, table_id, ref, code, label, floor, balance",
    "tables_seat": "id, table_id, number",
    "tables_seatsession": "id, seat_id, player_name, buy_in, started_at, started_by_id, ended_at",
    "tables_shoe": "id, table_id, decks, kind, burn, penetration, state, created_at, cut_position, "
    'cards_out, cut_card_out, commitment, "order", salt, retired_at',
    "tables_hand": "id, table_id, shoe_id, number, game, setup, sessions, committed, "
    "seq, status, settlement, started_at, started_by_id, settled_at",
    "tables_cardevent": f"id, {CHAIN}, shoe_id, shoe_position, rank, receiver, seat, why, hand_id, seq, "
    "keyed_by_id, device, at",
    "tables_decision": f"id, {CHAIN}, hand_id, seq, seat, action, by_id, device, at, key",
    "ledger_transaction": f"{CHAIN}, id, kind, memo, casino_id, table_id, hand_id, created_at, "
    "created_by_id, reverses_id, reason, approved_by_id",
    "ledger_posting": "id, transaction_id, account_id, amount, reason",
}


def _copy(connection, w: Writer) -> None:
    with connection.cursor() as django_cursor:
        cursor = django_cursor.cursor
        for table in COLUMNS:
            cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER ALL")
        for table, columns in COLUMNS.items():
            buffer = w.buffers.get(table)
            if buffer is None:
                continue
            with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                copy.write(buffer.getvalue())
        closes = w.buffers.get("tables_shoe_close")
        if closes:
            cursor.execute("CREATE TEMP TABLE shoe_close (id bigint, cards_out int)")
            with cursor.copy("COPY shoe_close FROM STDIN") as copy:
                copy.write(closes.getvalue())
            cursor.execute(
                "UPDATE tables_shoe s SET cards_out = c.cards_out FROM shoe_close c WHERE s.id = c.id"
            )
        for table in COLUMNS:
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"(SELECT COALESCE(MAX(id), 1) FROM {table}))"
                if table not in ("ledger_transaction",)
                else "SELECT 1"
            )
        cursor.execute("ANALYZE")


# -- timing --------------------------------------------------------------------------------------------

BARE_HOUSE_EDGE = """
SELECT h.table_id, ((h.settled_at - interval '%(hour)s hours') AT TIME ZONE %%(tz)s)::date AS day,
       s.decks, COALESCE(h.setup #>> '{options,start}', 'left') AS start, s.burn, s.penetration,
       COUNT(*), SUM(c.handle), SUM(c.bets), SUM(c.bets_sq), SUM(c.handle * c.handle),
       SUM(COALESCE((h.settlement -> 'deltas' ->> 'house')::bigint, 0)),
       SUM(COALESCE((h.settlement -> 'deltas' ->> 'carry')::bigint, 0)),
       SUM((SELECT COALESCE(SUM(value::bigint), 0) FROM jsonb_each_text(h.settlement -> 'deltas')
            WHERE key ~ '^[0-9]+$')),
       SUM((SELECT COALESCE(SUM((e ->> 1)::bigint), 0) FROM jsonb_array_elements(h.settlement -> 'entries') e
            WHERE e ->> 0 = 'pot' AND (e ->> 1)::bigint > 0)),
       MIN(h.settled_at), MAX(h.settled_at)
FROM tables_hand h
JOIN tables_shoe s ON s.id = h.shoe_id
CROSS JOIN LATERAL (SELECT COALESCE(SUM(v), 0) AS handle, COUNT(*) AS bets, COALESCE(SUM(v * v), 0) AS bets_sq
                    FROM (SELECT value::bigint AS v FROM jsonb_each_text(h.committed)) x) c
WHERE h.status = 'settled' AND h.settled_at >= %%(start)s AND h.settled_at < %%(end)s
GROUP BY 1, 2, 3, 4, 5, 6
"""

BARE_HANDLE_WIN = """
SELECT h.table_id, SUM(c.handle), SUM(COALESCE((h.settlement -> 'deltas' ->> 'house')::bigint, 0))
FROM tables_hand h
CROSS JOIN LATERAL (SELECT SUM(value::bigint) AS handle FROM jsonb_each_text(h.committed)) c
WHERE h.status = 'settled' AND h.settled_at >= %(start)s AND h.settled_at < %(end)s
GROUP BY 1
"""

BARE_LEDGER = """
SELECT a.table_id, ((t.created_at - interval '%(hour)s hours') AT TIME ZONE %%(tz)s)::date,
       SUM(p.amount) FILTER (WHERE a.kind = 'drop' AND t.kind <> 'drop_count'),
       SUM(p.amount) FILTER (WHERE t.hand_id IS NOT NULL AND a.kind IN ('tray', 'rake')),
       SUM(p.amount) FILTER (WHERE a.kind = 'rake')
FROM ledger_posting p JOIN ledger_account a ON a.id = p.account_id
JOIN ledger_transaction t ON t.id = p.transaction_id
WHERE a.casino_id = %%(casino)s AND a.kind IN ('drop', 'tray', 'rake')
  AND t.created_at >= %%(start)s AND t.created_at < %%(end)s
GROUP BY 1, 2
"""

REPEATS = 3  # best of three: the machine is shared


def best(function) -> tuple[float, object]:
    times, value = [], None
    for _ in range(REPEATS):
        started = time.perf_counter()
        value = function()
        times.append(time.perf_counter() - started)
    return min(times), value


def bare(sql: str, params: dict):
    from django.db import connection

    def query():
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()

    return query


def fresh_report(kind: str, params: dict):
    """Run the report from scratch each time (its record is keyed: delete it first)."""
    from reports.models import Investigation, Report
    from reports.services import report_request
    from reports.services.runs import report_key, report_params

    def run():
        old = Report.objects.filter(key=report_key(kind, report_params(kind=kind, params=params)))
        Investigation.objects.filter(report__in=old).delete()
        old.delete()
        report = report_request(kind=kind, params=params)
        report.refresh_from_db()
        assert report.status == "done", report.error
        return report

    return run


def _print_seed(seeded: dict) -> None:
    rows = seeded["rows"]
    print(
        f"seeded: {rows['tables_hand']:,} hands, {rows['tables_cardevent']:,} card events, "
        f"{rows['tables_decision']:,} decisions, {rows['ledger_transaction']:,} transactions, "
        f"{rows['ledger_posting']:,} postings; "
        f"dealt in {seeded['deal_s']:.0f} s, copied in {seeded['copy_s']:.0f} s"
    )


def measure(hands: int, args) -> None:
    from django.conf import settings
    from django.utils import timezone

    from casino.celery import app
    from reports.periods import closing_hour, days_bounds, gaming_day
    from reports.selectors import hand_totals, settled_hands
    from reports.services import RocketConfig, theoretical_edge
    from tables.models import Hand, Table

    app.conf.task_always_eager = True  # the report runs here, timed, whatever broker is configured
    print(f"\n== {hands:,} hands, {args.tables} tables, {args.days} days ==")
    if not args.database:
        _print_seed(seed(hands, args.tables, args.days))
    started = time.perf_counter()
    for burn in CONFIGS:
        theoretical_edge(config=RocketConfig(decks=DECKS, burn=burn))
    print(
        f"theoretical edges ({len(CONFIGS)} configurations, {settings.REPORTS_EDGE_HANDS:,} hands each), "
        f"computed once and cached: {time.perf_counter() - started:.1f} s"
    )

    first = gaming_day(Hand.objects.order_by("settled_at").first().settled_at)
    last = gaming_day(Hand.objects.order_by("-settled_at").first().settled_at)
    start, end = days_bounds(first, last)
    casino = Table.objects.first().pit.casino_id
    sql_params = {"start": start, "end": end, "tz": str(timezone.get_current_timezone()), "casino": casino}
    hour = {"hour": closing_hour()}
    span = {"date_from": first.isoformat(), "date_to": last.isoformat()}

    lines = []
    report_s, report = best(fresh_report("house_edge", {**span, "group": "table"}))
    selector_s, _ = best(lambda: hand_totals(settled_hands(start=start, end=end), group="table"))
    bare_s, bare_rows = best(bare(BARE_HOUSE_EDGE % hour, sql_params))
    minimal_s, _ = best(bare(BARE_HANDLE_WIN, sql_params))
    assert sum(r[7] for r in bare_rows) == report.result["totals"]["handle"], "bare SQL and report disagree"
    lines += [
        ("house edge, every table, whole period (report)", report_s),
        ("  its aggregate query alone (ORM)", selector_s),
        ("  bare SQL, the same totals", bare_s),
        ("  bare SQL, handle and win per table only", minimal_s),
    ]
    print(f"house edge: ratio report / bare SQL = {report_s / bare_s:.2f}")

    stats_s, _ = best(fresh_report("statistics", {"casino": casino, "date": last.isoformat()}))
    ledger_s, _ = best(bare(BARE_LEDGER % hour, sql_params))
    lines += [
        ("statistics: day, month, year, variance rules (report)", stats_s),
        ("  bare SQL, drop and win per table and day", ledger_s),
        ("  bare SQL, the hands' totals (as above)", bare_s),
    ]

    table, busy = Table.objects.order_by("pk").first(), last - timedelta(days=1)  # a whole gaming day
    recon_s, recon = best(
        fresh_report(
            "reconciliation", {"table": table.pk, "date_from": busy.isoformat(), "date_to": busy.isoformat()}
        )
    )
    lines.append(
        (f"reconciliation, one table, one day ({recon.result['hands']['replayed']} hands replayed)", recon_s)
    )
    for label, seconds in lines:
        print(f"{label:<66} {seconds:8.2f} s")


def main() -> None:
    args = parse()
    sizes = [int(n) for n in args.hands.split(",")]
    if args.database:
        setup_django(database_url(args.server, args.database))
        from tables.models import Hand

        measure(Hand.objects.count(), args)
        return
    for hands in sizes:
        name = f"reports_bench_{os.getpid()}_{hands}"
        admin_sql(args.server, f"CREATE DATABASE {name}")
        try:
            if "django" not in sys.modules:
                setup_django(database_url(args.server, name))
            else:
                switch_database(name)
            measure(hands, args)
        finally:
            from django.db import connections

            connections.close_all()
            if not args.keep:
                admin_sql(args.server, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def switch_database(name: str) -> None:
    from django.core.management import call_command
    from django.db import connections

    connections.close_all()
    connections["default"].settings_dict["NAME"] = name
    call_command("migrate", verbosity=0)


if __name__ == "__main__":
    main()
