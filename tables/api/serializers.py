"""What the API accepts and what it answers.

Request serializers check the shape of what was sent (a field-level 400 names
the field, and a field they do not know is refused the same way:
`RequestSerializer`); whether the rules allow it is the services' call. Response
serializers render records; none of them writes.
"""

import re
from collections.abc import Mapping

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.settings import api_settings

from casino.limits import MAX_AMOUNT, MAX_BIGINT, shown
from tables.games import Move
from tables.games.base import NAMING, TARGETED
from tables.games.cards import MAX_DECKS, MIN_DECKS, RANKS
from tables.models import ApprovalRequest, Game, Hand, Recycle, SeatSession, Shift, Shoe, Table
from tables.services.hands import RANK_RANGE
from tables.services.players import Identification
from tables.services.settings import MAX_SETTING
from tables.services.shoes import LATEST_RECYCLE, MAX_BURN, shoe_cards_left, shoe_deck

MOVES = [move.value for move in Move]  # every decision any game knows; the engine says which are legal
# An amount: 1 to MAX_AMOUNT units, as the services check (casino/limits.py); a rank: 1 to 10, and
# the sentence says so whichever side it misses.
AMOUNT = {"min_value": 1, "max_value": MAX_AMOUNT}
ZONED_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})")
SEAT_KEY = re.compile(r"[1-9][0-9]{0,2}")  # a seat number as a key: ASCII digits, no leading zero
RANK = {
    "min_value": min(RANKS),
    "max_value": max(RANKS),
    "error_messages": {"min_value": f"{RANK_RANGE}.", "max_value": f"{RANK_RANGE}."},
}

# Not a field of any request: Django's CSRF token, which a form post (the browsable API's) carries in
# its body as the tablet carries it in a header.
TRANSPORT_FIELDS = frozenset({"csrfmiddlewaretoken"})

# Requests


class RequestSerializer(serializers.Serializer):
    """A request's body, the base of every one the API reads: a field it does not know is refused
    (400 naming it) with the fields it does, never dropped. A misspelt field (`{"amout": 500}`)
    used to answer 200 as if it had been sent right, and the value meant was lost. The refusal
    comes with the body's other mistakes, before any service runs, so nothing is written and no
    idempotency key is claimed: a retry that sends the field again is refused again. A change that
    takes no body reads it with `NoBodySerializer`.

    A form-encoded body (the reports' and the rating slips' endpoints take one) may give a field
    twice (`kind=a&kind=b`), which DRF reads as its last value, the first dropped without a word:
    refused too, naming the field, as JSON's key written twice is (`tables/api/parsers.py`). A list
    field (`ListField`) takes its values so, one each time."""

    unknown_field = "Not a field of this request; the fields are {fields}."
    no_field = "This request takes no fields."
    repeated = "Give this field once: given twice, which of its values is meant cannot be told."
    transport = TRANSPORT_FIELDS

    def to_internal_value(self, data):
        refused = self.unknown_fields(data)
        if not refused:
            return super().to_internal_value(data)
        try:
            super().to_internal_value(data)
        except serializers.ValidationError as error:
            refused = {**error.detail, **refused}  # one answer names every mistake
        raise serializers.ValidationError(refused)

    def unknown_fields(self, data) -> dict[str, list[str]]:
        if not isinstance(data, Mapping):
            return {}  # DRF refuses a body that is no object, naming what it is
        fields = self.taken()
        said = self.unknown_field.format(fields=", ".join(fields)) if fields else self.no_field
        refused = dict.fromkeys(sorted(set(data) - set(fields) - self.transport), [said])
        return {**refused, **dict.fromkeys(self.given_twice(data, refused), [self.repeated])}

    def given_twice(self, data, refused: dict) -> list[str]:
        """The fields of a form's body (or a query string) given more than once: a QueryDict keeps
        them all, a parsed JSON body cannot hold a key twice."""
        if not hasattr(data, "getlist"):
            return []
        many = [name for name, field in self.fields.items() if isinstance(field, serializers.ListField)]
        return [name for name in data if name not in {*refused, *many} and len(data.getlist(name)) > 1]

    def taken(self) -> list[str]:
        """The names the request takes, in the order the refusal lists them."""
        return [name for name, field in self.fields.items() if not field.read_only]


