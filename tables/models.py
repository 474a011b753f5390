"""The casino floor: casinos, pits, tables and their shoes.

Invariants: a table spreads exactly one game; its limits are whole units with
0 < minimum <= maximum (Rocket bets are multiples of 10 units, so Rocket limits
are too); a shoe holds 1 to 8 Pairs decks; a table has at most one shoe in play.
"""

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q

from tables.games.cards import MAX_DECKS, MIN_DECKS


class Game(models.TextChoices):
    ROCKET = "rocket", "Rocket"
    BLACKSTONE = "blackstone", "Blackstone"
    STARBOARD = "starboard", "Starboard"
    PAIRS = "pairs", "Pairs"


class Casino(models.Model):
    name = models.CharField(max_length=100, unique=True)

    def __str__(self):
        return self.name


class Pit(models.Model):
    casino = models.ForeignKey(Casino, on_delete=models.PROTECT, related_name="pits")
    name = models.CharField(max_length=100)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["casino", "name"], name="pit_name_unique_in_casino")]

    def __str__(self):
        return f"{self.casino} / {self.name}"


class Table(models.Model):
    pit = models.ForeignKey(Pit, on_delete=models.PROTECT, related_name="tables")
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

    def clean(self):
        if self.game == Game.ROCKET and (self.min_bet % 10 or self.max_bet % 10):
            raise ValidationError(
                "Rocket limits must be multiples of 10 units: payouts are in tenths of a bet."
            )


class Shoe(models.Model):
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
