"""Random valid and invalid operations at two tables; the books are checked after every step.

A hypothesis state machine (`TableMachine`) drives the table services as a floor would: players sit
down, buy in and cash out; shoes are shuffled and retired; hands start with bets, take cards and
decisions and settle; a payout above the table's threshold waits for the pit, which approves or
rejects it; dealers ask for voids, fills, credits and corrections. Along the way it does what the
services must refuse: a stale step number, an illegal move, a rank the shoe cannot give, a bet off
the limits, a taken seat, a bad amount, a pit manager off shift or a wrong password, a request
decided twice, an idempotency key reused for another request. It plays a Rocket table dealt from a
system-shuffled shoe and a Blackstone table dealt from a physical shoe whose ranks are keyed in.

After every step the invariants say:
- every ledger transaction has two or more postings summing to zero, all balances sum to zero, and
  no tray, player, wager, pot, carry or rake account is below its floor;
- the hash chains verify: every 8th step `ledger_verify` (what `manage.py verify_ledger` runs: every
  chain from its start, cached balances and heads, sums, the database protection) finds nothing,
  and after every step the records added since the last walk link and hash right; cached balances
  equal the postings; every settled hand replays to what the ledger posted for it
  (`hand_replay_check`);
- a refused operation wrote nothing: no row added, no hand, shoe, seat, request, slip, account or
  chain changed. The only rows a refusal keeps are about the refusal itself, as the services
  document: the `Incident` of a rank the shoe cannot hold, the audit event of a refused signature;
- a retried request (same key, same request) got the first answer and wrote nothing;
- chips are conserved, against the machine's own tally of what it did: at each table the tray, the
  players' chips, wagers, pots, carry and rake hold what came from the cage (opening and fills, less
  credits) less what players cashed out; the drop box holds the buy-ins; the cage and the patrons
  hold the opposite;
- an open hand's wagers are its bets or antes and its shoe is in play; a closed hand holds no wager
  and no pot; a player who cashed out has no chips left at the table.

Each example runs in a savepoint of the test's transaction, rolled back at the end (the append-only
tables refuse a delete, not a rollback), so every example starts from an empty floor. On PostgreSQL
the deferred balance triggers are fired after every step, as a commit would fire them.

The machine also checks each request against its own reading of the rules: what must be refused is
refused (a stale screen with a Conflict), and what is valid goes through, except where the floor may
refuse it (a tray short of chips to pay a settlement; an approval whose chips have moved on since).

CI runs 25 derandomized examples of up to 60 steps (about 25 s on SQLite, 50 s on PostgreSQL), so a
failure reproduces. For a longer hunt, random and remembered in `.hypothesis/`, set the number of
examples (and steps):

    STATEFUL_EXAMPLES=500 STATEFUL_STEPS=80 .venv/bin/python -m pytest tests/tables/test_stateful.py
"""

import copy
import itertools
import os
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import connection, transaction
from django.db.models import Count, F, Sum
from django.db.models.functions import Coalesce
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    multiple,
    precondition,
    rule,
    run_state_machine_as_test,
)

from casino.errors import Conflict, DomainError
from casino.models import AuditEvent, User
from casino.roles import DEALER, PIT_MANAGER
from ledger.audit import ledger_verify
from ledger.chain import chained_models, record_hash
from ledger.models import ZERO_HASH, Account, Chain, Posting, Seal, Transaction
from ledger.services import LedgerError, OverdrawError
from tables.games import Action, CardDue, DecisionDue, IllegalAction
from tables.models import (
    ApprovalRequest,
    CardEvent,
    Casino,
    Decision,
    Game,
    Hand,
    IdempotentRequest,
    Incident,
    Pit,
    Seat,
    SeatSession,
    Shift,
    Shoe,
    Signature,
    Slip,
    SlipSeries,
    Table,
)
from tables.review import hand_replay_check
from tables.selectors import open_shifts, user_can_deal, user_can_supervise
from tables.services import (
    RankRefused,
    SignatureRefused,
    approval_decide,
    correction_request,
    credit_request,
    fill_request,
    hand_decide,
    hand_record_card,
    hand_settle,
    hand_start,
    hand_void_request,
    seat_buy_in,
    seat_close,
    seat_open,
    shift_end,
    shift_rotate,
    shift_start,
    shoe_retire,
    shoe_start,
    tray_fill,
)
from tables.services import shoes as shoe_service
from tables.services.engine import engine_for
from tables.services.seating import SEATS_PER_GAME
from tests.floor import new_table

from .conftest import open_with_count, person

pytestmark = pytest.mark.django_db

Kind = Account.Kind
CHIPS = (Kind.TRAY, Kind.PLAYER, Kind.WAGER, Kind.POT, Kind.CARRY, Kind.RAKE)  # chips, never below 0
OPENING = {"rocket": 3000, "blackstone": 1000}
ANTE = 5  # Blackstone's default
DEALERS, PIT_MANAGERS = ("dana", "olga"), ("pete", "paula")
STAFF = DEALERS + PIT_MANAGERS

TABLE = st.sampled_from(sorted(OPENING))
AMOUNTS = st.sampled_from([10, 20, 50, 100, 100, 200, 300, 500, 800, 0, -50, 25.5, True, "100"])
# Most requests are valid; now and then one thing about them is spoiled.
SPOIL = st.sampled_from([None] * 6 + ["decks", "decks_0", "game", "kind", "burn", "burn_-1"])
REASONS = st.sampled_from(["Two cards came out together.", "Card flashed.", "Misdeal.", "  "])
DENOMINATIONS = st.sampled_from(
    [{"25": 20}, {"5": 40, "1": 10}, {"100": 10}, {}, {"5": 0}, {"5": -1}, {"x": 3}, {"25": 2.5}]
)
BAD_RANKS = (0, 11, "7", None)
MOSTLY = st.sampled_from([True, True, True, False])  # the right password, a reason given
BLUNDERS = st.sampled_from([None] * 4 + ["bad_card", "odd_decision", "stale_screen"])
ODD_ACTIONS = [("hit",), ("fold",), ("take", 1), ("take", 2), ("take", 0), ("take", 99), ("take", "2"),
               ("take",), ("fold", 1), ("hit", 1), ("lock",), ("dance",), ()]

