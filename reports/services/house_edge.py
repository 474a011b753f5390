"""The house-edge report: handle, win and hold per group, against the theoretical edge for Rocket.

The database sums the hands (`reports.selectors.hand_totals`: one query, grouped by the report's
group, the gaming day and the Rocket rules configuration); this module then works on those few
rows: theoretical edges per configuration, expected win, standard deviation, z-score and flag per
group, the daily series for the chart, and for pot games pots, rake and the check that the
players' results sum to minus the house's (and the carry's).

The spread of a Rocket result: a hand's seats share the dealer's cards, so for a hand with bets
b_i the variance of the house's result is s2 * sum(b_i^2) + c * ((sum b_i)^2 - sum(b_i^2)), with
s2 the variance of one seat's result per unit bet and c the covariance of two seats (both from
the simulation, see `theory`). The theoretical edge's own uncertainty (its interval's half-width
times the handle) is added in quadrature.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from datetime import date

from django.contrib.auth import get_user_model

from reports.models import VarianceRules
from reports.periods import days_bounds
from reports.selectors import hand_totals, settled_hands, with_shift
from reports.services.links import shift_url, table_url
from reports.services.theory import RocketConfig, theoretical_edge
from tables.games.rocket_chart import best_play_chart
from tables.models import Game, Shift, Table
from tables.simulation import Z95

Progress = Callable[[int, str], None]
MONEY = ("hands", "handle", "bets", "win", "carry", "players", "pot")


def rules_for(casino_id: int | None) -> VarianceRules:
    """The casino's variance rules; the defaults when it has none saved (or no casino is named)."""
    found = VarianceRules.objects.filter(casino_id=casino_id).first() if casino_id else None
    return found or VarianceRules(casino_id=casino_id)


def house_edge_report(*, params: dict, progress: Progress) -> dict:
    """Handle, win, hold and the theoretical comparison per group (see the module docstring)."""
    rules = rules_for(params.get("casino"))
    progress(5, "Summing the hands in the database")
    hands = _hands(params)
    rows = hand_totals(hands, group=params["group"])
    progress(60, "Theoretical edges")
    edges = {config: theoretical_edge(config=config) for config in _configs(rows, rules.strategy)}
    progress(90, "Comparing")
    for row in rows:
        _add_theory(row, edges.get(_config(row, rules.strategy)))
    groups = _groups(rows, params["group"], rules)
    return {
        "group": params["group"],
        "strategy": rules.strategy,
        "z_limit": rules.z_limit,
        "groups": groups,
        "totals": _summary("All", None, rows, rules),
        # Hands dealt on paper and entered afterwards (tables/services/back_entry.py): counted in the
        # figures like any hand, and named so the reader knows their cards were keyed from a sheet.
        "back_entered": hands.filter(back_entry__isnull=False).count(),
        "series": daily_series([row for row in rows if row["game"] == Game.ROCKET]),
        "edges": [_edge_record(edge) for edge in edges.values()],
        # The best play as a grid for the floor (computed once per worker process, in the task).
        "chart": best_play_chart().grid() if edges else None,
    }


def _hands(params: dict):
    start, end = days_bounds(date.fromisoformat(params["date_from"]), date.fromisoformat(params["date_to"]))
    hands = settled_hands(
        start=start,
        end=end,
        casino_id=params.get("casino"),
        table_ids=params.get("tables"),
        game=params.get("game"),
    )
    if params.get("shift"):
        hands = with_shift(hands).filter(shift_id=params["shift"])
    if params.get("dealer"):
        hands = (hands if params.get("shift") else with_shift(hands)).filter(dealer_id=params["dealer"])
    return hands


def _config(row: dict, strategy: str) -> RocketConfig | None:
    if row["game"] != Game.ROCKET:
        return None
    return RocketConfig(
        decks=row["decks"],
        start=row["start"] or "left",
        burn=row["burn"],
        penetration=float(row["penetration"]),
        strategy=strategy,
    )


def _configs(rows: list[dict], strategy: str) -> set[RocketConfig]:
    return {config for row in rows if (config := _config(row, strategy)) is not None}


def _add_theory(row: dict, edge) -> None:
    """Expected win and its variances for one row (zero where the game has no theoretical edge)."""
    row["expected"] = row["variance"] = row["theory_sd"] = 0.0
    row["edge_id"] = None
    if edge is None:
        return
    row["edge_id"] = edge.pk
    row["expected"] = edge.edge * row["handle"]
    row["variance"] = edge.seat_variance * row["bets_sq"] + edge.pair_covariance * (
        row["handle_sq"] - row["bets_sq"]
    )
    row["theory_sd"] = edge.half_width / Z95 * row["handle"]


def _groups(rows: list[dict], group: str, rules: VarianceRules) -> list[dict]:
    by_key: dict = defaultdict(list)
    for row in rows:
        by_key[row["group_key"]].append(row)
    labels, links = _labels(group, list(by_key))
    return [
        _summary(labels.get(key, str(key)), key, members, rules, links.get(key, ""))
        for key, members in sorted(by_key.items(), key=lambda item: str(labels.get(item[0], item[0])))
    ]