class RequestSchema(OpenApiSerializerExtension):
    """The schema says what `RequestSerializer` does: a request's body takes only the fields it
    documents (`additionalProperties: false`), so a client or a fuzzer generated from it knows."""

    target_class = RequestSerializer
    match_subclasses = True

    def map_serializer(self, auto_schema, direction):
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        return {**schema, "additionalProperties": False}


class NoBodySerializer(RequestSerializer):
    """The body of a change that takes none (a cash-out, a retire): any field sent is refused, as a
    cash-out sent `{"amount": 50}` would otherwise cash out every chip without a word."""


class QuerySerializer(RequestSerializer):
    """A list's query string, the base of every list's filters, read by `tables.api.queries` alone:
    a parameter the list does not take is refused (400 naming it, with those it takes), as a field
    of a body is. A misspelt filter (`?tabel=3`) used to be ignored, and the list came back whole as
    if filtered. The list's pagination parameters (context `paging`) are taken too, and DRF's
    `format` (the browsable API's `?format=api`), which no list documents, like a form's CSRF token."""

    unknown_field = "Not a parameter of this list; the parameters are {fields}."
    no_field = "This list takes no parameters."
    repeated = "Give this parameter once: a list is narrowed by one value of it."
    blank = "Give this parameter a value, or leave it out: a list is not narrowed by nothing."

    def unknown_fields(self, data) -> dict[str, list[str]]:
        # A parameter given twice (`?table=1&table=2`) is refused as a form's field is (the base
        # class); a filter given empty (`?table=`, a client's variable left unset) would be read as
        # not given at all, and the whole list came back as if narrowed to one table.
        refused = super().unknown_fields(data)
        empty = [name for name in data if name in self.fields and name not in refused and data[name] == ""]
        return {**refused, **dict.fromkeys(empty, [self.blank])}

    @property
    def transport(self) -> frozenset:
        return frozenset({api_settings.URL_FORMAT_OVERRIDE})

    def taken(self) -> list[str]:
        return [*super().taken(), *self.context.get("paging", ())]


class IdentificationSerializer(RequestSerializer):
    type = serializers.CharField(max_length=40)
    number = serializers.CharField(max_length=60)
    issuer = serializers.CharField(max_length=60)

    def to_internal_value(self, data):
        return Identification(**super().to_internal_value(data))


IDENTIFICATION_HELP = "Asked for when the buy-in takes the player past the casino's reporting threshold."


class SeatOpenSerializer(RequestSerializer):
    seat = serializers.IntegerField(min_value=1, help_text="Seat number, clockwise from the dealer's left.")
    buy_in = serializers.IntegerField(
        min_value=0, max_value=MAX_AMOUNT, default=0, help_text="Chips sold for cash, in units."
    )
    chips = serializers.IntegerField(
        min_value=0,
        max_value=MAX_AMOUNT,
        default=0,
        help_text="Chips the player brings from another seat or table, in units: no cash, no drop. "
        "A buy-in, chips brought, or both.",
    )
    player = serializers.IntegerField(required=False, help_text="A player record's id.")
    card_number = serializers.CharField(max_length=30, allow_blank=True, default="", help_text="Player card.")
    player_name = serializers.CharField(
        max_length=100, allow_blank=True, default="", help_text="Describes an anonymous player."
    )
    identification = IdentificationSerializer(required=False, help_text=IDENTIFICATION_HELP)


class BuyInSerializer(RequestSerializer):
    amount = serializers.IntegerField(**AMOUNT, help_text="More chips for the seated player, in units.")
    identification = IdentificationSerializer(required=False, help_text=IDENTIFICATION_HELP)


class ShoeStartSerializer(RequestSerializer):
    decks = serializers.IntegerField(min_value=MIN_DECKS, max_value=MAX_DECKS)
    kind = serializers.ChoiceField(choices=Shoe.Kind.choices, default=Shoe.Kind.PHYSICAL)
    burn = serializers.IntegerField(
        min_value=0,
        max_value=MAX_BURN,
        required=False,
        help_text="Cards burned after the shuffle. Omitted: 5, or 0 at the games dealt whole from the deck.",
    )
    reason = serializers.CharField(
        max_length=500, allow_blank=True, default="", help_text="Why: asked while the shoe in play can deal."
    )