# What dealers ask the pit to reverse (a cash-out: to correct to the chips the player really took)
CORRECTED = ("buy_in", "fill", "credit", "bet", "cash_out", "correction")
TAKEN = [0, 10, 50, 100, 300, 1000, None, -5, 2.5, True]  # the chips a player really left with, or nonsense
FULL_VERIFY_EVERY = 8  # steps; the records added in between are walked after every step

# What a refusal keeps on file about itself (documented in the services).
KEPT_ON_REFUSAL = {RankRefused: "tables.Incident", SignatureRefused: "casino.AuditEvent"}
WATCHED = [Table, Seat, SeatSession, Shoe, Hand, CardEvent, Decision, IdempotentRequest, ApprovalRequest,
           Slip, SlipSeries, Signature, Shift, Incident, AuditEvent, Account, Chain, Transaction, Posting]


# Reading the database


def snapshot() -> dict:
    """Row counts, and every field the services change in place."""
    return {
        "rows": row_counts(),
        "hands": list(Hand.objects.order_by("pk").values_list("pk", "seq", "status", "settlement")),
        "shoes": list(Shoe.objects.order_by("pk").values_list("pk", "state", "cards_out", "cut_card_out")),
        "sessions": list(SeatSession.objects.order_by("pk").values_list("pk", "ended_at")),
        "requests": list(ApprovalRequest.objects.order_by("pk").values_list("pk", "status", "decided_by")),
        "slips": list(Slip.objects.order_by("pk").values_list("pk", "status", "transaction")),
        "accounts": list(Account.objects.order_by("pk").values_list("pk", "balance")),
        "chains": list(Chain.objects.order_by("pk").values_list("name", "length", "head")),
        "shifts": list(Shift.objects.order_by("pk").values_list("pk", "ended_at")),
        "keys": list(IdempotentRequest.objects.order_by("pk").values_list("key", "response")),
    }


def sealed_once_more(chains: list) -> list:
    """`chains` after a refused rank's incident was sealed: its table's chain one record longer,
    the incident's seal at its head."""
    seal = Seal.objects.select_related("chain").latest("pk")
    assert seal.model == "tables.Incident", seal
    return [(name, length + 1, seal.hash) if name == seal.chain.name else (name, length, head)
            for name, length, head in chains]


def row_counts() -> dict[str, int]:
    """Every watched table's row count, in one query: this runs before every request."""
    q = connection.ops.quote_name
    counts = ", ".join(f"(SELECT COUNT(*) FROM {q(model._meta.db_table)})" for model in WATCHED)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {counts}")
        return dict(zip((model._meta.label for model in WATCHED), cursor.fetchone(), strict=True))


def balance(kind: str, *, table: Table, ref=None) -> int:
    """Read only (`account_get` would create the account): one not created yet holds nothing."""
    balances = Account.objects.filter(kind=kind, table=table, ref=ref).values_list("balance", flat=True)
    return balances.first() or 0


def cashed(cash_out: Transaction) -> int:
    """The chips a cash-out took from the seat."""
    return -cash_out.postings.get(account__kind=Kind.PLAYER).amount


def units(amount: Any) -> bool:
    return isinstance(amount, int) and not isinstance(amount, bool) and amount > 0


def pending_requests():
    return ApprovalRequest.objects.filter(status=ApprovalRequest.Status.PENDING)


def pending_void(hand: Hand) -> bool:
    return pending_requests().filter(hand=hand, kind=ApprovalRequest.Kind.VOID).exists()


def settled_void_refused(hand: Hand, asked_by=None) -> bool:
    """The machine's reading of docs/pit.md "Voiding a settled hand": asked by a pit manager on shift
    in its pit, between hands, for a game but Rocket while no hand after it stands, and while every
    player of it is seated."""
    if asked_by is not None and not user_can_supervise(asked_by, hand.table):
        return True
    later = hand.table.hands.filter(number__gt=hand.number).exclude(status=Hand.Status.VOIDED)
    if later.filter(status__in=Hand.OPEN).exists() or (hand.game != Game.ROCKET and later.exists()):
        return True
    return SeatSession.objects.filter(pk__in=hand.sessions.values()).exclude(ended_at=None).exists()


