"""A table configuration's par sheet: asked for by a page, computed once by a task, cached.

A table's configuration is its game, its house rules (every default filled in, collection mode and
amounts included), for Rocket its shoe (decks, burn, penetration: the shoe in play, else the last
one) and the player strategy the casino's variance rules assume, for pot games the players and
strategy simulated and the hands-per-hour assumption, and the simulations' sizes (settings
PAR_SHEET_*). Its canonical hash keys the `ParSheet` row, so tables set up alike share one sheet
and a changed setting gets a new one.

`par_sheet_request` finds or creates the row and, when it is new (or failed), sends the task once
the transaction commits; it never computes. A page request may call it: what it writes is a cache
of mathematics, not a record of the floor. `par_sheet_run` is what the task runs: nothing for a
sheet already done; otherwise it saves its progress as it goes (committed at once, for the page)
and then the figures. The figures themselves: `par_figures` and docs/reports.md "Par sheets".
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import DatabaseError, InterfaceError, OperationalError, transaction
from django.utils import timezone

from casino.errors import DomainError
from reports.models import ParSheet
from reports.services.dispatch import send
from reports.services.house_edge import rules_for
from reports.services.par_figures import (
    EXACT,
    SIMULATED,
    distribution_figures,
    exact,
    pot_run,
    rocket_payments,
    rocket_shoe_run,
)
from reports.services.theory import RocketConfig, config_hash, simulation_sizes, theoretical_edge
from tables.games import IllegalAction
from tables.games.collection import FEE, MODES, NONE, RAKE, TIME
from tables.games.rocket import MAX_PLAYERS
from tables.games.rocket_exact import fresh_shoe
from tables.models import POINTS_GAMES, Game, Shoe, Table
from tables.rocket_counting import configuration_warnings
from tables.simulation import rocket_strategy

VERSION = 1  # bump when a figure's method changes: every configuration is then computed afresh
ROCKET_HANDS = 100_000  # full-table hands through the shoe: cards per hand to about +/- 0.05
POT_GAMES = 10_000  # games per pot-game run: the rake per game to within a few per cent, seconds
POT_PLAYERS = 4  # players simulated at a pot table: a typical game (2 to 8 may play)
POT_STRATEGY = "cautious"  # `tables.simulation.cautious`: hits or takes the minimum, folds one time in four
# Hands (Pairs) or games (Blackstone, Starboard) dealt per hour: assumptions for the per-hour
# figures, stated on the sheet; a casino that timed its tables sets PAR_SHEET_HANDS_PER_HOUR.
# Games an hour at a table (a Pairs round counts as a hand); the secret-hand games' are the house's
# estimates until tables have dealt them (PAR_SHEET_HANDS_PER_HOUR overrides any of them).
HANDS_PER_HOUR = {
    Game.BLACKSTONE: 30,
    Game.STARBOARD: 40,
    Game.PAIRS: 60,
    Game.HAWTHORN: 20,
    Game.GOBLIN_POKER: 15,
    Game.MONSTER: 20,
    Game.REGENT: 30,
    Game.TROLL_GUTS: 20,
}
MINUTES_PER_HOUR = 60
Progress = Callable[[int, str], None]


class ParSheetError(DomainError):
    """The table's configuration has no par sheet (a Rocket table that never had a shoe)."""


def _setting(name: str, default):
    return getattr(settings, f"PAR_SHEET_{name}", default)


def table_shoe(table: Table) -> Shoe | None:
    """The shoe whose setup the sheet describes: the one in play, else the last one."""
    shoes = table.shoes.order_by("-created_at", "-pk")
    return shoes.filter(state=Shoe.State.IN_PLAY).first() or shoes.first()


def table_configuration(table: Table) -> dict:
    """The configuration record of `table` (see the module docstring); ParSheetError if none."""
    try:
        rules = table.house_rules()
    except IllegalAction as error:
        raise ParSheetError(f"{table}'s house rules cannot be played: {error.message}") from error
    if table.game in POINTS_GAMES:
        raise ParSheetError(f"{table} deals a points game: its rounds move no money, so it has no par sheet.")
    record = {"game": table.game, "options": rules.as_record(), "version": VERSION}
    if table.game == Game.ROCKET:
        return {**record, **_rocket_record(table)}
    games_per_hour = {**HANDS_PER_HOUR, **_setting("HANDS_PER_HOUR", {})}
    return {
        **record,
        "players": _setting("POT_PLAYERS", POT_PLAYERS),
        "strategy": _setting("POT_STRATEGY", POT_STRATEGY),
        "games": _setting("GAMES", POT_GAMES),
        "hands_per_hour": games_per_hour[table.game],
    }


