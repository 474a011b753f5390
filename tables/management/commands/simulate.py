"""`manage.py simulate`: play many simulated hands and print the house edge or pot figures.

A thin wrapper over `tables.simulation`; see docs/simulation.md for what the
figures mean.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from tables.games import IllegalAction
from tables.simulation import BURN, GAMES, PENETRATION, RunSpec, run


class Command(BaseCommand):
    help = "Simulate hands of a game and print house edge (Rocket) or pot figures, with 95% intervals."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--game", choices=GAMES, default="rocket")
        parser.add_argument("--players", type=int, default=3)
        parser.add_argument("--hands", type=int, default=100_000, help="hands (Pairs: whole games)")
        parser.add_argument("--strategy", default=None, help="always_hit, fold_at_most_K, pair_chance, ...")
        parser.add_argument("--decks", type=int, default=8, help="Rocket's shoe")
        parser.add_argument("--seed", default=None, help="reproducible shuffles; default: the OS CSPRNG")
        parser.add_argument("--workers", type=int, default=None, help="processes; default: every core")
        parser.add_argument("--checked", action="store_true", help="Rocket through the checked engine")
        parser.add_argument(
            "--adjusted",
            action="store_true",
            help="Rocket: luck-adjusted edge estimate (same mean, less spread)",
        )
        parser.add_argument("--bet", type=int, default=10, help="each Rocket seat's bet, a multiple of 10")
        parser.add_argument("--chips", type=int, default=100, help="each pot-game player's chips")
        parser.add_argument("--burn", type=int, default=BURN)
        parser.add_argument("--penetration", type=float, default=PENETRATION)
        parser.add_argument("--options", default="{}", help='house rules as JSON, e.g. {"start": "button"}')

    def handle(self, *args, **opts) -> None:
        try:
            options = json.loads(opts["options"])
        except json.JSONDecodeError as error:
            raise CommandError(f"--options must be a JSON object: {error}") from None
        spec = RunSpec(
            game=opts["game"],
            players=opts["players"],
            hands=opts["hands"],
            strategy=opts["strategy"],
            decks=opts["decks"],
            seed=opts["seed"],
            workers=opts["workers"],
            checked=opts["checked"],
            adjusted=opts["adjusted"],
            bet=opts["bet"],
            chips=opts["chips"],
            burn=opts["burn"],
            penetration=opts["penetration"],
            options=options,
        )
        try:
            report = run(spec)
        except IllegalAction as error:
            raise CommandError(str(error)) from None
        for line in report.lines():
            self.stdout.write(line)
