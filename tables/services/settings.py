"""A table's settings: its game, limits, house-rule options, payout threshold and chip value.

Tables and pits are created, and a table's settings changed, only here (the pit's new-table and
settings pages, the API and the admin all call these). Who: an administrator (superuser) anywhere,
or a pit manager on shift in the table's pit. Every check runs before anything is written, under
the table's row lock (the first lock of the documented order, docs/records.md), and a refusal
writes nothing:

- the game cannot change while a player is seated (an open seat session) or a shoe is in play
  (RULINGS.md "Tables, seats and games": a live Rocket table never turns into Blackstone);
- nor can the time collection start or change its period (`time_clock`): a seated player's
  periods are counted from the sit-down, so the next deal would charge time from before the change;
- limits are whole units with 0 < minimum <= maximum (at most MAX_SETTING), multiples of 10 at Rocket;
- options are what the game's engine accepts (`Options.build`: its own validation);
- the payout approval threshold must be reachable: below the largest payout one hand can pay one
  seat under the table's game, limits and options (`largest_payout`). A table whose hands never pay
  anyone (Pairs under forfeit) has nothing to approve, and any threshold stands.

The table is sealed (`ledger.seals`) in its own chain as it is created and at each change, in the
same transaction: `verify_ledger` names a game, limit, option or threshold changed any other way.

Each change writes one audit event holding `{field: [old, new]}` for every field that changed,
the reason, who and from which device; a change that changes nothing writes nothing. Each hand
records the limits and threshold in force when it starts (`Hand.limits`), so a change never
alters how a hand already dealt is judged.
"""

from functools import partial

from django.db import transaction

from casino.audit import audit_record
from casino.errors import DomainError, NotAllowed
from casino.limits import shown
from casino.models import AuditEvent
from ledger.seals import seal
from ledger.services import accounts_sealed, table_accounts_made
from tables.games import (
    IllegalAction,
    blackstone,
    goblin_poker,
    hawthorn,
    monster,
    pairs,
    regent,
    rocket,
    starboard,
    troll_guts,
)
from tables.games.base import Options
from tables.games.cards import RANKS, composition
from tables.games.pairs_endings import CUTCHFELD, DOWNSPEAR, FORFEIT, NORLAND, TACOMA, canonical_ending
from tables.games.replay import games
from tables.models import POINTS_GAMES, SECRET_HANDS, Casino, Game, Pit, SeatSession, Shoe, Table
from tables.selectors import supervised_pits

from .collection import time_clock
from .idempotency import run_once

SETTINGS = ("game", "min_bet", "max_bet", "options", "payout_approval_threshold", "chip_unit_cents")
MAX_SETTING = 2**31 - 1  # the columns are PositiveIntegerFields: 32 bits in PostgreSQL
DEFAULT_THRESHOLD = Table._meta.get_field("payout_approval_threshold").default
TOP_RANK = max(RANKS)
# Blackstone: every card but the 10s is a white stone; one deck holds r cards of rank r.
WHITE_STONES = sum(rank for rank in RANKS if rank != blackstone.BLACK_STONE)
# Starboard: the common hand never pairs, so it holds at most one card of each rank.
COMMON_HAND_MOST = len(RANKS)
SECRET_PLAYERS = {
    Game.HAWTHORN: hawthorn.MAX_PLAYERS,
    Game.GOBLIN_POKER: goblin_poker.MAX_PLAYERS,
    Game.MONSTER: monster.MAX_PLAYERS,
    Game.REGENT: regent.MAX_PLAYERS,
    Game.TROLL_GUTS: troll_guts.MAX_PLAYERS,
}
# Pairs: the chart's highest losing score (two players), when the table sets none.
CHART_HIGHEST = max(pairs.LOSING_SCORES.values())


class SettingsError(DomainError):
    """The settings change is refused."""