class HandStartSerializer(RequestSerializer):
    bets = serializers.DictField(
        child=serializers.IntegerField(**AMOUNT),
        default=dict,
        help_text='Rocket: seat number to bet in units, e.g. {"1": 20, "3": 50}. Other games: omit.',
    )

    def validate_bets(self, bets: dict) -> dict[int, int]:
        # Written as a seat's number is written, and no other way: "01" and "1" would be one seat,
        # and one of the two bets would be dropped without a word.
        odd = [seat for seat in bets if not SEAT_KEY.fullmatch(seat)]
        if odd:
            raise serializers.ValidationError(
                f'Bets are keyed by seat number from 1, written plainly (e.g. {{"1": 20}}), '
                f"not {shown(odd[0])}."
            )
        return {int(seat): bet for seat, bet in bets.items()}


class TableSettingsSerializer(RequestSerializer):
    """The settings to change; a field left out stays as it is. The service judges the values."""

    game = serializers.ChoiceField(choices=Game.choices, required=False)
    min_bet = serializers.IntegerField(min_value=0, max_value=MAX_SETTING, required=False)
    max_bet = serializers.IntegerField(min_value=0, max_value=MAX_SETTING, required=False)
    options = serializers.DictField(
        required=False, help_text="The house rules, all of them: they replace the old."
    )
    payout_approval_threshold = serializers.IntegerField(min_value=0, max_value=MAX_SETTING, required=False)
    chip_unit_cents = serializers.IntegerField(min_value=0, max_value=MAX_SETTING, required=False)
    reason = serializers.CharField(max_length=500, help_text="Why: kept in the audit log with the change.")

    # Only the fields sent change, so a name that is no setting ("maxbet") would change nothing.
    unknown_field = "Not a table setting; the settings are {fields}."


class ExpectedSeqSerializer(RequestSerializer):
    expected_seq = serializers.IntegerField(
        min_value=0, help_text="The hand's `seq` as the sender last saw it; any other value is a 409."
    )


class CardSerializer(ExpectedSeqSerializer):
    rank = serializers.IntegerField(
        **RANK,
        allow_null=True,
        default=None,
        help_text="The rank that came out of a physical shoe; null: a system shoe's next card.",
    )


class TableCardSerializer(RequestSerializer):
    rank = serializers.IntegerField(**RANK)
    expected_seq = serializers.IntegerField(
        min_value=0,
        allow_null=True,
        default=None,
        help_text="Optional: a card-reading shoe reads cards in the order they leave it, so it has no "
        "screen to go stale; when given, a different `seq` is a 409 as elsewhere.",
    )


class DecisionSerializer(ExpectedSeqSerializer):
    move = serializers.ChoiceField(choices=MOVES)
    count = serializers.IntegerField(min_value=1, required=False, help_text="Blackstone: cards to take.")
    card = serializers.ListField(
        child=serializers.IntegerField(),
        min_length=2,
        max_length=2,
        required=False,
        help_text="Continuous Pairs: the [seat, rank] card a fold takes.",
    )
    target = serializers.IntegerField(
        min_value=1, max_value=99, required=False, help_text="Secret-hand games: the seat a steal, attack, "
        "gift or see aims at."
    )
    ranks = serializers.ListField(
        child=serializers.IntegerField(**RANK, allow_null=True),
        max_length=20,
        required=False,
        help_text="Secret-hand games: the ranks the move reveals (null for a card that stays face down), "
        "e.g. [7] for a play, [3, 9] for a see.",
    )

    def validate(self, data: dict) -> dict:
        move = data["move"]
        if move == Move.TAKE and "count" not in data:
            raise serializers.ValidationError({"count": ["Say how many cards to take."]})
        if move != Move.TAKE and "count" in data:
            raise serializers.ValidationError({"count": ["Only a take has a count."]})
        if move != Move.FOLD and "card" in data:
            raise serializers.ValidationError({"card": ["Only a fold takes a card."]})
        if move not in TARGETED and "target" in data:
            raise serializers.ValidationError({"target": [f"Only a {', '.join(TARGETED)} aims at a seat."]})
        if move in TARGETED and "target" not in data:
            raise serializers.ValidationError({"target": [f"Say which seat the {move} aims at."]})
        if move not in TARGETED | NAMING and "ranks" in data:
            raise serializers.ValidationError({"ranks": [f"A {move} reveals no cards."]})
        return data

    @property
    def action(self) -> tuple:
        """The decision as the services record it: ("hit",), ("take", 3), ("fold", 4, 7), ("play", 7),
        ("gift", 2, 5)."""
        data = self.validated_data
        parts = [data["count"]] if "count" in data else data.get("card", [])
        if "target" in data:
            parts = [data["target"]]
        return (data["move"], *parts, *data.get("ranks", []))


