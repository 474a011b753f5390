"""The demo floor a newcomer sees on a first run.

Safe to run again: rows are found by name and left as they are, and the demo
users get their documented passwords back.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from casino.roles import ADMIN, AUDITOR, DEALER, PIT_MANAGER
from casino.rules import rules_save
from ledger.models import Account
from ledger.services import account_get
from reports.demo import seed_full_day
from tables.models import Casino, Game, Pit, Player, PlayerRules, Shift, Table, TableCount
from tables.services import (
    SignatureGiven,
    drop_box_count,
    drop_box_deliver,
    drop_box_remove,
    seat_close,
    seat_open,
    shift_start,
    shoe_start,
    table_count,
    table_create,
    table_is_open,
    tray_fill,
)
from tables.services.players import Identification, player_create, player_identify

DEMO_CASINO = "Demo Casino"
ROCKET_DEMO_DECKS = 8  # the demo: an 8-deck Rocket shoe
DEMO_TRAY = 20_000  # units of chips in each demo table's tray
DEMO_TRAY_CHIPS = {"1000": 10, "500": 10, "100": 40, "25": 20, "5": 80, "1": 100}  # DEMO_TRAY by chip

DEMO_USERS = (
    # username, role, password
    ("dana", DEALER, "dana-deals-2026"),
    ("dev", DEALER, "dev-deals-2026"),
    ("dora", DEALER, "dora-deals-2026"),
    ("dirk", DEALER, "dirk-deals-2026"),
    ("dina", DEALER, "dina-deals-2026"),
    ("dale", DEALER, "dale-deals-2026"),
    ("pete", PIT_MANAGER, "pete-watches-2026"),
    ("pam", PIT_MANAGER, "pam-watches-2026"),
    ("ada", AUDITOR, "ada-audits-2026"),
    ("admin", ADMIN, "admin-runs-2026"),
)
PASSWORDS = {username: password for username, _, password in DEMO_USERS}

DEMO_TABLES = (
    # name, game, min, max, payout approval threshold (reachable: `largest_payout`), its dealer on shift
    ("Rocket 1", Game.ROCKET, 10, 500, 250, "dana"),
    ("Blackstone 1", Game.BLACKSTONE, 5, 500, 100, "dev"),
    ("Starboard 1", Game.STARBOARD, 1, 100, 10, "dora"),
    ("Pairs 1", Game.PAIRS, 1, 100, 10, "dirk"),
    ("Hawthorn 1", Game.HAWTHORN, 1, 100, 20, "dina"),  # a secret-hand game: hands dealt face down
    ("Port 1", Game.PORT, 1, 100, 10, "dale"),  # a points game: scored round by round, to 21
)
# The house rakes the demo pot tables (docs/rules/collection.md); Starboard's and Pairs' pots are
# small, so they rake 10% to show a take at demo stakes, and Pairs plays for money (Cutchfeld).
DEMO_OPTIONS = {
    "Blackstone 1": {"collection": "rake"},
    "Starboard 1": {"collection": "rake", "rake_percent": 10},
    "Pairs 1": {"ending": "cutchfeld", "collection": "rake", "rake_percent": 10},
    "Hawthorn 1": {"collection": "rake", "rake_percent": 10},
}
DEMO_PLAYERS = (
    # name, player card, identification (type, number, issuer) or None: seat them by card at a tablet
    ("Alice Martin", "1001", ("passport", "P1234567", "FR")),
    ("Bruno Keller", "1002", None),
    ("Chen Wei", "1003", None),
)
PIT_MANAGERS = ("pete", "pam")  # two, so a request one of them makes the other can decide

# Blackstone 1's day before (docs/count.md): opened, chips sold for these buy-ins and cashed out,
# closed, its drop box removed, delivered and counted by pete and then pam, blind, to the unit;
# today it opens with what its tray holds, and a fill brings it back to DEMO_TRAY.
DEMO_DAY_TABLE = "Blackstone 1"
DEMO_DAY_BUY_INS = (500, 300)
DEMO_DAY_NOTES = {"100": 8}  # the box: the buy-ins' 800 units of cash
DEMO_DAY_CLOSER = {**DEMO_TRAY_CHIPS, "500": 9, "100": 37}  # the tray less the 800 units of chips sold


@transaction.atomic
def seed_demo() -> list[tuple[str, str, str]]:
    """Create the demo casino, pit, tables and users, put both pit managers in the pit and a
    dealer on shift at every table, fund each tray from the cage and open it with a signed count
    (the dealer counts, pete witnesses), and shuffle Rocket's 8-deck shoe: every flow in the docs
    can then be tried without the admin. Another table, Rocket 2, has played and closed a full day
    for the master game report (`reports.demo`).

    Returns the (username, role, password) logins.
    """
    users = {username: _ensure_user(username, role, password) for username, role, password in DEMO_USERS}
    casino, _ = Casino.objects.get_or_create(name=DEMO_CASINO)
    pit, _ = Pit.objects.get_or_create(casino=casino, name="Pit 1")
    for username in PIT_MANAGERS:
        _on_shift(users[username], users["pete"], pit=pit)
    for name, game, low, high, threshold, dealer in DEMO_TABLES:
        table = Table.objects.filter(pit=pit, name=name).first() or table_create(
            pit=pit,
            name=name,
            game=game,
            min_bet=low,
            max_bet=high,
            payout_approval_threshold=threshold,
            options=DEMO_OPTIONS.get(name, {}),
            by=users["admin"],
            reason="The demo floor",
        )
        _on_shift(users[dealer], users["pete"], table=table)
        if name == DEMO_DAY_TABLE:
            _day_before(table, users, dealer)
        _open_table(table, users["pete"], dealer)
    if not PlayerRules.objects.filter(casino=casino).exists():
        rules_save(PlayerRules(casino=casino))
    for name, card, identification in DEMO_PLAYERS:
        _ensure_player(casino, name, card, identification, users["pete"])
    seed_full_day(pit, users, PASSWORDS)
    return list(DEMO_USERS)


def _ensure_player(casino: Casino, name: str, card: str, identification, by) -> None:
    if Player.objects.filter(casino=casino, card_number=card).exists():
        return
    player = player_create(casino=casino, name=name, card_number=card, by=by)
    if identification:
        player_identify(player=player, identification=Identification(*identification), by=by)


def _on_shift(user, by, **where) -> None:
    if not Shift.objects.filter(ended_at=None, user=user).exists():
        shift_start(user=user, by=by, **where)


def _open_table(table: Table, by, dealer: str) -> None:
    """A new table's tray stocked from the cage, a signed opening count of what the tray holds, which
    attaches its drop box, a fill while open for a tray short of DEMO_TRAY (Blackstone 1's after its
    day before: a fill at a closed table is a reconciliation finding), and Rocket's 8-deck shoe (each
    idempotent: by key, or skipped once done)."""
    if not table.counts.exists() and account_get(kind=Account.Kind.TRAY, table=table).balance == 0:
        tray_fill(table=table, amount=DEMO_TRAY, by=by, key=f"demo-opening-fill-{table.pk}")
    if not table_is_open(table):
        held = account_get(kind=Account.Kind.TRAY, table=table).balance
        chips = DEMO_TRAY_CHIPS if held == DEMO_TRAY else DEMO_DAY_CLOSER
        _count(table, TableCount.Kind.OPENER, chips, by, dealer, key=f"demo-opening-count-{table.pk}")
        if held < DEMO_TRAY:
            tray_fill(table=table, amount=DEMO_TRAY - held, by=by, key=f"demo-day-fill-{table.pk}")
    if table.game == Game.ROCKET:
        shoe_start(table=table, decks=ROCKET_DEMO_DECKS, by=by, key=f"demo-rocket-shoe-{table.pk}")


def _count(table: Table, kind: str, chips: dict, by, dealer: str, *, key: str) -> None:
    """A count of the tray signed by its dealer, witnessed by `by`."""
    table_count(
        table=table,
        kind=kind,
        denominations=chips,
        by=by,
        counter=SignatureGiven(dealer, PASSWORDS[dealer]),
        witness=SignatureGiven(by.username, PASSWORDS[by.username]),
        device="demo",
        key=key,
    )


def _day_before(table: Table, users: dict, dealer: str) -> None:
    """A full day at `table`, before its first opening: opened, two players buy in and cash out, closed;
    its drop box removed, delivered and counted by pete and pam (today's opening fills its tray back
    to DEMO_TRAY, `_open_table`). Only on a table never counted."""
    if table.counts.exists():
        return
    pete, pam = users["pete"], users["pam"]
    tray_fill(table=table, amount=DEMO_TRAY, by=pete, key=f"demo-opening-fill-{table.pk}")
    _count(table, TableCount.Kind.OPENER, DEMO_TRAY_CHIPS, pete, dealer, key=f"demo-day-opener-{table.pk}")
    for number, amount in enumerate(DEMO_DAY_BUY_INS, start=1):
        by = users[dealer]
        session = seat_open(table=table, seat=number, buy_in=amount, by=by, key=f"demo-day-{number}")
        seat_close(session=session, by=by, key=f"demo-day-cash-out-{number}")
    _count(table, TableCount.Kind.CLOSER, DEMO_DAY_CLOSER, pete, dealer, key=f"demo-day-closer-{table.pk}")
    box = table.drop_boxes.get()
    drop_box_remove(box=box, by=pete, device="demo", key=f"demo-day-remove-{box.pk}")
    drop_box_deliver(box=box, by=pete, device="demo", key=f"demo-day-deliver-{box.pk}")
    for counter in (pete, pam):
        key = f"demo-day-count-{box.pk}"
        drop_box_count(box=box, denominations=DEMO_DAY_NOTES, by=counter, device="demo", key=key)


def _ensure_user(username: str, role: str, password: str):
    user, _ = get_user_model().objects.get_or_create(username=username)
    user.set_password(password)
    user.is_staff = role in (ADMIN, AUDITOR)  # they use the admin site
    user.is_superuser = role == ADMIN
    user.save()
    user.groups.set([Group.objects.get(name=role)])
    return user
