"""The demo's full gaming day, for the master game report: a fifth table, Rocket 2, opened, played
and closed today through the services, so /reports/ shows a table's day by the formula from
`make run` (its drop shows "not counted yet" until the soft count has counted its box).

dana is rotated from Rocket 1 to deal the day and back again; pete witnesses the counts, pam
approves the fill dana asks for. Seeded once: skipped when Rocket 2 has a closing count.

The two players are carded demo players (`casino.demo.DEMO_PLAYERS`), and dana runs a rating slip
for each through the slip services: Alice Martin's covers every hand; Bruno Keller's is paused for
the third hand and resumed after it, so the pit's player pages show slips whose figures differ from
the visit's. Everything happens at the seed's instant, so the slips' time played is nil.
"""

import time

from ledger.models import Account
from ledger.services import account_get
from reports.services.par_sheet import par_sheet_compute
from tables.games import CardDue
from tables.models import POINTS_GAMES, Game, Pit, RatingSlip, SeatSession, Shift, Table, TableCount
from tables.services import (
    SignatureGiven,
    approval_decide,
    credit_request,
    fill_request,
    hand_decide,
    hand_record_card,
    hand_settle,
    hand_start,
    seat_close,
    seat_open,
    shift_rotate,
    shoe_start,
    table_count,
    table_create,
    tray_fill,
)
from tables.services.engine import hand_game
from tables.services.rating_slips import (
    rating_slip_close,
    rating_slip_pause,
    rating_slip_resume,
    rating_slip_start,
)

DAY_TABLE = "Rocket 2"
DAY_TRAY = 10_000  # units from the cage before the day opens
DAY_BUY_INS = (2000, 1500)  # two players, seats 1 and 2
DAY_CARDS = ("1001", "1002")  # Alice Martin at seat 1, Bruno Keller at seat 2
SLIP_PAUSED_HAND = 2  # Bruno Keller's slip is paused for the hand numbered 2 (from 0)
DAY_FILL, DAY_CREDIT = {"100": 5}, {"100": 3}  # 500 in, 300 back to the cage
# A Rocket hand: seat 1 bets 20, hits a 4 after a 5; seat 2 bets 50 and folds a 6 (pays 30); the
# dealer pairs his 9s and pays seat 1 18: the house wins 12.
HAND_CARDS, HAND_DECISIONS, HAND_BETS = (5, 6, 9, 4, 9), (("hit",), ("fold",)), {1: 20, 2: 50}
DAY_HANDS = 5


def seed_full_day(pit: Pit, users: dict, passwords: dict) -> None:
    """Open, play and close Rocket 2 for today (once)."""
    table = Table.objects.filter(pit=pit, name=DAY_TABLE).first() or table_create(
        pit=pit,
        name=DAY_TABLE,
        game=Game.ROCKET,
        min_bet=10,
        max_bet=500,
        payout_approval_threshold=250,
        by=users["admin"],
        reason="The demo's full day",
    )
    if table.counts.filter(kind=TableCount.Kind.CLOSER).exists():
        return
    dana, pete, pam = users["dana"], users["pete"], users["pam"]
    back_to = Shift.objects.get(user=dana, ended_at=None).table
    shift = shift_rotate(shift=Shift.objects.get(user=dana, ended_at=None), table=table, by=pete)
    signed = {"by": dana, "counter": _signature(dana, passwords), "witness": _signature(pete, passwords)}
    tray_fill(table=table, amount=DAY_TRAY, by=pete, key=f"demo-day-bankroll-{table.pk}")
    _count(table, TableCount.Kind.OPENER, DAY_TRAY, **signed)
    shoe_start(table=table, decks=8, by=pete, key=f"demo-day-shoe-{table.pk}")
    slips = []
    for seat, (buy_in, card) in enumerate(zip(DAY_BUY_INS, DAY_CARDS, strict=True), start=1):
        key = f"demo-day-seat-{table.pk}-{seat}"
        session = seat_open(table=table, seat=seat, buy_in=buy_in, card_number=card, by=dana, key=key)
        slips.append(rating_slip_start(session=session, by=dana, device="demo", key=f"{key}-slip"))
    for name, ask, chips in (("fill", fill_request, DAY_FILL), ("credit", credit_request, DAY_CREDIT)):
        key = f"demo-day-{name}-{table.pk}"
        request = ask(table=table, denominations=chips, by=dana, secret=passwords["dana"], key=key)
        approval_decide(request=request, by=pam, approve=True, secret=passwords["pam"], key=f"{key}-approved")
    for number in range(DAY_HANDS):
        _pause_for(slips[1], number, dana)
        _play(table, dana, number)
    for slip in slips:
        rating_slip_close(slip=slip, by=dana, device="demo", key=f"demo-day-slip-close-{slip.pk}")
    for session in SeatSession.objects.filter(seat__table=table, ended_at=None):
        seat_close(session=session, by=dana, key=f"demo-day-leave-{session.pk}")
    _count(table, TableCount.Kind.CLOSER, None, **signed)
    shift_rotate(shift=shift, table=back_to, by=pete)


