"""The casino floor and what happens at its tables.

Floor: casinos, pits, tables, seats and seat sessions. Play: shoes, hands, and
for every hand each card that left the shoe and each decision, in order.

Invariants: a table spreads exactly one game; its limits are whole units with
0 < minimum <= maximum (Rocket limits are multiples of 10); a shoe holds 1 to 8
Pairs decks; a table has at most one shoe in play and at most one open hand; a
seat has at most one open session. Card events and decisions are append-only
(the database refuses UPDATE and DELETE) and hash-chained per table, and so are recycles
(a shoe that ran dry mid-hand refilled with its discards) and card corrections (a mis-keyed
card's rank put right, the card event itself unchanged); within a hand they share one
sequence (1, 2, 3...), so a replay knows their order.
"""

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, OuterRef, Q, Subquery
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce
from django.db.models.query import ModelIterable
from django.utils import timezone

from ledger.models import AppendOnly, AppendOnlyQuerySet, Chained, Sealed, utc_iso
from tables.games import rounds
from tables.games.cards import MAX_DECKS, MIN_DECKS, RANKS


class Game(models.TextChoices):
    ROCKET = "rocket", "Rocket"
    BLACKSTONE = "blackstone", "Blackstone"
    STARBOARD = "starboard", "Starboard"
    PAIRS = "pairs", "Pairs"
    # The booklet's secret-hand pot games (docs/rules/<game>.md): hands dealt face down.
    HAWTHORN = "hawthorn", "Hawthorn"
    GOBLIN_POKER = "goblin_poker", "Goblin Poker"
    MONSTER = "monster", "Monster"
    REGENT = "regent", "Regent"
    TROLL_GUTS = "troll_guts", "Troll Guts"
    # The booklet's points and bidding games (tables.games.rounds): scored in rounds to a score.
    PORT = "port", "Port"
    SWEEP = "sweep", "Sweep"
    KITTY = "kitty", "Kitty"
    VENTURE = "venture", "Venture"
    FIVE_CARDS = "five_cards", "Five Cards"
    PICKUP = "pickup", "Pickup"


# The secret-hand games: each game is dealt from a freshly shuffled deck, so a shoe deals one game.
SECRET_HANDS = (Game.HAWTHORN, Game.GOBLIN_POKER, Game.MONSTER, Game.REGENT, Game.TROLL_GUTS)
POINTS_GAMES = tuple(Game(name) for name in rounds.POINTS_GAMES)
WHOLE_DECK = tuple(Game(name) for name in rounds.WHOLE_DECK)  # a fresh shoe, no burn, every round


class Casino(models.Model):
    name = models.CharField(max_length=100, unique=True)

    def __str__(self):
        return self.name


class Pit(models.Model):
    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="pits", db_index=False)
    name = models.CharField(max_length=100)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["casino", "name"], name="pit_name_unique_in_casino")]

    def __str__(self):
        return f"{self.casino} / {self.name}"


# What every hand records of its table's settings when it starts (`Hand.limits`).
LIMITS = ("min_bet", "max_bet", "payout_approval_threshold", "chip_unit_cents")


class Table(Sealed, models.Model):
    """A table of a pit. Created and changed only through `tables.services.settings` (the pit's
    new-table and settings pages, the API, the admin), which checks and audits every change.

    Sealed (`ledger.seals`) in its own chain as it is created and as its settings change: the game,
    limits, options and threshold every hand is judged by, and the chip value every count is
    priced in. Opening and closing write counts (`TableCount`, sealed), not the table's row."""

    # What a settings change may change once the table is sealed at its creation (`Sealed`).
    seal_changes = frozenset(
        {"game", "min_bet", "max_bet", "options", "payout_approval_threshold", "chip_unit_cents"}
    )

    pit = models.ForeignKey(Pit, on_delete=models.PROTECT, related_name="tables", db_index=False)
    name = models.CharField(max_length=100)
    game = models.CharField(max_length=20, choices=Game.choices)
    min_bet = models.PositiveIntegerField(help_text="Smallest bet or ante, in units.")
    max_bet = models.PositiveIntegerField(help_text="Largest bet, in units.")
    chip_unit_cents = models.PositiveIntegerField(
        default=100, help_text="What one unit is worth, in cents of the house currency."
    )
    options = models.JSONField(default=dict, blank=True, help_text="House-rule options in force.")
    payout_approval_threshold = models.PositiveIntegerField(
        default=1000, help_text="A payout above this many units waits for a pit manager's approval."
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pit", "name"], name="table_name_unique_in_pit"),
            models.CheckConstraint(
                condition=Q(min_bet__gt=0) & Q(min_bet__lte=F("max_bet")), name="table_limits_ordered"
            ),
        ]
        permissions = [
            ("deal_table", "Can deal hands at a table"),
            ("supervise_table", "Can supervise tables and approve requests"),
        ]

    def __str__(self):
        return self.name

    def seal_content(self) -> dict:
        return {
            "pit": self.pit_id,
            "name": self.name,
            "game": self.game,
            "min_bet": self.min_bet,
            "max_bet": self.max_bet,
            "chip_unit_cents": self.chip_unit_cents,
            "options": self.options,
            "payout_approval_threshold": self.payout_approval_threshold,
        }

    def limits(self) -> dict[str, int]:
        """The limits and threshold in force, as each hand records them (`Hand.limits`)."""
        return {name: getattr(self, name) for name in LIMITS}

    def house_rules(self):
        """The table's options as its game's engine reads them, every default filled in (the engine
        owns the defaults: Blackstone's ante 5, Starboard's 1). Raises IllegalAction if impossible."""
        from tables.games.replay import games

        return games()[self.game].Options.build(self.options)

    def ante(self, players: int) -> int:
        """What each player antes as a hand of `players` starts. Monster's booklet ante depends on
        how many play (`MonsterOptions.ante_for`: 2 with four or five, 1 with six or more)."""
        rules = self.house_rules()
        return rules.ante_for(players) if hasattr(rules, "ante_for") else rules.ante

    def clean(self):
        from tables.games import IllegalAction

        try:
            self.house_rules()
        except (IllegalAction, TypeError) as error:
            raise ValidationError({"options": str(error)}) from error
        if self.game == Game.ROCKET and (self.min_bet % 10 or self.max_bet % 10):
            raise ValidationError(
                "Rocket limits must be multiples of 10 units: payouts are in tenths of a bet."
            )