def _rocket_record(table: Table) -> dict:
    shoe = table_shoe(table)
    if shoe is None:
        raise ParSheetError(f"{table} has never had a shoe: start one, and its par sheet follows.")
    edge_hands, variance_hands = simulation_sizes()
    return {
        "decks": shoe.decks,
        "burn": shoe.burn,
        "penetration": round(float(shoe.penetration), 4),
        "strategy": rules_for(table.pit.casino_id).strategy,
        "players": MAX_PLAYERS,
        "hands": _setting("ROCKET_HANDS", ROCKET_HANDS),
        "edge_hands": edge_hands,
        "variance_hands": variance_hands,
    }


def par_sheet_found(table: Table) -> ParSheet | None:
    """The par sheet of `table`'s configuration if it has been asked for; writes nothing.
    ParSheetError if the table has no configuration."""
    return ParSheet.objects.filter(config_hash=config_hash(table_configuration(table))).first()


def par_sheet_request(*, table: Table) -> ParSheet:
    """The par sheet of `table`'s configuration, created and sent to a worker if it is new or
    failed. Never computes (a page may call it). ParSheetError if the table has no configuration."""
    with transaction.atomic():
        sheet, queued = _find_or_create(table)
        if queued:
            transaction.on_commit(partial(par_sheet_enqueue, sheet.pk))
    return sheet


def par_sheet_compute(*, table: Table) -> ParSheet:
    """The par sheet of `table`'s configuration, computed here and now if it is not done: for
    `seed_demo --figures`, which fills the demo's sheets before the server starts."""
    with transaction.atomic():
        sheet, _ = _find_or_create(table)
    return par_sheet_run(sheet_id=sheet.pk)


def _find_or_create(table: Table) -> tuple[ParSheet, bool]:
    """The sheet and whether it needs computing (new, or failed and asked for again)."""
    record = table_configuration(table)
    sheet, created = ParSheet.objects.get_or_create(
        config_hash=config_hash(record), defaults={"game": table.game, "config": record}
    )
    if not created and sheet.status == ParSheet.Status.FAILED:
        sheet = ParSheet.objects.select_for_update().get(pk=sheet.pk)
        sheet.status, sheet.progress, sheet.stage = ParSheet.Status.PENDING, 0, "Asked for again"
        sheet.save(update_fields=["status", "progress", "stage"])
        return sheet, True
    return sheet, created


def par_sheet_enqueue(sheet_id: int) -> None:
    from reports.tasks import compute_par_sheet

    send(compute_par_sheet, sheet_id)


def par_sheet_run(*, sheet_id: int) -> ParSheet:
    """Compute the sheet unless it is done; return it. Takes the row lock to start. A database
    error propagates (the task retries it); any other marks the sheet failed with its message."""
    with transaction.atomic():
        sheet = ParSheet.objects.select_for_update().get(pk=sheet_id)
        if sheet.status == ParSheet.Status.DONE:
            return sheet
        sheet.status, sheet.progress, sheet.stage, sheet.error = ParSheet.Status.RUNNING, 0, "Starting", ""
        sheet.started_at, sheet.finished_at = timezone.now(), None
        sheet.save(update_fields=["status", "progress", "stage", "error", "started_at", "finished_at"])
    started = time.perf_counter()
    try:
        figures = par_sheet_figures(sheet.config, partial(_progress, sheet.pk))
    except (OperationalError, InterfaceError):
        _mark(sheet.pk, status=ParSheet.Status.PENDING, stage="Database error: retrying")
        raise
    except Exception as error:
        message = error.message if isinstance(error, DomainError | IllegalAction) else repr(error)
        _mark(
            sheet.pk, status=ParSheet.Status.FAILED, stage="Failed", error=message, finished_at=timezone.now()
        )
        if isinstance(error, DomainError | IllegalAction | ObjectDoesNotExist | ValueError):
            return ParSheet.objects.get(pk=sheet.pk)
        raise
    # Through JSON and back, so the figures read the same fresh and from the database (seat keys).
    figures = json.loads(json.dumps(figures))
    ParSheet.objects.filter(pk=sheet.pk).update(
        status=ParSheet.Status.DONE, progress=100, stage="Done", figures=figures,
        seconds=time.perf_counter() - started, finished_at=timezone.now(),
    )  # fmt: skip
    return ParSheet.objects.get(pk=sheet.pk)