class VoidRequestSerializer(ExpectedSeqSerializer):
    reason = serializers.CharField(max_length=500, help_text="What went wrong (a misdeal, ...).")


class CardCorrectionSerializer(ExpectedSeqSerializer):
    card_seq = serializers.IntegerField(
        min_value=1, help_text="The step of the card to correct: the hand's `correctable.seq`."
    )
    rank = serializers.IntegerField(**RANK, help_text="The rank the card really is.")
    reason = serializers.CharField(max_length=500, help_text="What was mis-keyed.")
    signer = serializers.CharField(max_length=150, help_text="The pit manager who signs: their username.")
    secret = serializers.CharField(
        max_length=128,
        write_only=True,
        trim_whitespace=False,
        style={"input_type": "password"},
        help_text="The pit manager's password or PIN, typed afresh.",
    )


class ApprovalFilter(QuerySerializer):
    table = serializers.IntegerField(
        required=False, min_value=1, max_value=MAX_BIGINT, help_text="Only this table's requests."
    )


class ApprovalWithdrawSerializer(RequestSerializer):
    reason = serializers.CharField(max_length=500, help_text="Why the request is taken back.")


class ApprovalDecisionSerializer(RequestSerializer):
    reason = serializers.CharField(
        max_length=500, allow_blank=True, default="", help_text="Required to reject; optional to approve."
    )
    secret = serializers.CharField(
        max_length=128,
        allow_blank=True,
        default="",
        write_only=True,
        trim_whitespace=False,
        style={"input_type": "password"},
        help_text="Approving a fill or credit signs its slip: the pit manager's password or PIN, afresh.",
    )


# Responses


class ZonedDateTimeField(serializers.DateTimeField):
    """An ISO 8601 time with its time zone, and nothing else: a shift's times are compared across
    tablets, so a time without a zone (read as the server's) is refused, not guessed."""

    def to_internal_value(self, value):
        if isinstance(value, str) and not ZONED_TIME.fullmatch(value):
            self.fail("zone")
        return super().to_internal_value(value)

    default_error_messages = {
        "zone": "Give the time as ISO 8601 with its time zone, e.g. 2026-11-29T21:00:00Z or ...+01:00.",
    }


class ShiftTimeSerializer(RequestSerializer):
    at = ZonedDateTimeField(
        required=False,
        default=None,
        help_text="When it happened, with its time zone (now if omitted); never over a minute ahead.",
    )


class ShiftStartSerializer(ShiftTimeSerializer):
    user = serializers.CharField(max_length=150, help_text="The username of the dealer or pit manager.")
    table = serializers.IntegerField(
        min_value=1, max_value=MAX_BIGINT, required=False, help_text="A dealer's table (one of yours)."
    )
    pit = serializers.IntegerField(
        min_value=1, max_value=MAX_BIGINT, required=False, help_text="A pit manager's pit."
    )

    def validate(self, data: dict) -> dict:
        if ("table" in data) == ("pit" in data):
            raise serializers.ValidationError("Give a table (for a dealer) or a pit (for a pit manager).")
        return data


class ShiftRotateSerializer(ShiftTimeSerializer):
    table = serializers.IntegerField(min_value=1, max_value=MAX_BIGINT, help_text="The dealer's next table.")


class DetailSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="What was wrong, in a sentence staff understand.")


class SeatSessionSerializer(serializers.ModelSerializer):
    table = serializers.IntegerField(source="seat.table_id", read_only=True)
    seat = serializers.IntegerField(source="seat.number", read_only=True)
    chips = serializers.SerializerMethodField(help_text="Chips in front of the player, in units.")

    class Meta:
        model = SeatSession
        fields = ["id", "table", "seat", "player", "player_name", "buy_in", "chips", "started_at", "ended_at"]

    @extend_schema_field(OpenApiTypes.INT)
    def get_chips(self, session: SeatSession) -> int:
        return self.context["chips"].get(session.pk, 0)