class Shoe(Sealed, models.Model):
    """A shoe at a table, from its shuffle (or a physical shoe taken into play) to its retirement.

    Sealed (`ledger.seals`) in its table's chain as it starts and as it retires: the decks, kind,
    burn, penetration and cut card the card accounting and the payouts rest on, and a system
    shoe's commitment (which binds its order and salt: those stay secret until it retires, so
    they are never sealed). `cards_out` and `cut_card_out` move with every card and are not
    sealed: every card is a chained `CardEvent` carrying its place in the shoe."""

    # What retiring changes once the shoe is sealed at its start (`ledger.models.Sealed`).
    seal_changes = frozenset({"state", "retired_at", "retire_reason"})

    class Kind(models.TextChoices):
        PHYSICAL = "physical", "Physical (keyed in by the dealer)"
        SYSTEM = "system", "System-shuffled"

    class State(models.TextChoices):
        IN_PLAY = "in_play", "In play"
        RETIRED = "retired", "Retired"

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="shoes")
    decks = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.PHYSICAL)
    burn = models.PositiveSmallIntegerField(default=5, help_text="Cards burned after every shuffle.")
    penetration = models.DecimalField(
        max_digits=3,
        decimal_places=2,
        default="0.80",
        help_text="Share of the shoe dealt before the cut card.",
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.IN_PLAY)
    created_at = models.DateTimeField(auto_now_add=True)
    cut_position = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="The card after which the cut card comes out (counted from the top)."
    )
    cards_out = models.PositiveSmallIntegerField(default=0, help_text="Cards that have left the shoe.")
    cut_card_out = models.BooleanField(default=False)
    # System-shuffled shoes: the commitment is stored before the first card;
    # order and salt are shown only once the shoe is retired.
    commitment = models.CharField(max_length=64, blank=True)
    order = models.JSONField(null=True, blank=True)
    salt = models.CharField(max_length=64, blank=True)
    retired_at = models.DateTimeField(null=True, blank=True)
    retire_reason = models.CharField(
        max_length=500, blank=True, help_text="Why it was replaced while it could still deal."
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(decks__gte=MIN_DECKS) & Q(decks__lte=MAX_DECKS), name="shoe_holds_1_to_8_decks"
            ),
            models.UniqueConstraint(
                fields=["table"], condition=Q(state="in_play"), name="one_shoe_in_play_per_table"
            ),
        ]

    def __str__(self):
        return f"{self.table}: {self.decks}-deck {self.get_kind_display().lower()} shoe"

    def seal_content(self) -> dict:
        return {
            "table": self.table_id,
            "decks": self.decks,
            "kind": self.kind,
            "burn": self.burn,
            # unsaved, the default is the string "0.80"; read back, a Decimal: sealed as the column holds it
            "penetration": f"{Decimal(str(self.penetration)):.2f}",
            "cut_position": self.cut_position,
            "commitment": self.commitment,
            "created_at": utc_iso(self.created_at),
            "state": self.state,
            "retired_at": utc_iso(self.retired_at),
            "retire_reason": self.retire_reason,
        }


class Seat(Sealed, models.Model):
    """A place at a table. Sealed in the table's chain as it is made (the first sit-down there), so
    that a seat renumbered or moved in the database, which would put every session held there at
    another place, is named by `verify_ledger`. It never changes."""

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="seats", db_index=False)
    number = models.PositiveSmallIntegerField(help_text="Clockwise from the dealer's left, from 1.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="seat_number_unique")]

    def __str__(self):
        return f"{self.table} seat {self.number}"

    def seal_content(self) -> dict:
        return {"table": self.table_id, "number": self.number}


class Player(Sealed, models.Model):
    """A person who plays: a name, a player-card number (unique in the casino, blank for a player
    known only by name) and the identification cash reporting asks for (type, number, issuer),
    which only the pit and auditors see, never the tablet.

    Two records of one person are merged by pointing the duplicate at the record kept
    (`merged_into`): the seat sessions and cash records are history and keep the player they were
    written with; every read resolves the duplicate through `merged_into` (`Player.resolved`,
    `tables.players.player_ids`).

    Sealed (`ledger.seals`) in the casino's chain as it is created, identified and merged: whose
    cash the cash reports add up (`merged_into`) and whom they name (the identification)."""

    # What identifying and merging change once the player is sealed at its creation (`Sealed`).
    seal_changes = frozenset({"id_type", "id_number", "id_issuer", "merged_into"})

    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="players")
    name = models.CharField(max_length=100)
    card_number = models.CharField(max_length=30, blank=True)
    id_type = models.CharField("identification type", max_length=40, blank=True)
    id_number = models.CharField("identification number", max_length=60, blank=True)
    id_issuer = models.CharField("identification issuer", max_length=60, blank=True)
    merged_into = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="duplicates"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["casino", "card_number"],
                condition=~Q(card_number=""),
                name="player_card_unique_in_casino",
            )
        ]

    def __str__(self):
        return f"{self.name} ({self.card_number})" if self.card_number else self.name

    @property
    def identified(self) -> bool:
        return bool(self.id_type and self.id_number and self.id_issuer)

    def seal_content(self) -> dict:
        return {
            "casino": self.casino_id,
            "name": self.name,
            "card_number": self.card_number,
            "id_type": self.id_type,
            "id_number": self.id_number,
            "id_issuer": self.id_issuer,
            "merged_into": self.merged_into_id,
            "created_at": utc_iso(self.created_at),
        }

    def resolved(self) -> "Player":
        """The record this one was merged into (through any chain of merges), or itself."""
        player = self
        while player.merged_into_id is not None:
            player = player.merged_into
        return player


class SeatSession(Sealed, models.Model):
    """A player's stay at a seat: who sat, the buy-in, when they came and went. `player` is the
    carded or identified player; `player_name` describes an anonymous one (and names the player
    of sessions from before players were recorded).

    Sealed in its table's chain as the player sits down and as they leave (not at a later buy-in,
    which changes nothing here): whose play, buy-in and time the ratings and reports read."""

    # What the player's leaving changes once the session is sealed at the sit-down (`Sealed`).
    seal_changes = frozenset({"ended_at"})

    seat = models.ForeignKey(Seat, on_delete=models.PROTECT, related_name="sessions")
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="sessions"
    )
    player_name = models.CharField(max_length=100, blank=True, help_text="Blank for an unrated player.")
    buy_in = models.PositiveBigIntegerField(help_text="Chips given at the buy-in, in units.")
    started_at = models.DateTimeField()
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["seat"], condition=Q(ended_at=None), name="one_open_session_per_seat"
            )
        ]

    def __str__(self):
        return f"{self.seat}: {self.player_name or 'unrated player'}"

    def seal_content(self) -> dict:
        return {
            "seat": self.seat_id,
            "player": self.player_id,
            "player_name": self.player_name,
            "buy_in": self.buy_in,
            "started_at": utc_iso(self.started_at),
            "started_by": self.started_by_id,
            "ended_at": utc_iso(self.ended_at),
        }