def _pause_for(slip: RatingSlip, number: int, dana) -> None:
    """Pause the slip before hand SLIP_PAUSED_HAND and resume it after (the player stepped away)."""
    if number == SLIP_PAUSED_HAND:
        rating_slip_pause(slip=slip, by=dana, device="demo", key=f"demo-day-slip-pause-{slip.pk}")
    elif number == SLIP_PAUSED_HAND + 1:
        rating_slip_resume(slip=slip, by=dana, device="demo", key=f"demo-day-slip-resume-{slip.pk}")


def _play(table: Table, dana, number: int) -> None:
    hand = hand_start(table=table, bets=HAND_BETS, by=dana, key=f"demo-day-hand-{table.pk}-{number}")
    cards, decisions = list(HAND_CARDS), list(HAND_DECISIONS)
    while not (game := hand_game(hand)).finished:
        step = f"demo-day-step-{hand.pk}-{hand.seq}"
        if isinstance(game.next, CardDue):
            hand = hand_record_card(hand=hand, rank=cards.pop(0), by=dana, expected_seq=hand.seq, key=step)
        else:
            hand = hand_decide(hand=hand, action=decisions.pop(0), by=dana, expected_seq=hand.seq, key=step)
    hand_settle(hand=hand, by=dana, expected_seq=hand.seq, key=f"demo-day-settle-{hand.pk}")


def _count(table: Table, kind: str, chips: int | None, *, by, counter, witness) -> None:
    """A signed count of the tray as the ledger has it (right to the unit), in 100s and 1s."""
    total = account_get(kind=Account.Kind.TRAY, table=table).balance if chips is None else chips
    hundreds, ones = divmod(total, 100)
    table_count(
        table=table,
        kind=kind,
        denominations={"100": hundreds, "1": ones},
        by=by,
        counter=counter,
        witness=witness,
        device="demo",
        key=f"demo-day-{kind}-{table.pk}",
    )


def _signature(user, passwords: dict) -> SignatureGiven:
    return SignatureGiven(user.username, passwords[user.username])


def compute_demo_figures(casino) -> list[tuple[str, float]]:
    """Every demo table's par sheet, computed now (with Rocket's theoretical edge, which the
    house-edge report reads from the same cache), so that no first page waits for them: (table,
    seconds) each. Tables set up alike share one sheet: the second costs nothing. A points game's
    table has none (its rounds move no money)."""
    timings = []
    for table in Table.objects.filter(pit__casino=casino).exclude(game__in=POINTS_GAMES).order_by("name"):
        started = time.perf_counter()
        par_sheet_compute(table=table)
        timings.append((table.name, time.perf_counter() - started))
    return timings