class TableSerializer(serializers.ModelSerializer):
    pit = serializers.CharField(source="pit.name", read_only=True)
    casino = serializers.CharField(source="pit.casino.name", read_only=True)
    shoe = serializers.IntegerField(
        source="shoe_in_play", read_only=True, allow_null=True, help_text="The shoe in play, if any."
    )
    open_hand = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="The hand in progress or awaiting approval, if any."
    )

    class Meta:
        model = Table
        fields = [
            "id",
            "name",
            "pit",
            "casino",
            "game",
            "min_bet",
            "max_bet",
            "chip_unit_cents",
            "options",
            "payout_approval_threshold",
            "shoe",
            "open_hand",
        ]


class TableDetailSerializer(TableSerializer):
    seats = serializers.SerializerMethodField(help_text="The players seated now, by seat number.")

    class Meta(TableSerializer.Meta):
        fields = TableSerializer.Meta.fields + ["seats"]

    @extend_schema_field(SeatSessionSerializer(many=True))
    def get_seats(self, table: Table) -> list[dict]:
        return SeatSessionSerializer(self.context["seated"], many=True, context=self.context).data


class RecycleSerializer(serializers.ModelSerializer):
    cards = serializers.IntegerField(read_only=True, help_text="Discards recycled.")
    order = serializers.SerializerMethodField(help_text="A system shoe's recycled order, once it is retired.")
    salt = serializers.SerializerMethodField(help_text="A system shoe's recycle salt, once it is retired.")

    class Meta:
        model = Recycle
        fields = ["hand", "shoe_position", "cards", "ranks", "burned", "at", "commitment", "order", "salt"]

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField(), allow_null=True))
    def get_order(self, recycle: Recycle) -> list[int] | None:
        return recycle.order if _revealed(recycle.shoe) else None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_salt(self, recycle: Recycle) -> str | None:
        return recycle.salt if _revealed(recycle.shoe) else None


def _revealed(shoe: Shoe) -> bool:
    # Shown only once the shoe is out of play: earlier it would tell the next cards.
    return shoe.state == Shoe.State.RETIRED and shoe.kind == Shoe.Kind.SYSTEM


def _deck(shoe: Shoe) -> Recycle | None:
    """The deck the shoe deals from now (`shoe_deck`). A new shoe (nothing out but its burn) was never
    recycled; any other may have been before its own shuffle was dealt out (a Monster round reshuffles
    the whole deck), so its latest recycle is read."""
    if shoe.cards_out > shoe.burn and "latest_recycle" not in shoe.__dict__:
        shoe.latest_recycle = LATEST_RECYCLE.first(shoe.pk)
    return shoe_deck(shoe)


class ShoeSerializer(serializers.ModelSerializer):
    cards_left = serializers.SerializerMethodField(help_text="Cards still in the shoe.")
    order = serializers.SerializerMethodField(help_text="A system shoe's card order, once it is retired.")
    recycles = serializers.SerializerMethodField(help_text="Decks recycled from the discards mid-hand.")
    salt = serializers.SerializerMethodField(help_text="A system shoe's salt, once it is retired.")

    class Meta:
        model = Shoe
        fields = [
            "id",
            "table",
            "decks",
            "kind",
            "burn",
            "penetration",
            "state",
            "created_at",
            "retired_at",
            "retire_reason",
            "cards_out",
            "cards_left",
            "cut_position",
            "cut_card_out",
            "commitment",
            "order",
            "salt",
            "recycles",
        ]

    @extend_schema_field(OpenApiTypes.INT)
    def get_cards_left(self, shoe: Shoe) -> int:
        return shoe_cards_left(shoe, _deck(shoe))

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField(), allow_null=True))
    def get_order(self, shoe: Shoe) -> list[int] | None:
        return shoe.order if _revealed(shoe) else None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_salt(self, shoe: Shoe) -> str | None:
        return shoe.salt if _revealed(shoe) else None

    @extend_schema_field(RecycleSerializer(many=True))
    def get_recycles(self, shoe: Shoe) -> list[dict]:
        if _deck(shoe) is None:  # never recycled
            return []
        return RecycleSerializer(shoe.recycles.order_by("shoe_position"), many=True).data


class ApprovalSerializer(serializers.ModelSerializer):
    requested_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    decided_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = ApprovalRequest
        fields = [
            "id",
            "kind",
            "table",
            "hand",
            "transaction",
            "amount",
            "reason",
            "requested_by",
            "requested_at",
            "status",
            "decided_by",
            "decided_at",
            "decision_reason",
        ]


class ShiftSerializer(serializers.ModelSerializer):
    user = serializers.SlugRelatedField(slug_field="username", read_only=True)
    started_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    ended_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = Shift
        fields = [
            "id", "user", "table", "pit", "started_at", "started_by", "ended_at", "ended_by", "ended_reason"
        ]


