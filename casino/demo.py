"""The demo floor a newcomer sees on a first run.

Safe to run again: rows are found by name and left as they are, and the demo
users get their documented passwords back.
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from casino.roles import ADMIN, AUDITOR, DEALER, PIT_MANAGER
from ledger.models import Account
from ledger.services import account_get
from tables.models import Casino, Game, Pit, Shift, Table
from tables.services import shift_start, shoe_start, tray_fill

ROCKET_DEMO_DECKS = 8  # the demo: an 8-deck Rocket shoe
DEMO_TRAY = 20_000  # units of chips in each demo table's tray

DEMO_USERS = (
    # username, role, password
    ("dana", DEALER, "dana-deals-2026"),
    ("pete", PIT_MANAGER, "pete-watches-2026"),
    ("ada", AUDITOR, "ada-audits-2026"),
    ("admin", ADMIN, "admin-runs-2026"),
)

DEMO_TABLES = (
    # name, game, min, max
    ("Rocket 1", Game.ROCKET, 10, 500),
    ("Blackstone 1", Game.BLACKSTONE, 5, 500),
    ("Starboard 1", Game.STARBOARD, 1, 100),
    ("Pairs 1", Game.PAIRS, 1, 100),
)


@transaction.atomic
def seed_demo() -> list[tuple[str, str, str]]:
    """Create the demo casino, pit, tables, Rocket shoe and one user per role,
    fund the trays from the cage, and put dana on shift at Rocket 1 and pete in the pit.

    Returns the (username, role, password) logins.
    """
    users = {username: _ensure_user(username, role, password) for username, role, password in DEMO_USERS}
    casino, _ = Casino.objects.get_or_create(name="Demo Casino")
    pit, _ = Pit.objects.get_or_create(casino=casino, name="Pit 1")
    for name, game, low, high in DEMO_TABLES:
        table, _ = Table.objects.get_or_create(
            pit=pit, name=name, defaults={"game": game, "min_bet": low, "max_bet": high}
        )
        _open_table(table, users["pete"])
    if not Shift.objects.filter(ended_at=None, user=users["dana"]).exists():
        shift_start(user=users["dana"], table=Table.objects.get(pit=pit, name="Rocket 1"), by=users["pete"])
    if not Shift.objects.filter(ended_at=None, user=users["pete"]).exists():
        shift_start(user=users["pete"], pit=pit, by=users["pete"])
    return list(DEMO_USERS)


def _open_table(table: Table, by) -> None:
    """A tray of chips from the cage, and Rocket's 8-deck shoe (idempotent by key)."""
    if account_get(kind=Account.Kind.TRAY, table=table).balance == 0:
        tray_fill(table=table, amount=DEMO_TRAY, by=by, key=f"demo-opening-fill-{table.pk}")
    if table.game == Game.ROCKET:
        shoe_start(table=table, decks=ROCKET_DEMO_DECKS, by=by, key=f"demo-rocket-shoe-{table.pk}")


def _ensure_user(username: str, role: str, password: str):
    user, _ = get_user_model().objects.get_or_create(username=username)
    user.set_password(password)
    user.is_staff = role in (ADMIN, AUDITOR)  # they use the admin site
    user.is_superuser = role == ADMIN
    user.save()
    user.groups.set([Group.objects.get(name=role)])
    return user