def table_create(
    *,
    pit: Pit,
    name: str,
    game: str,
    min_bet: int,
    max_bet: int,
    options: dict | None = None,
    payout_approval_threshold: int = DEFAULT_THRESHOLD,
    chip_unit_cents: int = 100,
    by,
    reason: str = "",
    device: str = "",
    key: str | None = None,
) -> Table:
    """Create a table in `pit` with the given settings, checked as `table_settings_change` checks
    them; audited (TABLE_CREATE) with every setting. Only an administrator or a pit manager on shift
    in `pit` may."""
    settings = {
        "game": game,
        "min_bet": min_bet,
        "max_bet": max_bet,
        "options": options or {},
        "payout_approval_threshold": payout_approval_threshold,
        "chip_unit_cents": chip_unit_cents,
    }
    request = {"op": "table_create", "pit": pit.pk, "name": name, **settings}
    work = partial(_create, pit.pk, name.strip(), settings, by, reason, device)
    return Table.objects.select_related("pit__casino").get(pk=_once(key, request, by, work)["table"])


def table_sealed_with_accounts(table: Table) -> None:
    """A new table's own accounts (tray, drop box, carry, rake) made and sealed with the table, as
    its chain's first records: no other table waits (the table's creation, and the tables a test or
    a benchmark makes without the pit's checks)."""
    accounts_sealed(table_accounts_made(table), records=[(table, "created")])


def table_settings_change(
    *,
    table: Table,
    by,
    game: str | None = None,
    min_bet: int | None = None,
    max_bet: int | None = None,
    options: dict | None = None,
    payout_approval_threshold: int | None = None,
    chip_unit_cents: int | None = None,
    reason: str = "",
    device: str = "",
    key: str | None = None,
) -> Table:
    """Change the settings given (None: leave it as it is) of `table`; see the module docstring for
    who may and what is refused. Locks the table row first. Returns the table as it now is."""
    given = {
        "game": game,
        "min_bet": min_bet,
        "max_bet": max_bet,
        "options": options,
        "payout_approval_threshold": payout_approval_threshold,
        "chip_unit_cents": chip_unit_cents,
    }
    changes = {name: value for name, value in given.items() if value is not None}
    request = {"op": "table_settings", "table": table.pk, "changes": changes, "reason": reason}
    work = partial(_change, table.pk, changes, by, reason, device)
    return Table.objects.select_related("pit__casino").get(pk=_once(key, request, by, work)["table"])


def pit_create(*, casino: Casino, name: str, by, device: str = "") -> Pit:
    """Create a pit in `casino` (administrators only); audited (PIT_CREATE)."""
    if not by.is_superuser:
        raise NotAllowed("Only an administrator creates pits.")
    name = name.strip()
    if not name:
        raise SettingsError("A pit needs a name.")
    with transaction.atomic():
        if Pit.objects.filter(casino=casino, name=name).exists():
            raise SettingsError(f"{casino} already has a pit named {name}.")
        pit = Pit.objects.create(casino=casino, name=name)
        pit_created_event(pit, by, device)
    return pit


def largest_payout(*, game: str, max_bet: int, rules: Options) -> int:
    """The most one hand can pay one seat under these settings, in units: the payout approval
    threshold must be below it, or no payout would ever wait for the pit.

    Rocket: the largest payment is a dealer pair of 10s, ten tenths of the bet, so `max_bet`.
    Pot games pay from the other players' chips, not from the table's limits, so the bound is the
    largest pot one game can build, taken whole by one seat (a pot carried in from earlier games
    comes on top, and is left out): Blackstone, every other player (up to 7) paying the ante and
    every white stone of the deck; Starboard, every other player's ante and the draw fee for each
    card the common hand can take (one per rank) and each bust; Pairs, by its ending: forfeit
    nothing, downspear and norland 1, tacoma its amount, cutchfeld, olympia and portland the
    highest score a loser can reach (one below the losing score, plus a pair of 10s), and a Five
    Card Catch every other player's score short of losing.
    """
    if game == Game.ROCKET:
        return max_bet * TOP_RANK // rocket.TENTH
    if game == Game.BLACKSTONE:
        return (blackstone.MAX_PLAYERS - 1) * (rules.ante + WHITE_STONES)
    if game == Game.STARBOARD:
        others = starboard.MAX_PLAYERS - 1
        draws = COMMON_HAND_MOST - starboard.OPENING_CARDS + others
        return others * rules.ante + draws * rules.fee
    if game in SECRET_HANDS:
        return _secret_largest_payout(game, rules)
    if game in POINTS_GAMES:
        return 0  # scored in points: no hand pays a seat (Kitty's gambling settles the game's end)
    return _pairs_largest_payout(rules)