class Hand(Sealed, models.Model):
    """One hand (for Blackstone and Starboard: one game) at a table.

    `setup` is exactly what the rules engine was started with, written once when the hand starts:
    the record of a `tables.games.HandSetup` (game, seats, stakes, options, carry in, game state,
    what the shoe held), so the hand replays from it and its card events, decisions and recycles
    alone (`tables.services.engine.replay`). `seats`, `stakes`, `carry_in`, `options` and `state`
    read it. `game` is also a column because reports filter and group hands by game; the
    database holds it equal to the setup's. `sessions` and `committed` are the table's side of
    the hand (whose chips, what each seat put up front), not the engine's. `seq` counts the
    events recorded.

    Sealed (`ledger.seals`) when it starts, when its status changes and when it settles: every
    figure but `seq`, which moves at every step and which the chained card events, decisions and
    corrections order on their own (each carries its hand and step).
    """

    # What the services change once a hand is sealed at its start (`ledger.models.Sealed`).
    seal_changes = frozenset({"status", "settlement", "settled_at"})

    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress", "In progress"
        AWAITING_APPROVAL = "awaiting_approval", "Awaiting a pit manager's approval"
        SETTLED = "settled", "Settled"
        VOIDED = "voided", "Voided"

    OPEN = (Status.IN_PROGRESS, Status.AWAITING_APPROVAL)

    # Indexed by the (table, number) constraint (hand_number_unique_per_table).
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="hands", db_index=False)
    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="hands")
    number = models.PositiveIntegerField(help_text="Hands are numbered per table from 1.")
    game = models.CharField(max_length=20, choices=Game.choices)
    setup = models.JSONField(help_text="What the rules engine started the hand with (HandSetup.to_record()).")
    sessions = models.JSONField(help_text="Seat number to seat session id.")
    committed = models.JSONField(default=dict, help_text="Seat number to the bet or ante taken up front.")
    seq = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.IN_PROGRESS)
    settlement = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField()
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    settled_at = models.DateTimeField(null=True, blank=True)
    limits = models.JSONField(
        null=True,
        blank=True,
        help_text="The table's limits and payout approval threshold when the hand started "
        "(Table.limits()); null: not recorded (hands before they were).",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="hand_number_unique_per_table"),
            models.UniqueConstraint(
                fields=["table"],
                condition=Q(status__in=["in_progress", "awaiting_approval"]),
                name="one_open_hand_per_table",
            ),
            models.CheckConstraint(condition=Q(game=KT("setup__game")), name="hand_game_is_its_setups"),
        ]

    def __str__(self):
        return f"{self.table} hand {self.number}"

    def seal_content(self) -> dict:
        return {
            "table": self.table_id,
            "shoe": self.shoe_id,
            "number": self.number,
            "game": self.game,
            "setup": self.setup,
            "sessions": self.sessions,
            "committed": self.committed,
            "status": self.status,
            "settlement": self.settlement,
            "started_at": utc_iso(self.started_at),
            "started_by": self.started_by_id,
            "settled_at": utc_iso(self.settled_at),
            # Sealed once recorded; a hand from before has none, and its seals never held the key.
            **({} if self.limits is None else {"limits": self.limits}),
        }

    @property
    def payout_approval_threshold(self) -> int:
        """The threshold this hand's payout is judged by: the one recorded when it started (the
        table's current one for a hand from before limits were recorded)."""
        if self.limits is None:
            return self.table.payout_approval_threshold
        return self.limits["payout_approval_threshold"]

    @property
    def seats(self) -> list[int]:
        """Seat numbers playing, clockwise from the dealer's left."""
        return self.setup["seats"]

    @property
    def stakes(self) -> dict[str, int]:
        """Seat number (as text) to bet, chips in front, or score going in."""
        return self.setup["stakes"]

    @property
    def carry_in(self) -> int:
        return self.setup["carry"]

    @property
    def options(self) -> dict:
        """The house rules in force, as the engine recorded them."""
        return self.setup["options"]

    @property
    def state(self) -> dict:
        """Game facts carried in that are not house rules (Continuous Pairs' cards in play)."""
        return self.setup["state"]


class Receiver(models.TextChoices):
    SEAT = "seat", "Seat"
    DEALER = "dealer", "Dealer"
    COMMON = "common", "Common hand"
    CENTRE = "centre", "Centre"
    BURN = "burn", "Burn"
    TIEBREAK = "tiebreak", "Tie-break"
    DISCARD = "discard", "Discard"
    MONSTER = "monster", "The Monster"  # Monster: its hand, made from the players' discards


class DealtCards(ModelIterable):
    """Card events as the hand plays them: `rank` is the latest correction's, and `keyed_rank`
    what the dealer keyed (the stored rank). Never save one: its `rank` is not the row's."""

    def __iter__(self):
        for card in super().__iter__():
            yield self.finish(card)

    @staticmethod
    def finish(card: "CardEvent") -> "CardEvent":
        """The card as read (also by `casino.compiled.Compiled`, which runs no iterable)."""
        card.keyed_rank, card.rank = card.rank, card.dealt_rank
        return card


class CardEventQuerySet(AppendOnlyQuerySet):
    def as_dealt(self) -> "CardEventQuerySet":
        """The cards with every correction applied (`CardCorrection`, RULINGS: a mis-keyed card).

        Each card reads its latest correction's rank as `rank` and the stored one as `keyed_rank`;
        `values()` and aggregates read the rank dealt as `dealt_rank`. Every replay, shoe count and
        reconciliation reads cards through this, so a correction counts everywhere at once."""
        latest = CardCorrection.objects.filter(card=OuterRef("pk")).order_by("-seq").values("rank")[:1]
        dealt = self.annotate(dealt_rank=Coalesce(Subquery(latest), F("rank")))
        dealt._iterable_class = DealtCards
        return dealt


class CardEvent(Chained, AppendOnly):
    """A card that left a shoe: who got it, who keyed it, from which device, when.

    `rank` is as keyed, for ever; a mis-keyed card is put right by a `CardCorrection`, which
    `CardEvent.objects.as_dealt()` applies."""

    objects = CardEventQuerySet.as_manager()

    # `shoe` and `hand` are indexed by the constraints below (each their first column): a card
    # written updates no index of its own for them (docs/performance.md).
    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="cards", db_index=False)
    shoe_position = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="1 for the shoe's first card. Blank: a card dealt again from a game's own pile "
        "(Goblin Poker's pitched cards), which left the shoe before.",
    )
    rank = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Blank: a face-down card.")
    receiver = models.CharField(max_length=10, choices=Receiver.choices)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    why = models.CharField(max_length=20, blank=True, help_text="What the rules dealt it for.")
    hand = models.ForeignKey(
        Hand, on_delete=models.PROTECT, null=True, blank=True, related_name="cards", db_index=False
    )
    seq = models.PositiveIntegerField(null=True, blank=True, help_text="Order within the hand.")
    keyed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    device = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField()

    class Meta(Chained.Meta):
        constraints = Chained.Meta.constraints + [
            models.UniqueConstraint(fields=["shoe", "shoe_position"], name="card_position_unique_in_shoe"),
            models.UniqueConstraint(fields=["hand", "seq"], name="card_seq_unique_in_hand"),
        ]

    def chain_content(self) -> dict:
        return {
            "record": "card",
            "shoe": self.shoe_id,
            "shoe_position": self.shoe_position,
            "rank": self.rank,
            "receiver": self.receiver,
            "seat": self.seat,
            "why": self.why,
            "hand": self.hand_id,
            "seq": self.seq,
            "keyed_by": self.keyed_by_id,
            "device": self.device,
            "at": self.at.isoformat(),
        }