def fire_deferred_checks() -> None:
    """PostgreSQL checks each transaction's balance at commit; the test never commits, so ask now."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")


@dataclass
class Call:
    """A request the services accepted, kept to be retried or to have its key reused."""

    service: Any
    kwargs: dict
    answer: Any

    def __repr__(self):
        return f"Call({self.service.__name__}, key={self.kwargs['key']!r})"


@dataclass
class Pending:
    """What the invariant checks about the last step: it must have written nothing."""

    before: dict
    error: DomainError | None = None


def answer_of(result):
    return getattr(result, "pk", result)


class TableMachine(RuleBasedStateMachine):
    sessions = Bundle("sessions")
    hands = Bundle("hands")

    def __init__(self):
        super().__init__()
        self.people = {user.username: user for user in User.objects.filter(username__in=STAFF)}
        self.keys = itertools.count(1)
        self.calls: list[Call] = []
        self.pending: Pending | None = None
        self.failures = Counter()  # refused signatures per username: the lockout counts them
        # What the machine itself moved, per table (tables are named by their game).
        self.cage_out, self.cash_in, self.chips_out = Counter(), Counter(), Counter()
        self.replayed, self.walked, self.steps = {}, {}, 0
        self.savepoint = transaction.savepoint()
        try:
            self.pit = Pit.objects.create(casino=Casino.objects.create(name="Stateful"), name="Pit 1")
            self.tables = {  # a low payout threshold, so that payouts often wait for the pit
                "rocket": self.open(Game.ROCKET, min_bet=10, max_bet=500, payout_approval_threshold=20),
                "blackstone": self.open(Game.BLACKSTONE, min_bet=1, max_bet=100),
            }
        except BaseException:  # hypothesis calls teardown only once the machine exists
            transaction.savepoint_rollback(self.savepoint)
            raise

    def open(self, game: str, **fields) -> Table:
        table = new_table(pit=self.pit, name=game.title(), game=game, **fields)
        tray_fill(table=table, amount=OPENING[game], by=self.people["pete"], key=self.key())
        self.cage_out[game] += OPENING[game]
        open_with_count(table)  # a closed table seats and deals nobody
        return table

    def teardown(self):
        transaction.savepoint_rollback(self.savepoint)

    def key(self) -> str:
        return f"stateful-{next(self.keys)}"

    # Running a request and saying what must come of it

    def call(self, service, **kwargs):
        kwargs["key"] = self.key()
        result = service(**kwargs)
        self.calls.append(Call(service, kwargs, answer_of(result)))
        return result

    def attempt(self, service, *, refused: bool | None, tolerate=DomainError, must=DomainError, **kwargs):
        """Call `service`. `refused`: True, it must be refused (with a `must`); False, it must not be;
        None, either, and a refusal must be a `tolerate` (the tray short of chips, say)."""
        before = None if refused is False else snapshot()  # a valid request refused fails anyway
        try:
            result = self.call(service, **kwargs)
        except DomainError as error:
            if isinstance(error, SignatureRefused):
                self.failures[error.username] += 1
            assert refused is not False, f"{service.__name__} refused a valid request: {error}"
            self.pending = Pending(before, error)
            assert isinstance(error, must if refused else tolerate), f"{service.__name__}: {error!r}"
            return None
        self.pending = Pending(before) if refused else None
        assert not refused, f"{service.__name__} accepted what it must refuse: {kwargs}"
        return result

    # Reading the floor

    def table_of(self, name: str) -> Table:
        return Table.objects.get(pk=self.tables[name].pk)

    def seated(self, table: Table) -> dict[int, SeatSession]:
        sessions = SeatSession.objects.filter(seat__table=table, ended_at=None).select_related("seat")
        return {session.seat.number: session for session in sessions}

    def chips(self, session: SeatSession) -> int:
        return balance(Kind.PLAYER, table=session.seat.table, ref=session.pk)

    def open_hand(self, table: Table) -> Hand | None:
        return Hand.objects.filter(table=table, status__in=Hand.OPEN).first()

    def shoe_in_play(self, table: Table) -> Shoe | None:
        return table.shoes.filter(state=Shoe.State.IN_PLAY).first()

    def locked_out(self, username: str) -> bool:
        return self.failures[username] >= django_settings.AXES_FAILURE_LIMIT

    # Setting up each example

    @initialize(
        target=sessions,
        seed=st.integers(0, 2**32 - 1),
        rocket=st.lists(st.sampled_from([100, 300, 500]), min_size=1, max_size=3),
        blackstone=st.lists(st.sampled_from([20, 50, 100]), min_size=2, max_size=4),
    )
    def open_the_floor(self, seed, rocket, blackstone):
        """Shoes in play, staff on shift and a few players seated, so that hands start early."""
        shoe_service._system_random.seed(seed)
        pete = self.people["pete"]
        for name, buy_ins in {"rocket": rocket, "blackstone": blackstone}.items():
            table = self.tables[name]
            kind, decks = (Shoe.Kind.SYSTEM, 8) if name == "rocket" else (Shoe.Kind.PHYSICAL, 1)
            self.call(shoe_start, table=table, decks=decks, kind=kind, burn=5, by=pete)
            for number, buy_in in enumerate(buy_ins, start=1):
                self.call(seat_open, table=table, seat=number, buy_in=buy_in, by=self.people["dana"])
                self.cash_in[name] += buy_in
        shift_start(user=pete, pit=self.pit, by=pete)
        shift_start(user=self.people["dana"], table=self.tables["rocket"], by=pete)
        shift_start(user=self.people["olga"], table=self.tables["blackstone"], by=pete)
        shift_start(user=self.people["paula"], pit=self.pit, by=pete)
        return multiple(*SeatSession.objects.order_by("pk").values_list("pk", flat=True))

    # Shifts

    @rule(who=st.sampled_from(STAFF), where=st.sampled_from(["rocket", "blackstone", "pit", "off"]))
    def change_shift(self, who, where):
        """Anyone may be sent anywhere; the shift services refuse what the rules do not allow (a
        dealer in a pit, pete off shift moving a dealer), and only where they are lets them deal,
        sign or decide."""
        place = {"pit": self.pit} if where == "pit" else {"table": self.tables.get(where)}
        self.shift(who, **place)

    def shift(self, who, **place):
        """A dealer is moved by pete (rotated from table to table); a pit manager moves themself."""
        user = self.people[who]
        by = user if who in PIT_MANAGERS else self.people["pete"]
        current = open_shifts(user).first()
        if current is not None and current.table_id and place.get("table"):
            self.attempt(shift_rotate, refused=None, shift=current, table=place["table"], by=by)
            return
        if current is not None:
            self.attempt(shift_end, refused=None, shift=current, by=by)
        if any(place.values()):
            self.attempt(shift_start, refused=None, user=user, by=by, **place)

    # Seats

    @rule(target=sessions, name=TABLE, data=st.data(), buy_in=AMOUNTS)
    def seat_player(self, name, data, buy_in):
        table = self.table_of(name)
        seats = SEATS_PER_GAME[table.game]
        free = [n for n in range(1, seats + 1) if n not in self.seated(table)]
        number = data.draw(st.sampled_from(free * 3 + [0, seats + 1, 1]), label="seat")
        refused = (
            number not in free
            or not units(buy_in)
            or buy_in > balance(Kind.TRAY, table=table)
        )
        session = self.attempt(
            seat_open, refused=refused, table=table, seat=number, buy_in=buy_in, by=self.people["dana"]
        )
        if session is None:
            return multiple()
        self.cash_in[name] += buy_in
        return session.pk

    @rule(session=sessions, amount=AMOUNTS)
    def buy_more(self, session, amount):
        session = SeatSession.objects.select_related("seat__table").get(pk=session)
        table = session.seat.table
        refused = (
            session.ended_at is not None
            or not units(amount)
            or amount > balance(Kind.TRAY, table=table)
        )
        if self.attempt(seat_buy_in, refused=refused, session=session, amount=amount, by=self.people["dana"]):
            self.cash_in[table.game] += amount

    @rule(target=sessions, session=consumes(sessions))
    def cash_out(self, session):
        """A player leaves (or, in the hand being played, is told to wait: the seat goes back)."""
        session = SeatSession.objects.select_related("seat__table").get(pk=session)
        hand = self.open_hand(session.seat.table)
        in_hand = hand is not None and str(session.seat.number) in hand.sessions
        chips = self.chips(session)
        refused = session.ended_at is not None or in_hand
        left = self.attempt(seat_close, refused=refused, session=session, by=self.people["dana"])
        if left:
            self.chips_out[session.seat.table.game] += chips
        return multiple() if left else session.pk

    # Shoes

    @rule(name=TABLE, decks=st.sampled_from([8, 8, 2, 1]), kind=st.sampled_from(Shoe.Kind.values),
          burn=st.sampled_from([0, 5, 10]), spoil=SPOIL, retire=st.sampled_from([False] * 3 + [True]))
    def shuffle(self, name, decks, kind, burn, spoil, retire):
        """Shuffle a new shoe (now and then with a bad setting), or retire the one in play."""
        table = self.table_of(name)
        if retire:
            return self.retire(table)
        decks = 1 if table.game != Game.ROCKET else decks
        decks = {"decks": 9, "decks_0": 0, "game": 2}.get(spoil, decks)
        kind = "magic" if spoil == "kind" else kind
        burn = {"burn": 11, "burn_-1": -1}.get(spoil, burn)
        refused = (
            self.open_hand(table) is not None
            or not 1 <= decks <= 8
            or (table.game != Game.ROCKET and decks != 1)
            or kind not in Shoe.Kind.values
            or not 0 <= burn <= 10
        )
        pete = self.people["pete"]
        self.attempt(
            shoe_start, refused=refused, table=table, decks=decks, kind=kind, burn=burn, reason="x", by=pete
        )

    def retire(self, table: Table):
        shoe = table.shoes.order_by("-pk").first()
        if shoe is not None:
            dealing = shoe.hands.filter(status__in=Hand.OPEN).exists()
            self.attempt(shoe_retire, refused=dealing, shoe=shoe, by=self.people["pete"])

    # Hands

    @rule(target=hands, name=TABLE, data=st.data(), spoil=SPOIL)
    def start_hand(self, name, data, spoil):
        table = self.table_of(name)
        seated = self.seated(table)
        if table.game == Game.ROCKET:
            bets, refused = self.draw_bets(table, seated, data, spoil)
        else:
            bets = {1: 5} if spoil else None
            refused = bets is not None or self.antes_refused(seated)
        shoe = self.shoe_in_play(table)
        refused = (
            refused
            or self.open_hand(table) is not None
            or shoe is None
            or shoe.cut_card_out
            or (table.game == Game.BLACKSTONE and shoe.hands.exists())
        )
        hand = self.attempt(hand_start, refused=refused, table=table, bets=bets, by=self.people["dana"])
        return multiple() if hand is None else hand.pk

    def draw_bets(self, table: Table, seated: dict, data, spoil) -> tuple[dict, bool]:
        """Bets for some of the seated players; a spoiled draw adds one off the limits or the chips."""
        seats = st.sets(st.sampled_from(sorted(seated)), min_size=1) if seated else st.just(set())
        bets = {}
        for seat in sorted(data.draw(seats, label="seats")):
            most = min(self.chips(seated[seat]), table.max_bet) // 10
            if most:
                bets[seat] = 10 * data.draw(st.integers(1, most), label=f"bet {seat}")
        if spoil:
            seat = data.draw(st.integers(1, 6), label="spoiled seat")
            off_limits = st.sampled_from([0, 5, 15, table.max_bet + 10, 10**6])
            bets[seat] = data.draw(off_limits, label="spoiled bet")
        refused = not bets or any(
            seat not in seated
            or bet % 10
            or not table.min_bet <= bet <= table.max_bet
            or bet > self.chips(seated[seat])
            for seat, bet in bets.items()
        )
        return bets, refused

    def antes_refused(self, seated: dict) -> bool:
        return not 2 <= len(seated) <= 8 or any(self.chips(s) < ANTE for s in seated.values())

    @rule(target=hands, name=TABLE, data=st.data(), steps=st.integers(1, 12), blunder=BLUNDERS)
    def carry_on(self, name, data, steps, blunder):
        """The dealer does what the table needs next, a few times over: a fresh shoe, a new hand, a
        card, a decision, the settlement. Then perhaps a blunder: a bad card, an odd decision, a
        stale screen."""
        hands_before = set(Hand.objects.values_list("pk", flat=True))
        for _ in range(steps):
            if self.pending is not None or not self.next_step(self.table_of(name), data):
                break  # refused (the invariants look at that step), or waiting for players or the pit
        hand = self.open_hand(self.tables[name])
        if blunder and self.pending is None and hand is not None and hand.status == Hand.Status.IN_PROGRESS:
            getattr(self, blunder)(hand, data)
        return multiple(*sorted(set(Hand.objects.values_list("pk", flat=True)) - hands_before))

    def next_step(self, table: Table, data) -> bool:
        hand = self.open_hand(table)
        if hand is None:
            shoe = self.shoe_in_play(table)
            if shoe is None or shoe.cut_card_out or (table.game == Game.BLACKSTONE and shoe.hands.exists()):
                self.fresh_shoe(table)
                return True
            return self.deal_in(table, data)
        if hand.status != Hand.Status.IN_PROGRESS or pending_void(hand):
            return False
        self.play_one(hand, data)
        return True

    def fresh_shoe(self, table: Table):
        decks, kind = (8, Shoe.Kind.SYSTEM) if table.game == Game.ROCKET else (1, Shoe.Kind.PHYSICAL)
        pete = self.people["pete"]
        self.attempt(shoe_start, refused=False, table=table, decks=decks, kind=kind, burn=5, by=pete)

    def deal_in(self, table: Table, data) -> bool:
        """Start a hand with legal bets, if the players in their seats can play one."""
        seated = self.seated(table)
        if table.game == Game.BLACKSTONE:
            bets = None
            if self.antes_refused(seated):
                return False
        else:
            able = sorted(seat for seat, session in seated.items() if self.chips(session) >= table.min_bet)
            if not able:
                return False
            bets = {}
            for seat in sorted(data.draw(st.sets(st.sampled_from(able), min_size=1), label="seats")):
                most = min(self.chips(seated[seat]), table.max_bet) // 10
                bets[seat] = 10 * data.draw(st.integers(1, most), label=f"bet {seat}")
        return bool(self.attempt(hand_start, refused=False, table=table, bets=bets, by=self.people["dana"]))

    def play_one(self, hand: Hand, data):
        game = engine_for(hand)
        if game.finished:
            self.settle_now(hand, False)
        elif isinstance(game.next, CardDue):
            rank, empty = self.next_card(hand, game, data)
            self.deal(hand, rank, refused=empty)
        else:
            self.act(hand, self.legal_decision(game.next, data), refused=False)

    def next_card(self, hand: Hand, game, data) -> tuple[int | None, bool | None]:
        """A rank the shoe can give (None: the system shoe's next card), and whether it is refused:
        a dry shoe is recycled from its discards, or refused when there are none (None: either)."""
        shoe = Shoe.objects.get(pk=hand.shoe_id)
        deck = shoe_service.shoe_deck(shoe)
        if not shoe_service.shoe_cards_left(shoe, deck):
            possible = [rank for rank in range(1, 11) if game.shoe.remaining[rank]]  # in the discards too
            keyed = shoe.kind == Shoe.Kind.PHYSICAL and possible
            return (data.draw(st.sampled_from(possible), label="rank") if keyed else None), None
        if shoe.kind == Shoe.Kind.SYSTEM:
            due = shoe_service.shoe_next_system_card(shoe, deck)
            return data.draw(st.sampled_from([None, due]), label="rank"), False
        possible = [rank for rank in range(1, 11) if game.shoe.remaining[rank]]
        return data.draw(st.sampled_from(possible), label="rank"), False

    def legal_decision(self, due: DecisionDue, data) -> tuple:
        move = data.draw(st.sampled_from(due.moves), label="move")
        if move == "take":  # a few cards at a time: the next takers must take as many
            most = min(due.max_take, due.min_take + 2)
            return ("take", data.draw(st.integers(due.min_take, most), label="k"))
        return (move,)

    def deal(self, hand: Hand, rank, *, refused: bool, seq_off: int = 0):
        self.attempt(
            hand_record_card,
            refused=refused,
            must=Conflict if seq_off else DomainError,
            hand=hand,
            rank=rank,
            by=self.people["dana"],
            device="tablet-1",
            expected_seq=hand.seq + seq_off,
        )

    def act(self, hand: Hand, action: tuple, *, refused: bool, seq_off: int = 0):
        self.attempt(
            hand_decide,
            refused=refused,
            must=Conflict if seq_off else DomainError,
            hand=hand,
            action=action,
            by=self.people["dana"],
            device="tablet-1",
            expected_seq=hand.seq + seq_off,
        )

    def settle_now(self, hand: Hand, refused: bool, seq_off: int = 0):
        self.attempt(
            hand_settle,
            refused=refused or None,  # valid, it may still be refused:
            tolerate=OverdrawError,  # the tray cannot pay, and the dealer asks for a fill
            must=Conflict if seq_off else DomainError,
            hand=hand,
            by=self.people["dana"],
            expected_seq=hand.seq + seq_off,
        )

    def bad_card(self, hand: Hand, data):
        """A card when none is due, a rank the shoe cannot give, or not the system shoe's next card."""
        game = engine_for(hand)
        shoe = Shoe.objects.get(pk=hand.shoe_id)
        deck = shoe_service.shoe_deck(shoe)
        if not shoe_service.shoe_cards_left(shoe, deck):
            wrong = [rank for rank in BAD_RANKS if rank is not None]  # the recycled deck is not known yet
        elif shoe.kind == Shoe.Kind.SYSTEM:
            due = shoe_service.shoe_next_system_card(shoe, deck)
            wrong = [rank for rank in range(1, 12) if rank != due]
        else:
            wrong = [rank for rank in range(1, 11) if not game.shoe.remaining[rank]] + list(BAD_RANKS)
        self.deal(hand, data.draw(st.sampled_from(wrong), label="rank"), refused=True)

    def odd_decision(self, hand: Hand, data):
        """Mostly illegal moves; the machine's reading of the rules says which are legal."""
        action = data.draw(st.sampled_from(ODD_ACTIONS), label="action")
        due = engine_for(hand).next
        self.act(hand, action, refused=pending_void(hand) or not legal(due, action))

    def stale_screen(self, hand: Hand, data):
        """The right step from a screen one step behind (or ahead): a Conflict."""
        off = data.draw(st.sampled_from([-1, 1, 5]), label="off")
        what = data.draw(st.sampled_from(["card", "decide", "settle"]), label="what")
        if what == "card":
            self.deal(hand, None, refused=True, seq_off=off)
        elif what == "decide":
            self.act(hand, ("fold",), refused=True, seq_off=off)
        else:
            self.settle_now(hand, True, seq_off=off)

    @rule(hand=hands)
    def settle_any(self, hand):
        """Settle a hand from anywhere in its life: unfinished, waiting, settled or voided."""
        hand = Hand.objects.get(pk=hand)
        refusable = hand.status != Hand.Status.IN_PROGRESS or pending_void(hand)
        self.settle_now(hand, refusable or not engine_for(hand).finished)

    # The pit

    @precondition(lambda self: Hand.objects.exists())
    @rule(data=st.data(), reason=REASONS, who=st.sampled_from(["dana", "pete"]))
    def ask_for_a_void(self, data, reason, who):
        """Mostly for a hand still open, above all one waiting for its payout; now and then a closed one
        (a settled hand is voided by the pit, docs/pit.md)."""
        hands = Hand.objects.order_by("pk")
        waiting = [*hands.filter(status=Hand.Status.AWAITING_APPROVAL)]
        hand = data.draw(st.sampled_from(waiting * 3 + [*hands.filter(status__in=Hand.OPEN)] * 2 + [*hands]))
        settled = hand.status == Hand.Status.SETTLED
        refused = (
            not reason.strip()
            or hand.status == Hand.Status.VOIDED
            or pending_void(hand)
            or (settled and settled_void_refused(hand, self.people[who]))
        )
        self.attempt(
            hand_void_request,
            refused=refused,
            hand=hand,
            by=self.people[who],
            reason=reason,
            expected_seq=hand.seq,
        )

    @rule(name=TABLE, kind=st.sampled_from(["fill", "credit"]), who=st.sampled_from(DEALERS),
          denominations=DENOMINATIONS, right=MOSTLY)
    def ask_for_chips(self, name, kind, who, denominations, right):
        table = self.table_of(name)
        dealer = self.people[who]
        refused = (
            not chip_count(denominations)
            or not right
            or not user_can_deal(dealer, table)
            or self.locked_out(who)
        )
        service = fill_request if kind == "fill" else credit_request
        self.attempt(
            service,
            refused=refused,
            table=table,
            denominations=denominations,
            by=dealer,
            secret=f"{who}-password" if right else "wrong",
        )

    @precondition(lambda self: pending_requests().filter(kind="correction").count() < 2)
    @rule(name=TABLE, data=st.data(), reason=REASONS)
    def ask_for_a_correction(self, name, data, reason):
        """Reverse a buy-in, fill, credit or bet keyed wrong (or a correction, or one reversed
        already). A couple at a time: more would crowd the queue and keep the hands waiting."""
        table = self.tables[name]
        candidates = Transaction.objects.filter(table=table, kind__in=CORRECTED).order_by("position")
        if not candidates.exists():
            return
        original = data.draw(st.sampled_from(list(candidates)), label="transaction")
        hand = Hand.objects.filter(pk=original.hand_id).first()
        cash_out = original.kind == Transaction.Kind.CASH_OUT
        booked = cashed(original) if cash_out else None
        amounts = [booked, *TAKEN] if cash_out else [None] * 9 + [100]  # now and then one it must refuse
        taken = data.draw(st.sampled_from(amounts), label="taken")
        refused = (
            not reason.strip()
            or original.kind == Transaction.Kind.CORRECTION
            or Transaction.objects.filter(reverses=original).exists()
            or hand is not None  # a hand's money is corrected by voiding the hand
            or (not cash_out and taken is not None)
            or (cash_out and (taken is None or not (units(taken) or taken == 0) or taken == booked))
        )
        dana = self.people["dana"]
        self.attempt(
            correction_request, refused=refused, transaction=original, by=dana, reason=reason, taken=taken
        )

    @precondition(lambda self: ApprovalRequest.objects.exists())
    @rule(data=st.data(), who=st.sampled_from(PIT_MANAGERS * 2 + ("dana",)), approve=st.booleans(),
          reason=st.sampled_from(["Seen on camera."] * 3 + [""]), right=MOSTLY)
    def decide_request(self, data, who, approve, reason, right):
        """Mostly a pending request, above all a hand's (a payout or a void; else a fill, credit or
        correction); now and then one decided already."""
        requests = ApprovalRequest.objects.select_related("table", "transaction").order_by("pk")
        pending = requests.filter(status=ApprovalRequest.Status.PENDING)
        hands, others = [*pending.exclude(hand=None)], [*pending.filter(hand=None)]
        request = data.draw(st.sampled_from(hands * 4 + others * 2 + [*requests]), label="request")
        decider = self.people[who]
        signs = approve and request.kind in ("fill", "credit")
        same_hand = pending_requests().filter(hand=request.hand_id).exclude(pk=request.pk)
        waits_on_another = approve and request.hand_id and same_hand.exists()
        settled = request.hand_id and request.hand.status == Hand.Status.SETTLED
        void_refused = approve and request.kind == "void" and settled and settled_void_refused(request.hand)
        refused = (
            request.status != ApprovalRequest.Status.PENDING
            or decider.pk == request.requested_by_id
            or not user_can_supervise(decider, request.table)
            or (not approve and not reason.strip())
            or (signs and (not right or self.locked_out(who)))
            or waits_on_another
            or void_refused
        )
        decided = self.attempt(
            approval_decide,
            refused=True if refused else (None if approve else False),  # an approval may still be refused:
            tolerate=LedgerError,  # chips that moved on since, which the tray or a player cannot give back
            request=request,
            by=decider,
            approve=approve,
            reason=reason,
            secret=f"{who}-password" if right else "wrong",
        )
        if decided is not None and approve:
            self.tally_approved(decided)

    def tally_approved(self, request: ApprovalRequest):
        name = request.table.game
        if request.kind == "fill":
            self.cage_out[name] += request.amount
        elif request.kind == "credit":
            self.cage_out[name] -= request.amount
        elif request.kind == "correction":
            self.tally_corrected(name, request.transaction)

    def tally_corrected(self, name: str, original: Transaction):
        """A buy-in undone takes its cash out of the drop box; a fill or credit undone, its chips
        back to or from the cage. A bet undone moves chips within the table."""
        postings = dict(original.postings.values_list("account__kind", "amount"))
        if original.kind == Transaction.Kind.BUY_IN:
            self.cash_in[name] -= postings[Kind.DROP]
        elif original.kind in (Transaction.Kind.FILL, Transaction.Kind.CREDIT):
            self.cage_out[name] += postings[Kind.CAGE]
        elif original.kind == Transaction.Kind.CASH_OUT:
            correction = Transaction.objects.get(reverses=original)
            self.chips_out[name] += correction.postings.filter(account__kind=Kind.PATRONS).aggregate(
                net=Sum("amount")
            )["net"]

    # Idempotency keys

    @precondition(lambda self: self.calls)
    @rule(data=st.data(), how=st.sampled_from(["again", "again", "changed", "other"]))
    def send_a_key_again(self, data, how):
        """An accepted request's key sent again by its sender: with the same request (a tablet on
        flaky Wi-Fi), it gets the first answer; with one field changed, or another request
        altogether, it is refused. Either way nothing is written. (Keys are per sender: the same
        key from someone else is another request, see test_hands.py.)"""
        earlier = data.draw(st.sampled_from(self.calls), label="call")
        before = snapshot()
        tweak = changed(earlier) if how == "changed" else None
        if how == "again":
            assert answer_of(earlier.service(**earlier.kwargs)) == earlier.answer
        else:
            with pytest.raises(DomainError, match="already used for a different request"):
                if tweak is None:
                    key = earlier.kwargs["key"]
                    tray_fill(table=self.tables["rocket"], amount=7777, by=earlier.kwargs["by"], key=key)
                else:
                    earlier.service(**{**earlier.kwargs, **tweak})
        self.pending = Pending(before)

    # Invariants

    @invariant()
    def every_transaction_balances(self):
        fire_deferred_checks()
        unbalanced = Transaction.objects.annotate(
            total=Coalesce(Sum("postings__amount"), 0), lines=Count("postings")
        ).exclude(total=0, lines__gte=2)
        assert not unbalanced.exists(), list(unbalanced.values_list("kind", "memo", "total"))
        # The cage and the patrons keep no cached balance: their postings count instead.
        cached = Account.objects.aggregate(total=Coalesce(Sum("balance"), 0))["total"]
        uncached = Posting.objects.filter(account__balance__isnull=True).aggregate(total=Sum("amount"))
        assert cached + (uncached["total"] or 0) == 0
        assert Posting.objects.aggregate(total=Coalesce(Sum("amount"), 0))["total"] == 0

    @invariant()
    def no_account_below_its_floor(self):
        assert not Account.objects.filter(kind__in=CHIPS, floor=None).exists()
        below = Account.objects.filter(balance__lt=F("floor"))
        assert not below.exists(), list(below.values_list("code", "balance"))

    @invariant()
    def the_ledger_verifies(self):
        """Every few steps `ledger_verify` walks every chain from its start; in between, the records
        added since are walked here (linked, hashed, the chain's head cached) and the cached balances
        are checked against the postings. Settled hands replay to what was posted."""
        self.steps += 1
        if self.steps % FULL_VERIFY_EVERY == 0:
            result = ledger_verify()
            assert result.clean, [str(finding) for finding in result.findings]
        for chain in Chain.objects.order_by("pk"):
            self.walk_new_records(chain)
        derived = Account.objects.filter(balance__isnull=False)  # the cage and the patrons keep none
        derived = derived.annotate(derived=Coalesce(Sum("postings__amount"), 0))
        wrong = derived.exclude(balance=F("derived"))
        assert not wrong.exists(), list(wrong.values_list("code", "balance", "derived"))
        self.replay_settled_hands()

    def walk_new_records(self, chain: Chain):
        position, head = self.walked.get(chain.pk, (0, ZERO_HASH))
        if (chain.length, chain.head) == (position, head):
            return
        new = [record for model in chained_models()
               for record in model.chain_queryset().filter(chain=chain, position__gt=position)]
        for record in sorted(new, key=lambda record: record.position):
            position += 1
            assert (record.position, record.prev_hash) == (position, head), f"{chain}: broken at {record!r}"
            head = record_hash(head, record.chain_content())
            assert record.hash == head, f"{chain}: {record!r} does not hash to what it holds"
        assert (chain.length, chain.head) == (position, head), f"{chain}: cached head is not its last record"
        self.walked[chain.pk] = (position, head)

    def replay_settled_hands(self):
        moved = dict(Transaction.objects.exclude(hand_id=None).order_by().values_list("hand_id").annotate(
            n=Count("pk")
        ))
        for hand in Hand.objects.filter(status=Hand.Status.SETTLED).select_related("shoe"):
            if self.replayed.get(hand.pk) != moved.get(hand.pk):  # replay only what changed
                check = hand_replay_check(hand)
                assert check["matches"] is True, (hand.number, check)
                self.replayed[hand.pk] = moved.get(hand.pk)

    @invariant()
    def a_refused_or_retried_request_wrote_nothing(self):
        if self.pending is None:
            return
        pending, self.pending = self.pending, None
        expected = copy.deepcopy(pending.before)
        for refusal, label in KEPT_ON_REFUSAL.items():
            if isinstance(pending.error, refusal):
                expected["rows"][label] += 1
        if isinstance(pending.error, RankRefused):
            expected["chains"] = sealed_once_more(expected["chains"])
        what = f"refused ({pending.error!r})" if pending.error else "a retry"
        assert snapshot() == expected, f"{what}, yet something was written"

    @invariant()
    def chips_are_conserved(self):
        held = Counter()
        # From the postings: the casino-wide accounts keep no cached balance.
        totals = Posting.objects.order_by().values_list("account__table", "account__kind").annotate(
            total=Sum("amount")
        )
        for table, kind, total in totals:
            held[table, Kind.TRAY if kind in CHIPS else kind] += total  # chips count alike anywhere
        for name, table in self.tables.items():
            assert held[table.pk, Kind.TRAY] == self.cage_out[name] - self.chips_out[name], name
            assert held[table.pk, Kind.DROP] == self.cash_in[name], name
        assert held[None, Kind.CAGE] == -sum(self.cage_out.values())
        assert held[None, Kind.PATRONS] == sum(self.chips_out.values()) - sum(self.cash_in.values())

    @invariant()
    def hands_and_seats_hold_what_they_should(self):
        wagers = dict(Account.objects.filter(kind=Kind.WAGER).values_list("ref", "balance"))
        for pk, number, status, committed, shoe in Hand.objects.values_list(
            "pk", "number", "status", "committed", "shoe__state"
        ):
            if status in Hand.OPEN:
                assert wagers.get(pk, 0) == sum(committed.values()), (number, status, wagers.get(pk))
                assert shoe == Shoe.State.IN_PLAY, f"hand {number} deals from a retired shoe"
            else:
                assert wagers.get(pk, 0) == 0, (number, status, wagers.get(pk))
        pots = Account.objects.filter(kind=Kind.POT).exclude(balance=0)
        assert not pots.exists(), list(pots.values_list("code", "balance"))
        left = SeatSession.objects.exclude(ended_at=None).values("pk")
        stranded = Account.objects.filter(kind=Kind.PLAYER, ref__in=left).exclude(balance=0)
        assert not stranded.exists(), list(stranded.values_list("code", "balance"))


def legal(due, action: tuple) -> bool:
    """The rules as the machine reads them: a move offered, and a count only for a take within bounds."""
    if not isinstance(due, DecisionDue):
        return False
    try:
        parsed = Action.parse(action)
    except IllegalAction:
        return False
    if parsed.move not in due.moves or parsed.card is not None:
        return False
    if parsed.move == "take":
        return units(parsed.count) and due.min_take <= parsed.count <= due.max_take
    return parsed.count is None


def chip_count(denominations: dict) -> int:
    """Units in a slip's count, or 0 when it is no count at all."""
    counts = denominations.items()
    if not all(str(value).isdigit() and int(value) > 0 and type(n) is int and n >= 0 for value, n in counts):
        return 0
    return sum(int(value) * n for value, n in counts)


def changed(call: Call) -> dict | None:
    """One field of an accepted request, changed (None when there is no field worth changing)."""
    kwargs, name = call.kwargs, call.service.__name__
    if "expected_seq" in kwargs:
        return {"expected_seq": kwargs["expected_seq"] + 1}
    tweaks = {
        "seat_open": lambda: {"buy_in": kwargs["buy_in"] + 1},
        "seat_buy_in": lambda: {"amount": kwargs["amount"] + 1},
        "shoe_start": lambda: {"burn": (kwargs["burn"] + 1) % 11},
        "hand_start": lambda: {"bets": {} if kwargs["bets"] else {1: 10}},
        "approval_decide": lambda: {"approve": not kwargs["approve"]},
        "fill_request": lambda: {"denominations": {"1": 1}},
        "credit_request": lambda: {"denominations": {"1": 1}},
        "correction_request": lambda: {"reason": kwargs["reason"] + " Again."},
    }
    return tweaks[name]() if name in tweaks else None


def test_random_operations_keep_the_books(db, monkeypatch):
    for name in DEALERS:
        person(name, DEALER)
    for name in PIT_MANAGERS:
        person(name, PIT_MANAGER)
    # Shoes shuffle with a seed each example draws instead of the OS's CSPRNG, so an example replays.
    monkeypatch.setattr(shoe_service, "_system_random", random.Random())
    hunting = "STATEFUL_EXAMPLES" in os.environ  # a long hunt: random, and remembers what it found
    run_state_machine_as_test(
        TableMachine,
        settings=settings(
            max_examples=int(os.environ.get("STATEFUL_EXAMPLES", 25)),
            stateful_step_count=int(os.environ.get("STATEFUL_STEPS", 60)),
            deadline=None,
            derandomize=not hunting,
            suppress_health_check=[HealthCheck.too_slow],
        ),
    )