def _secret_largest_payout(game: str, rules: Options) -> int:
    """A secret-hand pot: every other player's ante, and every card of the deck paid into the pot
    once at its rank (a pair penalty or a fold price), plus Monster's penalty from each other player.
    A Monster game where all tie and lose plays again, so its pot has no bound: this is one round's."""
    most = SECRET_PLAYERS[game] - 1
    ante = rules.ante_for(SECRET_PLAYERS[game]) if game == Game.MONSTER else rules.ante
    penalty = rules.penalty * most if game == Game.MONSTER else 0
    return most * ante + sum(rank * count for rank, count in enumerate(composition(1))) + penalty


def _pairs_largest_payout(rules: Options) -> int:
    ending = canonical_ending(rules.ending)
    if ending == FORFEIT:
        return 0
    if ending in (DOWNSPEAR, NORLAND):
        return 1
    if ending == TACOMA:
        return rules.tacoma_amount
    losing = rules.target or CHART_HIGHEST
    loser_pays = losing - 1 + TOP_RANK
    if ending == CUTCHFELD and rules.five_card_catch:
        return max(loser_pays, (pairs.MAX_PLAYERS - 1) * (losing - 1))
    return loser_pays


# The writes, each inside one transaction


def _once(key: str | None, request: dict, by, work) -> dict:
    """Under the idempotency key of a page's or the API's request; the admin's own call is simply
    one transaction."""
    if key is None:
        with transaction.atomic():
            return work()
    return run_once(key=key, request=request, by=by, work=work)


def _create(pit_id: int, name: str, settings: dict, by, reason: str, device: str) -> dict:
    pit = Pit.objects.select_related("casino").get(pk=pit_id)
    _check_in_charge(by, pit.pk, f"add a table to {pit}")
    if not name:
        raise SettingsError("A table needs a name.")
    if Table.objects.filter(pit=pit, name=name).exists():
        raise SettingsError(f"{pit} already has a table named {name}.")
    table = Table(pit=pit, name=name, **settings)
    _check(table, game_changed=False)
    table.save()
    table_sealed_with_accounts(table)
    table_created_event(table, by, reason, device)
    return {"table": table.pk}


def _change(table_id: int, changes: dict, by, reason: str, device: str) -> dict:
    table = Table.objects.select_for_update(no_key=True).select_related("pit").get(pk=table_id)
    _check_in_charge(by, table.pit_id, f"change the settings of {table}")
    old = {name: getattr(table, name) for name in changes}
    clock = time_clock(table)
    for name, value in changes.items():
        setattr(table, name, value)
    changed = {name: [old[name], value] for name, value in changes.items() if old[name] != value}
    if not changed:
        return {"table": table.pk}
    _check(table, game_changed="game" in changed)
    if time_clock(table) not in (None, clock):  # stopped, it charges nothing more
        _check_clock_can_change(table)
    table.save(update_fields=list(changed))
    seal(table, table=table, event="changed")  # the table's chain, locked after its row (the lock order)
    table_settings_event(table, by, changed, reason, device)
    return {"table": table.pk}


# Checks


def _check_in_charge(by, pit_id: int, what: str) -> None:
    """An administrator, or a pit manager on shift in the pit (`supervised_pits`)."""
    if not by.is_superuser and pit_id not in supervised_pits(by):
        raise NotAllowed(f"Only an administrator or a pit manager on shift in the pit may {what}.")