# The hand as the tablet shows it: `tables.screens.hand_screen`, described field by field.


class ScreenTableSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.ChoiceField(choices=Game.choices)
    game_name = serializers.CharField()
    min_bet = serializers.IntegerField()
    max_bet = serializers.IntegerField()


class ScreenCardSerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True, help_text="Null: a card dealt face down.")
    why = serializers.CharField(help_text="deal, tiebreak, hit, take, replace, in play, ...")
    discarded = serializers.BooleanField(help_text="Replaced as a pair on the deal.")


class ScreenSeatSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    player = serializers.CharField(allow_blank=True)
    chips = serializers.IntegerField(help_text="Chips in front of the player, in units.")
    committed = serializers.IntegerField(help_text="Bet or ante taken up front, in units.")
    cards = ScreenCardSerializer(many=True)
    status = serializers.CharField(allow_blank=True, help_text='The seat\'s standing: "in", "folded", ...')
    to_act = serializers.BooleanField()
    card_due = serializers.BooleanField()


class ScreenNextSerializer(serializers.Serializer):
    """What the hand waits for, as the rules engine says."""

    kind = serializers.ChoiceField(choices=["card", "decision", "finished", "voided"])
    says = serializers.CharField(help_text="The sentence the tablet shows.")
    seat = serializers.IntegerField(required=False, allow_null=True)
    to = serializers.CharField(required=False, help_text="card: seat, dealer, common or centre.")
    why = serializers.CharField(required=False, help_text="card: deal, tiebreak, hit, take, draw, ...")
    place = serializers.IntegerField(
        required=False, allow_null=True, help_text="A system shoe: the rank of the card to place next."
    )
    face_down = serializers.BooleanField(
        required=False,
        help_text="card: dealt face down (secret-hand games); send no rank at a physical table.",
    )
    pile = serializers.BooleanField(
        required=False,
        help_text="card: from the game's own pile (Goblin Poker's pitched cards): key its rank.",
    )
    reshuffle = serializers.BooleanField(
        required=False,
        help_text="card: the rules shuffle the deck again first (a Monster round, Five Cards' set-aside "
        "cards); a system shoe shows no card to place until the card is asked for.",
    )


class ScreenShoeSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Shoe.Kind.choices)
    physical = serializers.BooleanField()
    decks = serializers.IntegerField()
    burn = serializers.IntegerField()
    cards_out = serializers.IntegerField()
    cards_left = serializers.IntegerField()
    cut_position = serializers.IntegerField(allow_null=True)
    cut_card_out = serializers.BooleanField()
    in_play = serializers.BooleanField()


class ScreenRecycleSerializer(serializers.Serializer):
    position = serializers.IntegerField(help_text="Shoe position of the recycled deck's first card.")
    cards = serializers.IntegerField(help_text="Discards shuffled into the new deck.")
    burned = serializers.IntegerField()
    says = serializers.CharField(help_text='E.g. "Deck recycled from 30 discards, 5 burned."')


class ScreenActionsSerializer(serializers.Serializer):
    """The legal decisions of the seat to act; post one to /api/hands/{id}/decisions/."""

    seat = serializers.IntegerField()
    moves = serializers.ListField(child=serializers.ChoiceField(choices=MOVES))
    fold_price = serializers.IntegerField(allow_null=True, help_text="What a fold costs now, in units.")
    min_take = serializers.IntegerField(allow_null=True)
    max_take = serializers.IntegerField(allow_null=True)
    fold_cards = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="Continuous Pairs: the [seat, rank] cards a fold may take.",
    )
    draw_fee = serializers.IntegerField(allow_null=True, help_text="Starboard: what a draw costs.")
    fold_picks_card = serializers.BooleanField()
    targeted = serializers.ListField(
        child=serializers.ChoiceField(choices=MOVES), help_text="Moves that name a `target` seat."
    )
    naming = serializers.ListField(
        child=serializers.ChoiceField(choices=MOVES), help_text="Moves that name the `ranks` they reveal."
    )
    targets = serializers.ListField(child=serializers.IntegerField(), help_text="Seats a move may aim at.")
    columns = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Five Cards: the targets whose columns the drawn card may go on (`place` names one).",
    )