class Recycle(Chained, AppendOnly):
    """A shoe that ran dry mid-hand, refilled with its discards (RULINGS: single-deck recycling).

    The recycled deck's cards leave the shoe from `shoe_position` on, its burn first. `ranks` counts
    its cards by rank (index 0 unused): the shoe's cards less those on the table in the hand and
    those kept for score; at a physical table, `hidden` of them are still face down on the table
    with their ranks unseen (a secret hand), so those ranks stay possible but are not in the deck.
    A system shoe commits to the recycled order before its first card, as at a shuffle; order and
    salt are shown once the shoe is retired.
    """

    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, related_name="recycles", db_index=False)
    hand = models.ForeignKey(Hand, on_delete=models.PROTECT, related_name="recycles", db_index=False)
    seq = models.PositiveIntegerField(help_text="Order within the hand.")
    shoe_position = models.PositiveSmallIntegerField(help_text="The recycled deck's first card (its burn).")
    ranks = models.JSONField(help_text="Cards of each rank recycled (index 0 unused): the discards.")
    hidden = models.PositiveSmallIntegerField(
        default=0,
        help_text="Cards among `ranks` not in the deck: face down on the table, their ranks unseen.",
    )
    burned = models.PositiveSmallIntegerField(help_text="Cards burned after the recycle.")
    commitment = models.CharField(max_length=64, blank=True)
    order = models.JSONField(null=True, blank=True)
    salt = models.CharField(max_length=64, blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    device = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField()

    class Meta(Chained.Meta):
        constraints = Chained.Meta.constraints + [
            models.UniqueConstraint(fields=["hand", "seq"], name="recycle_seq_unique_in_hand"),
            models.UniqueConstraint(fields=["shoe", "shoe_position"], name="recycle_position_unique_in_shoe"),
        ]

    @property
    def cards(self) -> int:
        return sum(self.ranks) - self.hidden

    def chain_content(self) -> dict:
        # The order and salt stay out: the commitment, chained here, already binds them. `hidden`
        # only where there are some: recycles chained before it existed still verify.
        hidden = {"hidden": self.hidden} if self.hidden else {}
        return {
            **hidden,
            "record": "recycle",
            "shoe": self.shoe_id,
            "hand": self.hand_id,
            "seq": self.seq,
            "shoe_position": self.shoe_position,
            "ranks": self.ranks,
            "burned": self.burned,
            "commitment": self.commitment,
            "by": self.by_id,
            "device": self.device,
            "at": self.at.isoformat(),
        }


class CardCorrection(Chained, AppendOnly):
    """A mis-keyed card put right (RULINGS): the hand's most recent card, while nothing was recorded
    after it, corrected by the dealer with a pit manager's signature (a fresh password or PIN).

    The card event keeps the rank as keyed; the hand replays with `rank` (`as_dealt`). A card
    corrected twice plays its latest correction. The correction takes the hand's next sequence
    number, so every screen that showed the old card is stale.
    """

    card = models.ForeignKey(CardEvent, on_delete=models.PROTECT, related_name="corrections")
    hand = models.ForeignKey(Hand, on_delete=models.PROTECT, related_name="card_corrections", db_index=False)
    seq = models.PositiveIntegerField(help_text="Order within the hand.")
    rank = models.PositiveSmallIntegerField(help_text="The rank the card really was.")
    reason = models.TextField()
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    signed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    method = models.CharField(max_length=10, help_text="How the pit manager signed: password or PIN.")
    device = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField()

    class Meta(Chained.Meta):
        constraints = Chained.Meta.constraints + [
            models.UniqueConstraint(fields=["hand", "seq"], name="card_correction_seq_unique_in_hand"),
            models.CheckConstraint(
                condition=Q(rank__gte=min(RANKS)) & Q(rank__lte=max(RANKS)),
                name="card_correction_rank_1_to_10",
            ),
            models.CheckConstraint(condition=~Q(signed_by=F("by")), name="card_correction_signed_by_another"),
        ]

    def __str__(self):
        return f"{self.hand} step {self.seq}: card corrected to {self.rank}"

    def chain_content(self) -> dict:
        return {
            "record": "card_correction",
            "card": self.card_id,
            "hand": self.hand_id,
            "seq": self.seq,
            "rank": self.rank,
            "reason": self.reason,
            "by": self.by_id,
            "signed_by": self.signed_by_id,
            "method": self.method,
            "device": self.device,
            "at": self.at.isoformat(),
        }


class Decision(Chained, AppendOnly):
    """A player's decision as the dealer pressed it."""

    # indexed by decision_seq_unique_in_hand, its first column
    hand = models.ForeignKey(Hand, on_delete=models.PROTECT, related_name="decisions", db_index=False)
    seq = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    action = models.JSONField(help_text='As recorded for replay, e.g. ["take", 3].')
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    device = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField()
    key = models.CharField(max_length=100, help_text="The idempotency key the tablet sent.")

    class Meta(Chained.Meta):
        constraints = Chained.Meta.constraints + [
            models.UniqueConstraint(fields=["hand", "seq"], name="decision_seq_unique_in_hand")
        ]

    def chain_content(self) -> dict:
        return {
            "record": "decision",
            "hand": self.hand_id,
            "seq": self.seq,
            "seat": self.seat,
            "action": self.action,
            "by": self.by_id,
            "device": self.device,
            "at": self.at.isoformat(),
            "key": self.key,
        }


class IdempotentRequest(models.Model):
    """A mutating request already applied: its key, what was asked, what it answered.

    A key belongs to the account that sent it (a person, or a device's own account such as a
    card-reading shoe): the same key from another account is another request, so nobody can
    claim in advance the key another's tablet or shoe will send, nor read its answer.
    """

    key = models.CharField(max_length=100)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the request.")
    # indexed by idempotency_key_unique_per_user, its first column
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    response = models.JSONField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="idempotency_key_unique_per_user"),
        ]

    def __str__(self):
        return self.key


class Shift(Sealed, models.Model):
    """A member of staff on duty: a dealer at a table, or a pit manager in a pit.

    Written only by `tables.services.shifts` (the pit page and the API): a shift ends once, never
    before it started, and says why (`ended_reason`): rotated to another table, a break, or the end
    of the shift. A rotation is two shifts, the second starting when the first ended.

    Sealed (`ledger.seals`) as it starts and as it ends, a dealer's in the table's chain and a pit
    manager's in the casino's: the reports by shift and who was on duty read these figures.
    """

    # What ending the shift changes once it is sealed at its start (`ledger.models.Sealed`).
    seal_changes = frozenset({"ended_at", "ended_by", "ended_reason"})

    class Ended(models.TextChoices):
        ROTATED = "rotated", "Rotated"
        BREAK = "break", "Break"
        END = "end", "End of shift"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="shifts")
    table = models.ForeignKey(Table, on_delete=models.PROTECT, null=True, blank=True, related_name="shifts")
    pit = models.ForeignKey(Pit, on_delete=models.PROTECT, null=True, blank=True, related_name="shifts")
    started_at = models.DateTimeField()
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    ended_at = models.DateTimeField(null=True, blank=True)
    ended_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    ended_reason = models.CharField(max_length=10, choices=Ended.choices, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(table__isnull=True, pit__isnull=False) | Q(table__isnull=False, pit__isnull=True),
                name="shift_is_at_a_table_or_in_a_pit",
            ),
            models.UniqueConstraint(
                fields=["user"], condition=Q(ended_at=None), name="one_open_shift_per_user"
            ),
            models.CheckConstraint(
                condition=Q(ended_at=None) | Q(ended_at__gte=F("started_at")),
                name="shift_ends_after_it_starts",
            ),
            models.CheckConstraint(
                condition=Q(ended_at=None, ended_reason="")
                | (Q(ended_at__isnull=False) & ~Q(ended_reason="")),
                name="shift_ended_with_a_reason",
            ),
        ]

    def __str__(self):
        return f"{self.user} at {self.table or self.pit}"

    def seal_content(self) -> dict:
        return {
            "user": self.user_id,
            "table": self.table_id,
            "pit": self.pit_id,
            "started_at": utc_iso(self.started_at),
            "started_by": self.started_by_id,
            "ended_at": utc_iso(self.ended_at),
            "ended_by": self.ended_by_id,
            "ended_reason": self.ended_reason,
        }