def _summary(label: str, key, rows: list[dict], rules: VarianceRules, link: str = "") -> dict:
    """One group's figures from its rows (days and configurations)."""
    total = {name: sum(row[name] for row in rows) for name in MONEY}
    games = sorted({row["game"] for row in rows})
    expected = sum(row["expected"] for row in rows)
    # Each configuration's theoretical uncertainty is shared by its rows: add per configuration.
    theory = defaultdict(float)
    for row in rows:
        theory[row["edge_id"]] += row["theory_sd"]
    sd = math.sqrt(sum(row["variance"] for row in rows) + sum(v * v for v in theory.values()))
    rocket_handle = sum(row["handle"] for row in rows if row["game"] == Game.ROCKET)
    rocket_win = sum(row["win"] for row in rows if row["game"] == Game.ROCKET)
    z = (rocket_win - expected) / sd if sd else None
    summary = {
        "key": key,
        "label": label,
        "link": link,
        "games": games,
        **total,
        "average_bet": total["handle"] / total["bets"] if total["bets"] else None,
        "hold": total["win"] / total["handle"] if total["handle"] else None,
        "theoretical": expected / rocket_handle if rocket_handle and sd else None,
        "expected_win": expected if sd else None,
        "sd": sd if sd else None,
        "z": z,
        "flag": z is not None and abs(z) > rules.z_limit,
        "band": [(expected - Z95 * sd) / rocket_handle, (expected + Z95 * sd) / rocket_handle]
        if sd
        else None,
        "first": min(row["first"] for row in rows).isoformat() if rows else None,
        "last": max(row["last"] for row in rows).isoformat() if rows else None,
    }
    summary.update(_pot_figures(rows))
    return summary


def _pot_figures(rows: list[dict]) -> dict:
    """Pot games: pots, the house's revenue (rake), and whether players + house + carry sum to 0."""
    pot_rows = [row for row in rows if row["game"] != Game.ROCKET]
    pots = sum(row["pot"] for row in pot_rows)
    rake = sum(row["win"] for row in pot_rows)
    hands = sum(row["hands"] for row in pot_rows)
    imbalance = sum(row["players"] + row["win"] + row["carry"] for row in rows)
    return {
        "pots": pots,
        "rake": rake,
        "rake_per_hand": rake / hands if hands else None,
        "rake_over_pots": rake / pots if pots else None,
        "imbalance": imbalance,
        "balanced": imbalance == 0,
    }


def daily_series(rows: list[dict]) -> list[dict]:
    """Per gaming day: the day's hold, the cumulative hold and the theoretical with its 95% band."""
    by_day: dict = defaultdict(lambda: {"handle": 0, "win": 0, "expected": 0.0, "variance": 0.0, "hands": 0})
    for row in rows:
        day = by_day[row["gaming_day"]]
        for name in ("handle", "win", "expected", "variance", "hands"):
            day[name] += row[name]
    series, handle, win, expected, variance = [], 0, 0, 0.0, 0.0
    for day, figures in sorted(by_day.items()):
        handle += figures["handle"]
        win += figures["win"]
        expected += figures["expected"]
        variance += figures["variance"]
        if not handle:
            continue
        theory, spread = expected / handle, Z95 * math.sqrt(variance) / handle
        series.append(
            {
                "day": day.isoformat(),
                "hands": figures["hands"],
                "handle": figures["handle"],
                "win": figures["win"],
                "hold": figures["win"] / figures["handle"] if figures["handle"] else None,
                "cumulative_hold": win / handle,
                "theoretical": theory,
                "band": [theory - spread, theory + spread],
            }
        )
    return series


def _labels(group: str, keys: list) -> tuple[dict, dict]:
    """Names and links for the group keys (one query)."""
    if group == "table":
        tables = Table.objects.filter(pk__in=keys).values_list("pk", "name")
        return dict(tables), {pk: table_url(pk) for pk in keys}
    if group == "dealer":
        users = get_user_model().objects.filter(pk__in=keys).values_list("pk", "username")
        return dict(users), {}
    if group == "shift":
        shifts = Shift.objects.filter(pk__in=keys).select_related("user", "table", "pit")
        return {s.pk: f"{s} from {s.started_at:%Y-%m-%d %H:%M}" for s in shifts}, {
            pk: shift_url(pk) for pk in keys if pk
        }
    if group == "game":
        return dict(Game.choices), {}
    return {key: key.isoformat() if hasattr(key, "isoformat") else str(key) for key in keys}, {}


def _edge_record(edge) -> dict:
    return {
        "config": edge.config,
        "endless_edge": edge.endless_edge,
        "fresh_edge": edge.fresh_edge,
        "method": edge.method,
        "edge": edge.edge,
        "half_width": edge.half_width,
        "seat_variance": edge.seat_variance,
        "pair_covariance": edge.pair_covariance,
    }
