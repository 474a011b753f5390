"""Rocket's exact fresh-shoe edges, the strategy chart, honest intervals and the card counter.

    python benchmarks/rocket_exact.py [--decks 1,2,8] [--strategies always_hit,best,optimum]
        [--counter-hands 400000] [--skip-counter] [--skip-intervals]

Prints, each with the seconds it took:
1. the exact house edge of a hand dealt from a fresh shoe, per strategy and shoe size
   (`tables.games.rocket_exact`), with the endless-shoe edge for comparison; `optimum` is the
   composition-dependent optimum, `chart` the best-play chart (`tables.games.rocket_chart`);
2. the chart itself;
3. 8 decks, 3 seats, cut at 0.8: the luck-adjusted estimate with its interval clustered by shoe
   against the interval that takes every hand as independent;
4. the card counter at one deck by penetration (`tables.rocket_counting`, simulated).
Not a test: the times depend on the machine and on what else runs on it. No Django needed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tables.games.cards import MAX_DECKS, MIN_DECKS, RANKS, composition  # noqa: E402
from tables.games.rocket_chart import best_play_chart  # noqa: E402
from tables.games.rocket_edge import tables_for  # noqa: E402
from tables.games.rocket_exact import solve  # noqa: E402
from tables.rocket_counting import ONE_DECK_EFFECTS, counter_edge, effect_of_removal  # noqa: E402
from tables.simulation import RunSpec, rocket_strategy, run  # noqa: E402

STRATEGIES = [
    "always_hit",
    "fold_at_most_1",
    "fold_at_most_2",
    "fold_at_most_3",
    "pair_chance",
    "pair_cost",
    "best",
    "chart",
    "optimum",
]
PENETRATIONS = [0.5, 0.6, 0.7, 0.8, 0.9]


def fold_for(name: str):
    if name == "optimum":
        return None
    if name == "chart":
        return best_play_chart().fold
    return rocket_strategy(name)


def edges(decks: list[int], names: list[str]) -> None:
    print("1. Exact house edge, hand from a fresh shoe (endless shoe for comparison)")
    print(f"{'strategy':<16}{'endless':>10}" + "".join(f"{f'{d} deck(s)':>16}" for d in decks))
    for name in names:
        started = time.perf_counter()
        fold = fold_for(name)
        endless = tables_for(name, fold).edge
        cells = [f"{100 * endless:9.3f}% ({time.perf_counter() - started:.1f} s)"]
        for d in decks:
            started = time.perf_counter()
            edge = solve(composition(d), fold).edge
            cells.append(f"{100 * edge:7.3f}% ({time.perf_counter() - started:.1f} s)")
        print(f"{name:<16}" + " ".join(cells), flush=True)


def chart() -> None:
    started = time.perf_counter()
    grid = best_play_chart().grid()
    print(f"\n2. Best-play chart ({time.perf_counter() - started:.1f} s): fold when the lowest card on")
    print("   the table is at most the figure (0: hit); rows your cards' total, columns the dealer's")
    print(f"{'':>8}" + "".join(f"{c:>7}" for c in grid["columns"]))
    for label, cells in grid["rows"]:
        print(f"{label:>8}" + "".join(f"{'.' if k is None else k:>7}" for k in cells))


def intervals(hands: int) -> None:
    started = time.perf_counter()
    report = run(RunSpec(players=3, hands=hands, decks=8, seed="intervals", workers=1, adjusted=True))
    clustered, naive = report.edge_per_unit, report.naive_edge_per_unit
    print(f"\n3. 8 decks, 3 seats, cut at 0.8, {hands:,} luck-adjusted hands ({report.seconds:.1f} s):")
    print(
        f"   {100 * clustered.mean:.3f}% +/- {100 * clustered.half_width:.3f}% clustered by shoe "
        f"({report.tally.shoes.count} shoes); as if independent +/- {100 * naive.half_width:.3f}% "
        f"(x{clustered.half_width / naive.half_width:.2f}) [{time.perf_counter() - started:.1f} s]"
    )


def counter(hands: int) -> None:
    print(f"\n4. Card counter, one deck, best play, bets 1 to 10 units, {hands:,} hands per penetration")
    print("   effects of removal (tenths), computed again and checked against the stored ones:")
    for rank in RANKS:
        started = time.perf_counter()
        effect = effect_of_removal(1, rank)
        same = "same" if abs(effect - ONE_DECK_EFFECTS[rank]) < 1e-12 else "DIFFERS from the stored one"
        print(f"   {rank}: {effect:+.6f} ({same}; {time.perf_counter() - started:.1f} s)", flush=True)
    for penetration in PENETRATIONS:
        started = time.perf_counter()
        result = counter_edge(penetration, hands, seed="bench")
        print(
            f"   cut at {penetration:.1f}: counter faces {100 * result.counter.mean:+.3f}% "
            f"+/- {100 * result.counter.half_width:.3f}%, flat bettor {100 * result.flat.mean:+.3f}% "
            f"+/- {100 * result.flat.half_width:.3f}%, big bets on {100 * result.big_bets:.1f}% of hands "
            f"({time.perf_counter() - started:.1f} s)",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", default=",".join(str(d) for d in range(MIN_DECKS, MAX_DECKS + 1)))
    parser.add_argument("--strategies", default=",".join(STRATEGIES))
    parser.add_argument("--counter-hands", type=int, default=400_000)
    parser.add_argument("--interval-hands", type=int, default=100_000)
    parser.add_argument("--skip-counter", action="store_true")
    parser.add_argument("--skip-intervals", action="store_true")
    args = parser.parse_args()
    edges([int(d) for d in args.decks.split(",")], args.strategies.split(","))
    chart()
    if not args.skip_intervals:
        intervals(args.interval_hands)
    if not args.skip_counter:
        counter(args.counter_hands)


if __name__ == "__main__":
    main()