class StaffCasino(models.Model):
    """An auditor held to one casino: they read that casino's tables, hands, slips, ledger, reports
    and investigations, and nothing of any other (`tables.selectors.casino_limit`). An auditor
    without one reads every casino. Administrators set it in the admin; each change is audited.

    Kept here rather than as a field of the user: `casino.User` comes before the floor in the
    migrations (the floor's records point at users), so the user cannot point back at a casino.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="staff_casino"
    )
    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="+")

    class Meta:
        verbose_name = "auditor's casino"
        verbose_name_plural = "auditors' casinos"

    def __str__(self):
        return f"{self.user} reads {self.casino} only"


class Incident(Sealed, AppendOnly):
    """Something at a table an auditor must see: a rank the shoe could not hold, and the like.

    Append-only, and sealed in the table's chain when opened (`incident_open`): a cash report due
    or a count variance is what the auditors and the regulator read, so one removed is named.
    """

    class Kind(models.TextChoices):
        RANK_REFUSED = "rank_refused", "Rank the shoe cannot hold"
        CASH_REPORT = "cash_report", "Cash in past the reporting threshold"
        COUNT_EXPLAIN = "count_explain", "Count variance to explain"
        COUNT_REGULATOR = "count_regulator", "Count variance to report to the regulator"

    # A pit manager acknowledges these with written findings (`IncidentFinding`).
    TO_ACKNOWLEDGE = (Kind.COUNT_EXPLAIN, Kind.COUNT_REGULATOR)

    kind = models.CharField(max_length=20, choices=Kind.choices)
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="incidents")
    shoe = models.ForeignKey(Shoe, on_delete=models.PROTECT, null=True, blank=True, related_name="incidents")
    hand = models.ForeignKey(Hand, on_delete=models.PROTECT, null=True, blank=True, related_name="incidents")
    detail = models.TextField()
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    device = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField(default=timezone.now)
    # NULL, not "", for incidents no request opened: a column with a default would make Django
    # rebuild the SQLite table, dropping its append-only triggers.
    key = models.CharField(  # noqa: DJ001
        max_length=100,
        null=True,
        blank=True,
        help_text="The idempotency key of the refused request that opened it: its retry opens no other.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["by", "key"], condition=Q(key__isnull=False), name="one_incident_per_refused_request"
            ),
        ]

    def __str__(self):
        return f"{self.table}: {self.get_kind_display()} at {self.at:%Y-%m-%d %H:%M}"

    def seal_content(self) -> dict:
        return {
            "kind": self.kind,
            "table": self.table_id,
            "shoe": self.shoe_id,
            "hand": self.hand_id,
            "detail": self.detail,
            "by": self.by_id,
            "device": self.device,
            "at": utc_iso(self.at),
            "key": self.key,
        }


class TimeCharge(Sealed, AppendOnly):
    """One period of a seat session's time paid to the house, under the `time` collection
    (RULINGS.md "House revenue on pot games"). Period 0 starts when the player sits down, period
    n `n * time_minutes` later. At most one charge per (session, period): two workers charging the
    same period at once cannot both write it. The chips moved are the ledger `transaction`; the
    period and seat it paid for are sealed next to it, in the table's chain."""

    session = models.ForeignKey(
        SeatSession, on_delete=models.PROTECT, related_name="time_charges", db_index=False
    )
    period = models.PositiveIntegerField(help_text="0 for the period that starts at the sit-down.")
    amount = models.PositiveBigIntegerField(help_text="Units paid to the table's rake account.")
    due_at = models.DateTimeField(help_text="When the period started.")
    transaction = models.OneToOneField(
        "ledger.Transaction", on_delete=models.PROTECT, related_name="time_charge"
    )
    at = models.DateTimeField(help_text="When it was charged.")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session", "period"], name="one_time_charge_per_session_period")
        ]

    def __str__(self):
        return f"{self.session}: period {self.period} ({self.amount} units)"

    def seal_content(self) -> dict:
        return {
            "session": self.session_id,
            "period": self.period,
            "amount": self.amount,
            "due_at": utc_iso(self.due_at),
            "transaction": _uuid_text(self.transaction_id),
            "at": utc_iso(self.at),
            "by": self.by_id,
        }


class ApprovalRequest(Sealed, models.Model):
    """Something that waits for a pit manager: a large payout, a void, a fill, a credit.

    The requester can never approve their own request (checked by the service). Decided by an
    update of its row, so it is sealed (`ledger.seals`): when asked for and when decided.
    """

    # What the decision changes once the request is sealed (`ledger.models.Sealed`).
    seal_changes = frozenset({"status", "transaction", "decided_by", "decided_at", "decision_reason"})

    class Kind(models.TextChoices):
        PAYOUT = "payout", "Large payout"
        VOID = "void", "Void (misdeal)"
        FILL = "fill", "Fill"
        CREDIT = "credit", "Credit"
        CORRECTION = "correction", "Ledger correction"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"
        WITHDRAWN = "withdrawn", "Withdrawn by the one who asked"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="approval_requests")
    hand = models.ForeignKey(Hand, on_delete=models.PROTECT, null=True, blank=True, related_name="approvals")
    amount = models.BigIntegerField(
        null=True, blank=True, help_text="Units, where the request is about money."
    )
    transaction = models.ForeignKey(
        "ledger.Transaction",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text="The transaction a correction reverses.",
    )
    reason = models.TextField(blank=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField(default=timezone.now)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["hand", "kind"],
                condition=Q(status="pending"),
                name="one_pending_request_per_hand_and_kind",
            ),
            models.CheckConstraint(
                condition=Q(decided_by__isnull=True) | ~Q(decided_by=F("requested_by")),
                name="requester_never_decides",
            ),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} at {self.table} ({self.get_status_display().lower()})"

    @property
    def what(self) -> str:
        """What the request is, as the pit reads it: the void of a hand that had settled corrects
        its money (docs/pit.md "Voiding a settled hand"); it was no misdeal."""
        if self.kind == self.Kind.VOID and self.hand is not None and self.hand.settled_at is not None:
            return "Void of a settled hand"
        return self.get_kind_display()

    def seal_content(self) -> dict:
        return {
            "kind": self.kind,
            "table": self.table_id,
            "hand": self.hand_id,
            "amount": self.amount,
            "transaction": _uuid_text(self.transaction_id),
            "reason": self.reason,
            "requested_by": self.requested_by_id,
            "requested_at": utc_iso(self.requested_at),
            "status": self.status,
            "decided_by": self.decided_by_id,
            "decided_at": utc_iso(self.decided_at),
            "decision_reason": self.decision_reason,
        }


