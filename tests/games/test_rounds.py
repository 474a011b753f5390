"""What a points game played for stakes settles when a player leaves it (`leaver_settlement`;
docs/rules/README.md "For stakes")."""

import pytest

from tables.games import IllegalAction
from tables.games.rounds import PointsOptions, leaver_settlement


def settled(scores, leaver, **options):
    options = PointsOptions.build({"point_value": 1, "collection": "none", **options})
    return leaver_settlement(options, scores, leaver, carry=0)


def test_the_leaver_pays_the_leaders_who_stay_and_tied_leaders_split_it_odd_coins_carried():
    money = settled({1: 20, 2: 20, 3: 15, 4: 10}, 4)
    assert money.deltas == {1: 5, 2: 5, 3: 0, 4: -10, "house": 0, "carry": 0}
    money = settled({1: 20, 2: 20, 3: 15, 4: 9}, 4)
    assert (money.deltas[1], money.deltas[2], money.deltas[4], money.carry_out) == (5, 5, -11, 1)
    assert money.result["winners"] == [1, 2] and money.result["loser"] == 4


def test_a_leader_who_leaves_pays_nothing_and_under_everyone_the_others_still_settle():
    assert settled({1: 30, 2: 20, 3: 15}, 1).entries == ()
    money = settled({1: 30, 2: 20, 3: 15}, 1, walkout="everyone")
    assert money.deltas == {1: 0, 2: 5, 3: -5, "house": 0, "carry": 0}


def test_a_game_played_for_nothing_moves_no_money_and_walkout_is_leaver_or_everyone():
    options = PointsOptions.build({})
    assert leaver_settlement(options, {1: 3, 2: 1}, 2, carry=0).entries == ()
    with pytest.raises(IllegalAction, match="walkout is leaver or everyone"):
        PointsOptions.build({"walkout": "nobody"})