class ScreenCorrectableSerializer(serializers.Serializer):
    """The last card, which may still be corrected: post to /api/hands/{id}/card-corrections/."""

    seq = serializers.IntegerField(help_text="The step the card was recorded at: send it as `card_seq`.")
    rank = serializers.IntegerField(help_text="Its rank as the hand plays it now.")
    to = serializers.CharField(help_text='Who it went to, e.g. "Seat 2", "Dealer".')


class ScreenPaymentSerializer(serializers.Serializer):
    party = serializers.CharField(help_text='A seat number, "house", "carry".')
    who = serializers.CharField()
    amount = serializers.IntegerField()
    reason = serializers.CharField()


class ScreenHouseTakeSerializer(serializers.Serializer):
    amount = serializers.IntegerField(help_text="Units the house takes from this hand.")
    says = serializers.CharField(help_text="The sentence the tablet shows before the confirm.")


class ScreenSettlementSerializer(serializers.Serializer):
    """Who pays and who is paid, for the dealer to confirm."""

    house_take = ScreenHouseTakeSerializer(
        allow_null=True, help_text="Pot games under the rake or the fee: what the house takes."
    )
    pays = ScreenPaymentSerializer(many=True)
    paid = ScreenPaymentSerializer(many=True)
    net = serializers.DictField(child=serializers.IntegerField(), help_text="Party to its net change.")
    carry_out = serializers.IntegerField()
    shortfalls = serializers.DictField(child=serializers.IntegerField())
    result = serializers.DictField(help_text="Game-specific facts (Pairs: the scorer and points).")
    game_end = serializers.CharField(
        allow_null=True, help_text="Pairs: how the game ended, and its ending, when this round ended it."
    )


class ScreenApprovalSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=ApprovalRequest.Kind.choices)
    kind_label = serializers.CharField()
    status = serializers.ChoiceField(choices=ApprovalRequest.Status.choices)
    amount = serializers.IntegerField(allow_null=True)
    reason = serializers.CharField(allow_blank=True)
    decision_reason = serializers.CharField(allow_blank=True)


class HandScreenSerializer(serializers.Serializer):
    """A hand as the tablet shows it, rebuilt from its records (`tables.screens.hand_screen`)."""

    hand = serializers.IntegerField(help_text="The hand's id.")
    number = serializers.IntegerField(help_text="Hands are numbered per table from 1.")
    table = ScreenTableSerializer()
    status = serializers.ChoiceField(choices=Hand.Status.choices)
    status_label = serializers.CharField()
    seq = serializers.IntegerField(help_text="Send it back as `expected_seq` with the next step.")
    seats = ScreenSeatSerializer(many=True)
    dealer = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="Rocket: the dealer's cards."
    )
    common = serializers.DictField(allow_null=True, help_text="Starboard: cards, discards, button.")
    centre = serializers.DictField(
        allow_null=True, help_text="Blackstone: white stones and black-stone seats."
    )
    pot = serializers.IntegerField(allow_null=True)
    scores = serializers.DictField(allow_null=True, help_text="Pairs: scores going in and the target.")
    secret = serializers.DictField(
        allow_null=True, help_text="Secret-hand games: the pot carried in, the face-down piles, the round."
    )
    points = serializers.DictField(
        allow_null=True,
        help_text="Points games: the target, the centre's cards, whether the game is over, Five "
        "Cards' columns, and `last_round`: what Sweep's or Kitty's last round took, in words.",
    )
    turn = serializers.IntegerField(allow_null=True, help_text="The seat a card or decision is due for.")
    next = ScreenNextSerializer()
    shoe = ScreenShoeSerializer()
    recycled = ScreenRecycleSerializer(many=True, help_text="The shoe ran dry in this hand: decks recycled.")
    actions = ScreenActionsSerializer(allow_null=True)
    correctable = ScreenCorrectableSerializer(
        allow_null=True, help_text="Null unless the last record is a card keyed from a physical shoe."
    )
    settlement = ScreenSettlementSerializer(allow_null=True)
    approvals = ScreenApprovalSerializer(many=True)
    waiting_for = serializers.ChoiceField(
        choices=ApprovalRequest.Kind.choices, allow_null=True, help_text="The pending request, if any."
    )
    offline = serializers.DictField(
        allow_null=True,
        help_text="While the hand can be played: what a tablet's offline keypad offers (receivers, "
        "moves, where every card goes); docs/tablet.md \"When the network fails\".",
    )