class Slip(Sealed, models.Model):
    """A numbered form: fill, credit, table opener or closer, void.

    Serial numbers run in one sequence per table and calendar year across every kind
    (`SlipSeries`), so a gap is visible at once. A spoiled slip is voided, never deleted. Voided
    (and tied to the transaction it moved) by an update of its row, so it is sealed at each of those
    writes.
    """

    # What voiding a slip or tying it to its transaction changes once issued (`ledger.models.Sealed`).
    seal_changes = frozenset({"status", "void_reason", "transaction"})

    class Kind(models.TextChoices):
        FILL = "fill", "Fill"
        CREDIT = "credit", "Credit"
        OPENER = "opener", "Table opener (inventory slip)"
        CLOSER = "closer", "Table closer (inventory slip)"
        VOID = "void", "Void"

    class Status(models.TextChoices):
        ISSUED = "issued", "Issued"
        VOIDED = "voided", "Voided"

    year = models.PositiveSmallIntegerField()
    serial = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="slips", db_index=False)
    amount = models.BigIntegerField(null=True, blank=True, help_text="Units.")
    denominations = models.JSONField(default=dict, blank=True, help_text="Chip value (units) to count.")
    hand = models.ForeignKey(Hand, on_delete=models.PROTECT, null=True, blank=True, related_name="slips")
    request = models.ForeignKey(
        ApprovalRequest, on_delete=models.PROTECT, null=True, blank=True, related_name="slips"
    )
    transaction = models.ForeignKey(
        "ledger.Transaction", on_delete=models.PROTECT, null=True, blank=True, related_name="slips"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ISSUED)
    void_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["table", "year", "serial"], name="slip_serial_unique_in_table_year"
            )
        ]

    def __str__(self):
        return f"{self.get_kind_display()} slip {self.number}"

    @property
    def number(self) -> str:
        """What the slip's paper shows: the table, the year and the serial in the table's run."""
        return f"T{self.table_id}-{self.year}-{self.serial:06d}"

    def seal_content(self) -> dict:
        return {
            "year": self.year,
            "serial": self.serial,
            "kind": self.kind,
            "table": self.table_id,
            "amount": self.amount,
            "denominations": _chip_counts(self.denominations),
            "hand": self.hand_id,
            "request": self.request_id,
            "transaction": _uuid_text(self.transaction_id),
            "status": self.status,
            "void_reason": self.void_reason,
            "created_at": utc_iso(self.created_at),
            "created_by": self.created_by_id,
        }


class SlipSeries(Sealed, models.Model):
    """A gapless run of slip serials: one per table and calendar year, so that slips at different
    tables never wait on one row. A table's run is counted under its chain's lock, which every slip
    write takes first anyway (`tables.services.slips.slip_issue`), and sealed there with each number it
    gives: the slips report finds missing slips between `first` and `last`, so a run edited in the
    database (a start moved past slips, an end moved back) is named by `verify_ledger`.

    The one row of a year without a table is the casino-wide run slips took before each table had its
    own (frozen: nothing takes a number from it now). A table's run in such a year starts after its
    last number, so a slip's (table, year, serial) stays unique and every run's gaps can be told apart.
    """

    table = models.ForeignKey(
        Table, on_delete=models.PROTECT, null=True, blank=True, related_name="slip_series"
    )
    year = models.PositiveSmallIntegerField()
    first = models.PositiveIntegerField(default=1, help_text="The run's first serial.")
    last = models.PositiveIntegerField(default=0, help_text="The last serial issued (first - 1: none yet).")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["table", "year"],
                condition=Q(table__isnull=False),
                name="slip_series_one_per_table_year",
            ),
            models.UniqueConstraint(
                fields=["year"], condition=Q(table__isnull=True), name="slip_series_one_casino_wide_per_year"
            ),
        ]

    # What each slip issued changes once the run is sealed with its first (`ledger.models.Sealed`).
    seal_changes = frozenset({"last"})

    def __str__(self):
        return f"{self.table or 'Casino-wide (before per-table runs)'} {self.year}: {self.first}-{self.last}"

    def seal_content(self) -> dict:
        return {"table": self.table_id, "year": self.year, "first": self.first, "last": self.last}


class Signature(Sealed, AppendOnly):
    """A fresh re-authentication (password or PIN) on a slip: who, as what, when, from which device.

    Append-only, and sealed when written: the app's database role may still insert rows here.
    """

    class Method(models.TextChoices):
        PASSWORD = "password", "Password"
        PIN = "pin", "PIN"

    slip = models.ForeignKey(Slip, on_delete=models.PROTECT, related_name="signatures", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    role = models.CharField(
        max_length=20, help_text="What they sign as: dealer, pit manager, counter, witness."
    )
    method = models.CharField(max_length=10, choices=Method.choices)
    device = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["slip", "user"], name="one_signature_per_person_per_slip")
        ]

    def __str__(self):
        return f"{self.slip} signed by {self.user} as {self.role}"

    def seal_content(self) -> dict:
        return {
            "slip": self.slip_id,
            "user": self.user_id,
            "role": self.role,
            "method": self.method,
            "device": self.device,
            "at": utc_iso(self.at),
        }


class TableCount(Sealed, AppendOnly):
    """A blind chip count of the tray when a table opens or closes.

    The counter enters the count before the system shows what the ledger
    expects; both are kept, with the difference, and an opener is also
    compared with the table's previous closer. Append-only, and sealed when written.
    """

    class Kind(models.TextChoices):
        OPENER = "opener", "Opening count"
        CLOSER = "closer", "Closing count"

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="counts")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    slip = models.OneToOneField(Slip, on_delete=models.PROTECT, related_name="count")
    denominations = models.JSONField(help_text="Chip value (units) to count.")
    counted = models.BigIntegerField(help_text="Units counted.")
    expected = models.BigIntegerField(help_text="Units the ledger says the tray holds.")
    previous_closer = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="next_opener"
    )
    at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"{self.table}: {self.get_kind_display().lower()} at {self.at:%Y-%m-%d %H:%M}"

    @property
    def difference(self) -> int:
        """Counted less expected: negative when chips are missing."""
        return self.counted - self.expected

    @property
    def against_previous_closer(self) -> int | None:
        return None if self.previous_closer is None else self.counted - self.previous_closer.counted

    def seal_content(self) -> dict:
        return {
            "table": self.table_id,
            "kind": self.kind,
            "slip": self.slip_id,
            "denominations": _chip_counts(self.denominations),
            "counted": self.counted,
            "expected": self.expected,
            "previous_closer": self.previous_closer_id,
            "at": utc_iso(self.at),
        }


def _chip_counts(denominations: dict) -> dict:
    """Chip counts as the database returns them: JSON object keys are strings."""
    return {str(value): count for value, count in denominations.items()}


def _uuid_text(value) -> str | None:
    return None if value is None else str(value)


