"""The figures of a par sheet, each with the seconds it took (what `compute_par_sheet` spends).

    python benchmarks/par_sheet.py [--decks 1,8] [--hands 100000] [--games 10000] [--players 4]

Prints, per Rocket shoe size (best play, burn 5, cut at 0.8): the exact fresh-shoe solve, the
exact payment distribution (win, loss, fold rate, standard deviation), the edge as dealt through
the shoe (luck-adjusted simulation, as `reports.services.theory` runs it) and a full table dealt
through the shoe (cards per hand, dry shoes); per pot game (cautious players, the default rake):
the simulated games (rake, seats, length) and the collection per mode. Not a test: the times
depend on the machine and on what else runs on it. Needs no database.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
os.environ.setdefault("DATABASE_URL", "sqlite:///:memory:")

import django  # noqa: E402

django.setup()

from reports.services.par_figures import distribution_figures, pot_run, rocket_payments, rocket_shoe_run  # noqa: E402
from reports.services.par_sheet import HANDS_PER_HOUR, collection_modes  # noqa: E402
from tables.games.replay import games  # noqa: E402
from tables.games.rocket import MAX_PLAYERS  # noqa: E402
from tables.games.rocket_exact import fresh_shoe  # noqa: E402
from tables.simulation import PENETRATION, RunSpec, rocket_strategy, run  # noqa: E402

EDGE_HANDS = 100_000  # as REPORTS_EDGE_HANDS


def timed(label: str, call):
    started = time.perf_counter()
    value = call()
    print(f"{time.perf_counter() - started:7.2f} s  {label}")
    return value


def rocket(decks: int, hands: int) -> None:
    fold = rocket_strategy("best")
    values = timed(f"rocket {decks} decks: exact fresh-shoe solve", lambda: fresh_shoe(decks, "best", fold))
    payments = timed(f"rocket {decks} decks: exact payments (forward pass)", lambda: rocket_payments(values))
    f = distribution_figures(payments["outcomes"])
    print(
        f"          edge {100 * values.edge:.4f}% (exact), sd {f['sd']:.4f}, win {100 * f['win']:.2f}%, "
        f"loss {100 * f['loss']:.2f}%, fold rate {100 * payments['fold_rate']:.2f}%"
    )
    spec = RunSpec(
        players=3, hands=EDGE_HANDS, decks=decks, strategy="best", seed="bench", workers=1, adjusted=True
    )
    dealt = timed(
        f"rocket {decks} decks: edge as dealt to the cut card ({EDGE_HANDS:,} hands)", lambda: run(spec)
    )
    print(f"          edge {dealt.edge_per_unit} per unit bet (simulated, 95%)")
    shoe = timed(
        f"rocket {decks} decks: full table through the shoe ({hands:,} hands)",
        lambda: rocket_shoe_run(
            decks=decks,
            burn=5,
            penetration=PENETRATION,
            strategy="best",
            players=MAX_PLAYERS,
            hands=hands,
            seed="bench",
            progress=lambda *_: None,
        ),  # fmt: skip
    )
    cards = shoe["cards_mean"]
    print(
        f"          cards per hand {cards['value']:.3f} +/- {cards['half_width']:.3f}, "
        f"p95 {shoe['cards_tail']['p95']}, p99 {shoe['cards_tail']['p99']}, max {shoe['cards_max']}, "
        f"dry {100 * shoe['dry_share']['value']:.2f}%"
    )


def pot(game: str, count: int, players: int) -> None:
    options = games()[game].Options.build({"ending": "cutchfeld"} if game == "pairs" else {})
    figures = timed(
        f"{game}: {count:,} games, {players} cautious players",
        lambda: pot_run(
            game=game,
            options=options,
            players=players,
            strategy="cautious",
            games=count,
            seed="bench",
            progress=lambda *_: None,
        ),  # fmt: skip
    )
    per_hour = HANDS_PER_HOUR[game] / figures["hands_per_game"]
    modes = timed(
        f"{game}: collection per mode",
        lambda: collection_modes(options, players, figures["house_per_game"], per_hour),
    )
    print("          " + ", ".join(f"{mode} {m['game']['value']:.3f}/game" for mode, m in modes.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", default="1,8")
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    for decks in (int(d) for d in args.decks.split(",")):
        rocket(decks, args.hands)
    for game in ("blackstone", "starboard", "pairs"):
        pot(game, args.games, args.players)


if __name__ == "__main__":
    main()
