"""Hypothesis strategies shared by the games' property tests."""

from hypothesis import strategies as st

from tables.games.collection import FEE, MODES, RAKE


@st.composite
def collections(draw) -> dict:
    """The house's collection of a pot game's options: any mode, with amounts that matter."""
    mode = draw(st.sampled_from(MODES))
    options = {"collection": mode}
    if mode == RAKE:
        options |= {"rake_percent": draw(st.integers(0, 100)), "rake_cap": draw(st.integers(0, 30))}
    if mode == FEE:
        options["fee"] = draw(st.integers(0, 5))
    return options


def expected_house(options: dict, players: int, raked_pot: int) -> int:
    """What the house takes: the fee from every player, or the rake of the pot paid out."""
    if options["collection"] == FEE:
        return options["fee"] * players
    if options["collection"] == RAKE:
        return min(raked_pot * options["rake_percent"] // 100, options["rake_cap"])
    return 0