class PlayerRules(Sealed, models.Model):
    """A casino's rules for players (one row per casino; the defaults hold where there is none).

    Cash reporting, in whole currency: a cash buy-in of at least `logging_threshold` goes into the
    multiple-transaction log; a buy-in that would take a player's cash in for the gaming day past
    `reporting_threshold` needs the player identified first, and the pit is told. Comps: a player's
    comp budget is `comp_share` of the theoretical win their play gave the house, less the comps
    already issued.

    Sealed in the casino's chain as it is written and removed (`casino.rules`), so that a threshold
    edited in the database is named by `verify_ledger`."""

    seal_changes = frozenset({"logging_threshold", "reporting_threshold", "comp_share"})
    seal_removable = True

    casino = models.OneToOneField(Casino, on_delete=models.PROTECT, related_name="player_rules")
    logging_threshold = models.PositiveIntegerField(default=3000)
    reporting_threshold = models.PositiveIntegerField(default=10000)
    comp_share = models.DecimalField(
        max_digits=4,
        decimal_places=3,
        default=Decimal("0.300"),
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text="Share of a player's theoretical win they may be given in comps (0.3 is 30%).",
    )

    class Meta:
        verbose_name_plural = "player rules"
        constraints = [
            models.CheckConstraint(
                condition=Q(logging_threshold__lte=F("reporting_threshold")), name="cash_thresholds_ordered"
            )
        ]

    def __str__(self):
        return f"{self.casino}: log from {self.logging_threshold}, report past {self.reporting_threshold}"

    def seal_content(self) -> dict:
        return {
            "casino": self.casino_id,
            "logging_threshold": self.logging_threshold,
            "reporting_threshold": self.reporting_threshold,
            # typed "0.3", read back 0.300: sealed as the column holds it
            "comp_share": f"{Decimal(str(self.comp_share)):.3f}",
        }


class CashIn(Sealed, AppendOnly):
    """One cash buy-in, attributed: to a player, or to the seat's description of an unidentified
    one. `cents` is its value in the house currency (units x the table's chip value), `day` its
    gaming day; `logged` puts it in the multiple-transaction log (at least the logging threshold
    when it was made). Written with the buy-in's ledger transaction, never changed, and sealed in
    the table's chain: the log and the currency transaction reports count it by player and day."""

    session = models.ForeignKey(SeatSession, on_delete=models.PROTECT, related_name="cash_ins")
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="cash_ins"
    )
    description = models.CharField(max_length=100, blank=True)
    transaction = models.OneToOneField("ledger.Transaction", on_delete=models.PROTECT, related_name="+")
    units = models.PositiveBigIntegerField()
    cents = models.PositiveBigIntegerField()
    day = models.DateField(help_text="Gaming day.")
    logged = models.BooleanField(help_text="In the multiple-transaction log.")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["player", "day"]), models.Index(fields=["day", "logged"])]

    def __str__(self):
        return f"{self.day} {self.player or self.description or 'unidentified'}: {self.currency}"

    def seal_content(self) -> dict:
        return {
            "session": self.session_id,
            "player": self.player_id,
            "description": self.description,
            "transaction": _uuid_text(self.transaction_id),
            "units": self.units,
            "cents": self.cents,
            "day": self.day.isoformat(),
            "logged": self.logged,
            "by": self.by_id,
            "at": utc_iso(self.at),
        }

    @property
    def currency(self) -> Decimal:
        return currency(self.cents)


def currency(cents: int) -> Decimal:
    """Cents of the house currency as an amount to two places."""
    return (Decimal(cents) / 100).quantize(Decimal("0.01"))


