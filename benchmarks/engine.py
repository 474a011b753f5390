"""Engine benchmark: hands per second per game, and how fast Rocket's house edge is pinned down.

    python benchmarks/engine.py [--seconds 3] [--strategy always_hit,best] [--target 0.05] [--plain]

Prints, for each game, hands per second through the checked engine (one
process); for Rocket also the fast path and the luck-adjusted fast path (one
process and every core). Then the goal: Rocket's house edge per unit bet within
+/- `--target` percentage points (95% half-width) in under a minute, with the
luck-adjusted estimator; it prints the estimate, the half-width reached and the
time taken. `--plain` also aims at the goal with the plain fast path (real
results only), to show what the adjustment buys. Not a test: figures depend on the machine
and on what else runs on it. No Django needed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tables.simulation import Report, RunSpec, Tally, run  # noqa: E402

GOAL_SECONDS = 60  # the goal: the edge within the target half-width in under a minute
PILOT_HANDS = 20_000  # a first run to measure the spread and the speed
SAFETY = 1.15  # plan a little more than the pilot's variance asks for
PROBE_SECONDS = 0.5  # long enough for the probe to include process start-up, as the real run will

GAMES = [
    ("rocket", {}, 3, "always_hit"),
    ("blackstone", {}, 4, "random"),
    ("starboard", {}, 4, "random"),
    ("pairs", {}, 4, "random"),
    ("pairs", {"continuous": True, "ending": "portland"}, 4, "random"),
]


def timed(spec: RunSpec, seconds: float) -> Report:
    """Run `spec` with as many hands as fit in about `seconds` (judged from first runs of
    growing size, the last of which takes at least PROBE_SECONDS)."""
    hands = 500
    probe = run(replace(spec, hands=hands))
    while probe.seconds < PROBE_SECONDS:
        hands *= 4
        probe = run(replace(spec, hands=hands))
    return run(replace(spec, hands=max(hands, int(probe.hands_per_second * seconds))))


def speeds(seconds: float, seed: str) -> None:
    print(f"== hands per second ({os.cpu_count()} cores; checked engine on one process) ==")
    for game, options, players, strategy in GAMES:
        spec = RunSpec(game=game, players=players, strategy=strategy, seed=seed, workers=1, options=options)
        report = timed(replace(spec, checked=True), seconds)
        extra = f", {report.tally.games / report.seconds:,.0f} games/s" if game == "pairs" else ""
        label = f"{game} {options or ''}".strip()
        print(f"{label:45s} checked engine   {report.hands_per_second:10,.0f} hands/s{extra}")
    base = RunSpec(players=3, seed=seed)
    for label, spec in [
        ("fast path, 1 process", replace(base, workers=1)),
        ("fast path, every core", base),
        ("luck-adjusted, 1 process", replace(base, workers=1, adjusted=True)),
        ("luck-adjusted, every core", replace(base, adjusted=True)),
    ]:
        report = timed(spec, seconds)
        print(f"{'rocket':45s} {label:26s} {report.hands_per_second:10,.0f} hands/s")


def merge(first: Report, second: Report) -> Report:
    tally = Tally().add(first.tally).add(second.tally)
    return Report(second.spec, tally, first.seconds + second.seconds, second.workers)


def goal(spec: RunSpec, target: float) -> Report:
    """Pilot run, then as many hands as the pilot says the target needs; return both merged."""
    started = time.perf_counter()
    pilot = run(replace(spec, hands=PILOT_HANDS, seed=f"{spec.seed}:pilot"))
    width = 100 * pilot.edge_per_unit.half_width
    needed = int(PILOT_HANDS * (width / target) ** 2 * SAFETY) - PILOT_HANDS
    report = pilot if needed <= 0 else merge(pilot, run(replace(spec, hands=needed)))
    return Report(report.spec, report.tally, time.perf_counter() - started, report.workers)


def show_goal(label: str, report: Report, target: float) -> None:
    edge = report.edge_per_unit
    met = "met" if 100 * edge.half_width <= target and report.seconds < GOAL_SECONDS else "NOT met"
    print(
        f"{label}: house edge {100 * edge.mean:.3f}% +/- {100 * edge.half_width:.3f}% (95% CI), "
        f"{report.tally.hands:,} hands in {report.seconds:.1f} s -> goal (+/- {target}% in "
        f"< {GOAL_SECONDS} s) {met}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per speed figure")
    parser.add_argument("--strategy", default="always_hit,best", help="comma-separated Rocket strategies")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--decks", type=int, default=8)
    parser.add_argument("--target", type=float, default=0.05, help="half-width goal, percentage points")
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--plain", action="store_true", help="also reach the goal with the plain fast path")
    parser.add_argument("--skip-speeds", action="store_true")
    args = parser.parse_args()
    if not args.skip_speeds:
        speeds(args.seconds, args.seed)
    for strategy in args.strategy.split(","):
        spec = RunSpec(players=args.players, decks=args.decks, strategy=strategy, seed=args.seed)
        print(f"== Rocket house edge: {strategy}, {args.players} players, {args.decks} decks ==")
        show_goal("luck-adjusted", goal(replace(spec, adjusted=True), args.target), args.target)
        if args.plain:
            show_goal("plain fast path", goal(spec, args.target), args.target)


if __name__ == "__main__":
    main()