def _check(table: Table, *, game_changed: bool) -> None:
    if table.game not in Game.values:
        raise SettingsError(f"Unknown game {shown(table.game)}; the tables deal {', '.join(Game.values)}.")
    if game_changed:
        _check_game_can_change(table)
    _check_limits(table)
    rules = _check_options(table)
    _check_threshold(table, rules)


def _check_game_can_change(table: Table) -> None:
    if SeatSession.objects.filter(seat__table=table, ended_at=None).exists():
        raise SettingsError(
            f"{table}'s game cannot change while a player is seated: every player cashes out first."
        )
    if table.shoes.filter(state=Shoe.State.IN_PLAY).exists():
        raise SettingsError(f"{table}'s game cannot change while a shoe is in play: retire the shoe first.")


def _check_clock_can_change(table: Table) -> None:
    """Time collection counts a seated player's periods from their sit-down: started, or its period
    changed, under a seated player, it would charge periods begun before the change."""
    if SeatSession.objects.filter(seat__table=table, ended_at=None).exists():
        raise SettingsError(
            f"{table}'s time collection cannot start or change its period while a player is "
            "seated: it would charge seat time from before the change. Every player cashes out first."
        )


def _check_limits(table: Table) -> None:
    for name, what in (("min_bet", "The minimum"), ("max_bet", "The maximum"), ("chip_unit_cents", "A unit")):
        _check_units(getattr(table, name), what, least=1)
    _check_units(table.payout_approval_threshold, "The payout approval threshold", least=0)
    if table.min_bet > table.max_bet:
        raise SettingsError(
            f"The minimum bet ({table.min_bet}) cannot be above the maximum ({table.max_bet})."
        )
    if table.game == Game.ROCKET and (table.min_bet % rocket.TENTH or table.max_bet % rocket.TENTH):
        raise SettingsError(
            f"Rocket limits must be multiples of {rocket.TENTH} units: payouts are in tenths of a bet."
        )


def _check_units(value, what: str, *, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= MAX_SETTING:
        raise SettingsError(
            f"{what} must be a whole number of units from {least} to {MAX_SETTING:,}, not {shown(value)}."
        )


def _check_options(table: Table) -> Options:
    if not isinstance(table.options, dict):
        raise SettingsError(f"House rules are named settings (an object), not {shown(table.options)}.")
    try:
        rules = games()[table.game].Options.build(table.options)
    except (IllegalAction, TypeError) as error:
        raise SettingsError(f"{table.get_game_display()} refuses these house rules: {error}") from error
    # Each game bounds what its rules mean; none means a number past the columns' own (a table with
    # an ante of 2**64 would refuse every hand it starts).
    for name, value in rules.as_record().items():
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_SETTING:
            raise SettingsError(f"The house rule {name} is at most {MAX_SETTING:,}, not {shown(value)}.")
    return rules


def _check_threshold(table: Table, rules: Options) -> None:
    most = largest_payout(game=table.game, max_bet=table.max_bet, rules=rules)
    if most and table.payout_approval_threshold >= most:
        raise SettingsError(
            f"No payout could reach the approval threshold of {table.payout_approval_threshold} units: "
            f"the largest one hand can pay one seat here is {most}. Set it below {most}."
        )


# The audit log: one writer per event


def table_created_event(table: Table, by, reason: str, device: str) -> AuditEvent:
    return audit_record(
        action=AuditEvent.Action.TABLE_CREATE,
        user=by,
        device=device,
        table=table.pk,
        pit=table.pit_id,
        name=table.name,
        settings={name: getattr(table, name) for name in SETTINGS},
        reason=reason,
    )


def table_settings_event(table: Table, by, changed: dict, reason: str, device: str) -> AuditEvent:
    return audit_record(
        action=AuditEvent.Action.TABLE_SETTINGS,
        user=by,
        device=device,
        table=table.pk,
        changes=changed,
        reason=reason,
    )


def pit_created_event(pit: Pit, by, device: str) -> AuditEvent:
    return audit_record(
        action=AuditEvent.Action.PIT_CREATE,
        user=by,
        device=device,
        pit=pit.pk,
        casino=pit.casino_id,
        name=pit.name,
    )