class Comp(Sealed, AppendOnly):
    """A comp a pit manager gave a player (a meal, a room...), in cents of the house currency,
    against the player's budget (`PlayerRules.comp_share`). Never changed: a comp taken back is a
    note for the auditors, not an edit. Sealed in the casino's chain when given."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="comps")
    cents = models.PositiveBigIntegerField()
    reason = models.CharField(max_length=200)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"{self.player}: {self.currency} ({self.reason})"

    def seal_content(self) -> dict:
        return {
            "player": self.player_id,
            "cents": self.cents,
            "reason": self.reason,
            "by": self.by_id,
            "at": utc_iso(self.at),
        }

    @property
    def currency(self) -> Decimal:
        return currency(self.cents)


class IncidentFinding(Sealed, AppendOnly):
    """A pit manager's acknowledgement of an incident, with what was found; once per incident.

    Append-only, and sealed when written: the findings are what the auditors and the regulator read.
    """

    incident = models.OneToOneField(Incident, on_delete=models.PROTECT, related_name="finding")
    findings = models.TextField()
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    device = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"Findings on {self.incident}"

    def seal_content(self) -> dict:
        return {
            "incident": self.incident_id,
            "findings": self.findings,
            "by": self.by_id,
            "device": self.device,
            "at": utc_iso(self.at),
        }


class DropBox(Sealed, AppendOnly):
    """A numbered drop box: the cash paid for chips at a table in one open period (RULINGS, "Drop
    and count").

    Attached when the table opens (by its opening count) or by the pit; the keyed buy-ins posted to
    the table's drop account from `attached_at` until its removal are its expected drop. Its later
    life is records of its own: custody (removed, delivered), the counters' counts and the counted
    drop. Append-only, and sealed when written.
    """

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="drop_boxes", db_index=False)
    number = models.PositiveIntegerField(help_text="Boxes are numbered per table from 1.")
    opener = models.OneToOneField(
        TableCount,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="drop_box",
        help_text="The opening count that attached it; empty when the pit attached it.",
    )
    attached_at = models.DateTimeField(default=timezone.now)
    attached_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="drop_box_number_unique_per_table")
        ]

    def __str__(self):
        return f"{self.table} drop box {self.number}"

    def seal_content(self) -> dict:
        return {
            "table": self.table_id,
            "number": self.number,
            "opener": self.opener_id,
            "attached_at": utc_iso(self.attached_at),
            "attached_by": self.attached_by_id,
        }


class DropCustody(Sealed, AppendOnly):
    """A drop box changing hands: removed from its table, delivered to the count room (who, when).

    Each step once per box, in that order (the service checks the order). Append-only and sealed.
    """

    class Step(models.TextChoices):
        REMOVED = "removed", "Removed from the table"
        DELIVERED = "delivered", "Delivered to the count room"

    box = models.ForeignKey(DropBox, on_delete=models.PROTECT, related_name="custody", db_index=False)
    step = models.CharField(max_length=10, choices=Step.choices)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    device = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["box", "step"], name="drop_custody_step_once_per_box")]
        ordering = ["pk"]  # the steps as they happened: removed, then delivered

    def __str__(self):
        return f"{self.box}: {self.get_step_display().lower()}"

    def seal_content(self) -> dict:
        return {
            "box": self.box_id,
            "step": self.step,
            "by": self.by_id,
            "device": self.device,
            "at": utc_iso(self.at),
        }


class DropCount(Sealed, AppendOnly):
    """One counter's count of a drop box at the soft count, by denomination (value in units: notes).

    Two counters per round, the second blind; a round whose two counts differ is recounted in the
    next round, never edited. Append-only and sealed.
    """

    class Counter(models.IntegerChoices):
        FIRST = 1, "First counter"
        SECOND = 2, "Second counter (blind)"

    box = models.ForeignKey(DropBox, on_delete=models.PROTECT, related_name="counts", db_index=False)
    round = models.PositiveSmallIntegerField(help_text="1 for the first count; each recount is the next.")
    counter = models.PositiveSmallIntegerField(choices=Counter.choices)
    denominations = models.JSONField(help_text="Value (units) to the number of notes or coins.")
    total = models.BigIntegerField(help_text="Units counted.")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    device = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["box", "round", "counter"], name="drop_count_once_per_counter"),
            models.CheckConstraint(condition=Q(counter__in=[1, 2]), name="drop_count_counter_1_or_2"),
        ]

    def __str__(self):
        return f"{self.box}: round {self.round}, {self.get_counter_display().lower()}"

    def seal_content(self) -> dict:
        return {
            "box": self.box_id,
            "round": self.round,
            "counter": self.counter,
            "denominations": _chip_counts(self.denominations),
            "total": self.total,
            "by": self.by_id,
            "device": self.device,
            "at": utc_iso(self.at),
        }


class CountedDrop(Sealed, AppendOnly):
    """A drop box's counted drop, the figure of record: what its two counters agreed on, beside the
    keyed buy-ins it was expected to hold, and the ledger transaction that took it to the cage.
    Append-only and sealed."""

    box = models.OneToOneField(DropBox, on_delete=models.PROTECT, related_name="counted")
    round = models.PositiveSmallIntegerField(help_text="The round whose two counts agreed.")
    counted = models.BigIntegerField(help_text="Units counted.")
    expected = models.BigIntegerField(help_text="Units of keyed buy-ins: the expected drop.")
    transaction = models.ForeignKey(
        "ledger.Transaction",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text="The drop count posted; empty for an empty box expected empty.",
    )
    at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"{self.box}: {self.counted} units counted"

    @property
    def difference(self) -> int:
        """Counted less expected: negative when cash is missing."""
        return self.counted - self.expected

    def seal_content(self) -> dict:
        return {
            "box": self.box_id,
            "round": self.round,
            "counted": self.counted,
            "expected": self.expected,
            "transaction": _uuid_text(self.transaction_id),
            "at": utc_iso(self.at),
        }


class RatingSlip(Sealed, models.Model):
    """A player's rating slip for one visit to the floor, run by the dealer or the pit: its
    history is its events (`RatingSlipEvent`), and its figures are read from the hands the seat
    sessions it covers played while it was running (`tables.services.rating_slips.slip_figures`).
    Never changed after it is written: sealed as it starts, in the chain of the table it starts
    at, since whose slip it is says whose rating and comps its time earns."""

    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="rating_slips")
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"Rating slip {self.pk}: {self.player}"

    def seal_content(self) -> dict:
        return {"player": self.player_id, "created_at": utc_iso(self.created_at)}


class RatingSlipEvent(Sealed, AppendOnly):
    """One step of a rating slip: started or moved (at `session`, the seat session it now
    covers), paused, resumed, closed; who, when, from which device. Sealed in the table's chain:
    the time a slip ran is what a player's rating, and so their comps, are figured from."""

    class Kind(models.TextChoices):
        STARTED = "started", "Started"
        PAUSED = "paused", "Paused"
        RESUMED = "resumed", "Resumed"
        MOVED = "moved", "Moved"
        CLOSED = "closed", "Closed"

    slip = models.ForeignKey(RatingSlip, on_delete=models.PROTECT, related_name="events")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    session = models.ForeignKey(SeatSession, on_delete=models.PROTECT, related_name="rating_slip_events")
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    device = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["at", "pk"]

    def __str__(self):
        return f"{self.slip}: {self.get_kind_display()} at {self.at:%Y-%m-%d %H:%M}"

    def seal_content(self) -> dict:
        return {
            "slip": self.slip_id,
            "kind": self.kind,
            "session": self.session_id,
            "by": self.by_id,
            "device": self.device,
            "at": utc_iso(self.at),
        }


class SeatSessionIdentified(Sealed, AppendOnly):
    """A pit manager's word that the anonymous player of `session` is `player`: who said so, when
    and how they knew (`reason`: the ID shown, a rating asked for). The seat session stays as it
    was sealed at the sit-down; every read of whose session it is takes this record into account
    (`tables.players.whose`), so the session's play, cash and time count toward the player.

    One per seat session, never changed: an identification given to the wrong player is not
    superseded (the cash reports and the incidents it opened have counted it), it is refused, and
    the mistake goes to the auditors (docs/pit.md "Identifying a seated player"). Sealed in the
    table's chain as it is written."""

    session = models.OneToOneField(SeatSession, on_delete=models.PROTECT, related_name="identified")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="identified_sessions")
    reason = models.CharField(max_length=200)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return f"{self.session.seat}: identified as {self.player}"

    def seal_content(self) -> dict:
        return {
            "session": self.session_id,
            "player": self.player_id,
            "reason": self.reason,
            "by": self.by_id,
            "at": utc_iso(self.at),
        }


class HeldQueue(Sealed, AppendOnly):
    """Steps a tablet keyed while the network was down that the server would not apply: the first
    refused step and every step after it, as the tablet sent them (kind, rank, receiver, seat,
    action, key, seq), with the refusal's sentence. The steps before it were applied; these wait
    for the pit (docs/tablet.md "When the network fails"). One per refused queue: a tablet that
    sends the same queue again finds it (`by`, `first_key`). Sealed in the table's chain when
    held: the steps are the dealer's record of cards that left the shoe."""

    hand = models.ForeignKey(Hand, on_delete=models.PROTECT, related_name="held_queues")
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="held_queues")
    steps = models.JSONField(help_text="The refused step first, then the rest, as the tablet sent them.")
    first_key = models.CharField(max_length=100, help_text="The refused step's idempotency key.")
    refusal = models.TextField(help_text="Why the first step was refused, as the tablet was told.")
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False
    )
    device = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["by", "first_key"], name="held_queue_once_per_refused_step"),
        ]

    def __str__(self):
        return f"{self.table} hand {self.hand.number}: {len(self.steps)} steps held"

    def seal_content(self) -> dict:
        return {
            "hand": self.hand_id,
            "table": self.table_id,
            "steps": self.steps,
            "first_key": self.first_key,
            "refusal": self.refusal,
            "by": self.by_id,
            "device": self.device,
            "at": utc_iso(self.at),
        }


class BackEntry(Sealed, AppendOnly):
    """A hand dealt on paper while the system was down, entered afterwards by the pit
    (tables/services/back_entry.py): why, who entered it, and the second person who signed for it
    (a fresh password or PIN, as on a card correction). The hand's own records (cards, decisions,
    postings) are those of any hand; this row is what marks it "back-entered", which the house-edge
    report counts: sealed in the table's chain when written."""

    hand = models.OneToOneField(Hand, on_delete=models.PROTECT, related_name="back_entry")
    reason = models.TextField()
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    signed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    signed_as = models.CharField(max_length=20, help_text="What the signer signed as: pit manager or dealer.")
    method = models.CharField(max_length=10, help_text="How the signer signed: password or PIN.")
    device = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=~Q(signed_by=F("by")), name="back_entry_signed_by_another"),
        ]

    def __str__(self):
        return f"{self.hand}: back-entered"

    def seal_content(self) -> dict:
        return {
            "hand": self.hand_id,
            "reason": self.reason,
            "by": self.by_id,
            "signed_by": self.signed_by_id,
            "signed_as": self.signed_as,
            "method": self.method,
            "device": self.device,
            "at": utc_iso(self.at),
        }