def _progress(sheet_id: int, percent: int, stage: str) -> None:
    """Committed at once (outside any transaction), so the page shows it."""
    ParSheet.objects.filter(pk=sheet_id).update(progress=max(0, min(percent, 100)), stage=stage[:200])


def _mark(sheet_id: int, **fields) -> None:
    try:
        ParSheet.objects.filter(pk=sheet_id).update(**fields)
    except DatabaseError:  # the database is what failed: the retry sets the row right
        pass


def _part(progress: Progress, start: int, end: int) -> Progress:
    """A step's own 0..100 progress as start..end of the whole."""
    return lambda percent, stage: progress(start + (end - start) * percent // 100, stage)


def par_sheet_figures(config: dict, progress: Progress) -> dict:
    """The sheet's figures for a configuration record, each with the time it took."""
    if config["game"] == Game.ROCKET:
        return rocket_figures(config, progress)
    return pot_figures(config, progress)


# -- Rocket ------------------------------------------------------------------------------------


def rocket_figures(config: dict, progress: Progress) -> dict:
    timings = {}
    started = time.perf_counter()
    progress(2, "Exact values for a fresh shoe")
    values = fresh_shoe(config["decks"], config["strategy"], rocket_strategy(config["strategy"]))
    payments = rocket_payments(values)
    dist = distribution_figures(payments["outcomes"])
    timings["exact"] = time.perf_counter() - started
    started = time.perf_counter()
    progress(20, "The edge as the shoe is dealt (the theoretical edge the reports use)")
    edge = theoretical_edge(config=_rocket_config(config))
    timings["edge"] = time.perf_counter() - started
    started = time.perf_counter()
    shoe_run = rocket_shoe_run(
        decks=config["decks"], burn=config["burn"], penetration=config["penetration"],
        strategy=config["strategy"], players=config["players"], hands=config["hands"],
        seed=config_hash(config), progress=_part(progress, 60, 95),
    )  # fmt: skip
    timings["shoe"] = time.perf_counter() - started
    progress(96, "Warnings")
    options = {**config["options"], "burn": config["burn"]}
    warnings = configuration_warnings(Game.ROCKET, options, config["decks"], config["penetration"])
    return {
        "edge": _edge_figure(edge),
        "fresh_edge": exact(values.edge),
        "endless_edge": exact(edge.endless_edge),
        "sd": exact(dist["sd"]),
        # One seat's spread as dealt through the shoe: simulated, its interval not computed.
        "sd_dealt": {"value": edge.seat_variance**0.5, "method": SIMULATED, "half_width": None},
        "win": exact(dist["win"]),
        "push": exact(dist["push"]),
        "loss": exact(dist["loss"]),
        "fold_rate": exact(payments["fold_rate"]),
        "mean": exact(dist["mean"]),
        "payments": dist["payments"],
        **shoe_run,
        "warnings": warnings,
        "seconds": timings,
    }


def _rocket_config(config: dict) -> RocketConfig:
    return RocketConfig(
        decks=config["decks"],
        start=config["options"].get("start", "left"),
        burn=config["burn"],
        penetration=config["penetration"],
        strategy=config["strategy"],
    )


def _edge_figure(edge) -> dict:
    """The house edge as dealt: exact when every hand comes from a fresh shoe, else simulated
    through the shoe to the cut card (what the exact method does not cover), with its interval."""
    if edge.method == edge.Method.EXACT:
        return exact(edge.edge)
    return {"value": edge.edge, "method": "simulated", "half_width": edge.half_width}


# -- pot games ---------------------------------------------------------------------------------


def pot_figures(config: dict, progress: Progress) -> dict:
    """Play the table's own rules; when it does not rake, play the same games raked to learn what
    a rake would take. Then the collection per game and per hour under every mode."""
    from tables.games.replay import games

    options = games()[config["game"]].Options.build(config["options"])
    raked = options.collection == RAKE
    seed = config_hash(config)
    own_end = 90 if raked else 50
    started = time.perf_counter()
    own = _pot_run(config, options, seed, _part(progress, 0, own_end))
    timings = {"games": time.perf_counter() - started}
    rake = own["house_per_game"]
    if not raked:
        started = time.perf_counter()
        as_raked = _pot_run(config, _with(options, RAKE), seed, _part(progress, 50, 90))
        rake = as_raked["house_per_game"]
        timings["raked"] = time.perf_counter() - started
    progress(95, "Collection per game and per hour")
    games_per_hour = config["hands_per_hour"] / own["hands_per_game"]
    timed = SIMULATED if config["game"] == Game.PAIRS else EXACT  # a Pairs game's length varies
    return {
        **own,
        "collection": config["options"]["collection"],
        "games_per_hour": games_per_hour,
        "modes": collection_modes(options, config["players"], rake, games_per_hour, timed),
        "seconds": timings,
    }


def _pot_run(config: dict, options, seed: str, progress: Progress) -> dict:
    return pot_run(
        game=config["game"], options=options, players=config["players"], strategy=config["strategy"],
        games=config["games"], seed=seed, progress=progress,
    )  # fmt: skip


def _with(options, mode: str):
    return replace(options, collection=mode)


def collection_modes(options, players: int, rake: dict, games_per_hour: float, timed: str = EXACT) -> dict:
    """The house's expected collection per game and per hour under each mode, with the table's
    amounts: the rake simulated, the fee exact (every player pays it once a game), the time charge
    exact per hour of seat time, none nothing. A figure that converts between games and hours
    with a simulated game length (Pairs: `timed` "simulated") is labelled simulated."""
    fee = options.fee * players
    time_hour = options.time_fee * players * MINUTES_PER_HOUR / options.time_minutes
    figures = {
        RAKE: {"game": rake, "hour": _scaled(rake, games_per_hour)},
        FEE: {"game": exact(fee), "hour": {"value": fee * games_per_hour, "method": timed}},
        TIME: {"game": {"value": time_hour / games_per_hour, "method": timed}, "hour": exact(time_hour)},
        NONE: {"game": exact(0), "hour": exact(0)},
    }
    return {mode: figures[mode] for mode in MODES}


def _scaled(figure: dict, factor: float) -> dict:
    scaled = {**figure, "value": figure["value"] * factor}
    if figure.get("half_width") is not None:
        scaled["half_width"] = figure["half_width"] * factor
    return scaled


# -- what the page, the printable sheet and the CSV show ---------------------------------------


def par_sheet_rows(sheet: ParSheet) -> list[dict]:
    """The sheet as rows (section, figure, value, method, interval), formatted once for the page,
    the printable sheet and the CSV alike."""
    config, figures = sheet.config, sheet.figures or {}
    rows = _config_rows(config)
    if not figures:
        return rows
    add = _rocket_rows if config["game"] == Game.ROCKET else _pot_rows
    return rows + add(config, figures)


def _row(section: str, name: str, figure, kind: str = "number") -> dict:
    """One row; `figure` is a labelled figure (see `par_figures`) or a plain value."""
    if not isinstance(figure, dict):
        return {
            "section": section,
            "name": name,
            "value": _format(figure, kind),
            "method": "",
            "interval": "",
        }
    width = figure.get("half_width")
    interval = f"± {_format(width, kind)}" if width is not None else ""
    if figure["method"] == SIMULATED and width is None:
        interval = "interval not computed"
    return {
        "section": section,
        "name": name,
        "value": _format(figure["value"], kind),
        "method": figure["method"],
        "interval": interval,
    }


def _format(value, kind: str) -> str:
    if value is None:
        return "none"
    if kind == "percent":
        return f"{100 * value:.4f}%"
    if kind == "units":
        return f"{value:,.4f}"
    if isinstance(value, float):
        return f"{value:,.4f}"
    return str(value)


def _config_rows(config: dict) -> list[dict]:
    section = "Configuration"
    rows = [_row(section, "Game", dict(Game.choices).get(config["game"], config["game"]))]
    options = ", ".join(f"{name} {value}" for name, value in sorted(config["options"].items()))
    rows.append(_row(section, "House rules", options))
    if config["game"] == Game.ROCKET:
        names = ("decks", "burn", "penetration", "strategy", "players", "hands")
        labels = ("Decks", "Burn (cards)", "Penetration (cut card)", "Player strategy assumed",
                  "Seats dealt through the shoe", "Hands simulated through the shoe")  # fmt: skip
    else:
        names = ("players", "strategy", "games", "hands_per_hour")
        labels = ("Players simulated", "Player strategy assumed", "Games simulated",
                  "Hands (Pairs) or games per hour, assumed")  # fmt: skip
    return rows + [_row(section, label, config[name]) for name, label in zip(names, labels, strict=True)]


def _rocket_rows(config: dict, f: dict) -> list[dict]:
    edge = "House edge per unit bet"
    seat = "One seat, one hand (per unit bet)"
    rows = [
        _row(edge, "As dealt (exact from a fresh shoe; simulated to the cut card)", f["edge"], "percent"),
        _row(edge, "Hand dealt from a freshly shuffled shoe", f["fresh_edge"], "percent"),
        _row(edge, "Endless shoe", f["endless_edge"], "percent"),
        _row(seat, "Standard deviation (fresh shoe)", f["sd"]),
        _row(seat, "Standard deviation as dealt through the shoe", f["sd_dealt"]),
        _row(seat, "Probability of a win", f["win"], "percent"),
        _row(seat, "Probability of a push", f["push"], "percent"),
        _row(seat, "Probability of a loss", f["loss"], "percent"),
        _row(seat, "Fold rate", f["fold_rate"], "percent"),
    ]
    pay = "Payments (fresh shoe): the player's result as a multiple of the bet"
    rows += [
        _row(pay, _payment(multiple), {"value": p, "method": EXACT}, "percent")
        for multiple, p in f["payments"]
    ]
    cards = f"Cards per hand ({config['players']} seats, through the shoe)"
    rows += [
        _row(cards, "Mean", f["cards_mean"]),
        *(_row(cards, f"{q[1:]}th percentile", value) for q, value in f["cards_tail"].items()),
        _row(cards, "Most seen", f["cards_max"]),
        _dry_row(cards, f),
    ]
    rows += [_row("Warnings", "Warning", warning) for warning in f["warnings"]]
    return rows


def _payment(multiple: float) -> str:
    """A result as the floor says it ("wins 0.3 x the bet"), never a bare signed number."""
    return f"{'wins' if multiple > 0 else 'loses'} {abs(multiple):.1f} x the bet"


def _dry_row(section: str, f: dict) -> dict:
    """None seen is not "never": give the 95% upper bound, 3 / hands (the rule of three)."""
    row = _row(section, "Share of hands that run the shoe dry", f["dry_share"], "percent")
    if f["dry_hands"] == 0:
        row["interval"] = f"none in {f['hands']:,} hands: below {_format(3 / f['hands'], 'percent')}"
    return row


def _pot_rows(config: dict, f: dict) -> list[dict]:
    rows = []
    for mode, figure in f["modes"].items():
        mark = " (this table)" if mode == f["collection"] else ""
        rows.append(_row("House collection per game (units)", f"{mode}{mark}", figure["game"], "units"))
        rows.append(_row("House collection per hour (units)", f"{mode}{mark}", figure["hour"], "units"))
    length = "Game length"
    rows += [
        _row(length, "Hands per game", f["hands_per_game"]),
        *(
            _row(length, f"Hands per game, {q[1:]}th percentile", value)
            for q, value in f["hands_tail"].items()
        ),
        _row(length, "Hands per game, most seen", f["hands_max"]),
        _row(length, "Cards per game", f["cards_per_game"]),
        _row(length, "Games per hour", f["games_per_hour"]),
        _row(length, "Games abandoned (the deck could not finish them)", f["abandoned"]),
    ]
    seats = "Net result per game by seat (units)"
    rows += [_row(seats, f"Seat {seat}", figure, "units") for seat, figure in f["seats"].items()]
    rows.append(_row(seats, "Does the seat matter?", seat_verdict(f["seats"])))
    if config["game"] == Game.PAIRS:
        rows += _pairs_rows(config, f)
    return rows


def seat_verdict(seats: dict) -> str:
    """Whether the seats' results differ by more than chance: a seat whose 95% interval misses the
    average seat's result says so (with several seats, one in twenty may by chance alone)."""
    average = sum(figure["value"] for figure in seats.values()) / len(seats)
    apart = [seat for seat, f in seats.items() if abs(f["value"] - average) > f["half_width"]]
    if not apart:
        return "no difference shown: every seat's interval holds the average seat's result"
    return f"seats {', '.join(str(seat) for seat in apart)}: beyond their interval from the average seat"


def _pairs_rows(config: dict, f: dict) -> list[dict]:
    section = "What the loser pays per game, by ending (same final scores, no rake)"
    rows = [_row(section, ending, figure, "units") for ending, figure in f["endings"].items()]
    catch = "Five Card Catch"
    if config["options"].get("five_card_catch"):
        return rows + [_row(catch, "Share of games ended by a Five Card Catch", f["catch_share"], "percent")]
    return rows + [_row(catch, "Share of games ended by a Five Card Catch", "not played at this table")]
