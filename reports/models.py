"""Reports on the floor: house edge against the math, regulators' statistics, reconciliation.

What the app records:
- `Report`: one run of a report, keyed by its kind and canonical parameters (`key`), so that
  asking twice, or a task delivered twice, gives one report. It carries its status, progress,
  timings and, once done, its result as JSON; and the casino and tables it covers, from which
  follows who may read it.
- `TheoreticalEdge`: Rocket's house edge for one rules configuration (decks, start, burn,
  penetration, the assumed player strategy, the simulation's size): exact for an endless and for a
  fresh shoe, and for the shoe as dealt (exact when it is reshuffled every hand, else simulated,
  with its 95% confidence interval), and the per-seat variance the reports need, keyed by a
  canonical hash of that configuration and computed once.
- `ParSheet`: a table configuration's par sheet (the game's math a regulator reads: edge, spread,
  payments, collection per game and per hour...), keyed by a canonical hash of the configuration,
  computed once by a task with its progress saved as it goes (`reports.services.par_sheet`).
- `VarianceRules`: one casino's variance rules (limits for the flags), with defaults.
- `CountRules`: one casino's count thresholds (drop and table counts), with defaults.
- `Investigation`: a flag raised by a variance rule or a drop box's count, which a manager closes
  with written findings.
- `GamingDayClose`: a casino's signed close of a gaming day, holding the day's master game figures
  as they stood (append-only, sealed in the casino's chain): they never change.
- `DayAdjustment`: what was found for a closed day after its close (a late fill, a count
  correction...), posted as a dated record into the next open day, referencing the closed day
  (append-only, sealed): the closed day's figures are never edited.

A report's task message is counted each time it is delivered, committed before the run starts,
so that a report that kills its worker every time (out of memory) fails after
REPORTS_MAX_DELIVERIES deliveries instead of coming back forever.

Invariants: a report's key is unique and its progress lies in 0..100; a theoretical edge exists
once per configuration hash; an investigation exists once per rule, table (or game) and period,
and a closed one names who closed it and carries findings (check constraints).

Edges, variances and hold are statistics, so they are floats; money (handle, win) stays in whole
units in the results.
"""

import hashlib

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from ledger.chain import canonical_json
from ledger.models import AppendOnly, Sealed, utc_iso

DEFAULT_STRATEGY = "best"  # the best basic strategy; not the house's worst case: docs/reports.md
# Units the counted and the settled win of a table's day may differ by: a few low chips miscounted
# or dropped on the floor, not a leak (docs/reports.md, "Win by the formula").
WIN_TOLERANCE = 100


class Report(models.Model):
    class Kind(models.TextChoices):
        HOUSE_EDGE = "house_edge", "House edge (actual against theoretical)"
        STATISTICS = "statistics", "Statistics and variance rules"
        RECONCILIATION = "reconciliation", "Reconciliation (chips, cards, hands)"
        MASTER_GAME = "master_game", "Master game report (a gaming day's table win)"

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for a worker"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    kind = models.CharField(max_length=20, choices=Kind.choices)
    params = models.JSONField(help_text="The parameters, in canonical form.")
    key = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the kind and parameters.")
    title = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    progress = models.PositiveSmallIntegerField(default=0, help_text="Percent done.")
    stage = models.CharField(max_length=200, blank=True, help_text="What it is doing now.")
    result = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder)
    flags = models.PositiveIntegerField(default=0, help_text="Findings or flags in the result.")
    error = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0, help_text="Runs started, over every delivery.")
    delivery = models.CharField(
        max_length=100, blank=True, help_text="The task message that last ran it: task id and retry number."
    )
    deliveries = models.PositiveSmallIntegerField(
        default=0,
        help_text="Times that message was delivered. One that comes back was never acknowledged: "
        "its worker died running the report.",
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text="Empty when the schedule asked for it.",
    )
    requested_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Who may read it follows from these, set from the parameters when it is asked for
    # (`reports.services.runs.report_scope`, `reports.selectors.reports_seen`).
    casino = models.ForeignKey(
        "tables.Casino",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text="The casino it covers; empty when it covers several.",
    )
    tables = models.ManyToManyField(
        "tables.Table",
        blank=True,
        related_name="+",
        help_text="The tables it covers; none when it covers its casino as a whole.",
    )

    class Meta:
        ordering = ["-requested_at", "-pk"]
        constraints = [
            models.CheckConstraint(condition=Q(progress__lte=100), name="report_progress_at_most_100")
        ]

    def __str__(self):
        return self.title or f"{self.get_kind_display()} {self.pk}"

    @property
    def worker_deaths(self) -> int:
        """Deliveries of its message that never ended: each came back because its worker died."""
        return max(self.deliveries - 1, 0)

    @property
    def seconds(self) -> float | None:
        """How long the last run took."""
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None


class TheoreticalEdge(models.Model):
    """Rocket's house edge per unit bet for one rules configuration and player strategy."""

    class Method(models.TextChoices):
        EXACT = "exact", "Exact (every hand from a fresh shoe)"
        SIMULATED = "simulated", "Simulated (dealt through the shoe to the cut card)"

    config_hash = models.CharField(max_length=64, unique=True)
    game = models.CharField(max_length=20, default="rocket")
    config = models.JSONField(help_text="Decks, start, burn, penetration, strategy, players, hands, seed.")
    endless_edge = models.FloatField(help_text="Exact edge for an endless shoe (0.05 is 5%).")
    fresh_edge = models.FloatField(
        null=True, help_text="Exact edge for a hand dealt from a freshly shuffled shoe of these decks."
    )
    method = models.CharField(max_length=10, choices=Method.choices, default=Method.SIMULATED)
    edge = models.FloatField(help_text="Edge for this shoe as dealt: see `method`.")
    half_width = models.FloatField(help_text="Half-width of the edge's 95% confidence interval.")
    seat_variance = models.FloatField(help_text="Variance of one seat's result per unit bet, squared.")
    pair_covariance = models.FloatField(help_text="Covariance of two seats' results in one hand.")
    hands = models.PositiveIntegerField(help_text="Hands simulated for the finite-shoe edge.")
    seconds = models.FloatField(default=0)
    computed_at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        c = self.config
        return (
            f"Rocket {c.get('decks')} decks, {c.get('start')} start, {c.get('strategy')}: "
            f"{100 * self.edge:.3f}% +/- {100 * self.half_width:.3f}% ({self.method})"
        )


class ParSheet(models.Model):
    """One table configuration's par sheet: its figures, each labelled exact or simulated (with a
    95% interval), once the task has computed them. Not a record of the floor: the mathematics of a
    configuration, shared by every table set up alike, so it is of no casino."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for a worker"
        RUNNING = "running", "Being computed"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    config_hash = models.CharField(max_length=64, unique=True)
    game = models.CharField(max_length=20)
    config = models.JSONField(
        help_text="Game, options, shoe, strategy, players, simulation sizes, hands per hour."
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    progress = models.PositiveSmallIntegerField(default=0, help_text="Percent done.")
    stage = models.CharField(max_length=200, blank=True, help_text="What it is doing now.")
    figures = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder)
    error = models.TextField(blank=True)
    requested_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(default=0, help_text="How long the computation took.")

    class Meta:
        ordering = ["-requested_at", "-pk"]
        constraints = [
            models.CheckConstraint(condition=Q(progress__lte=100), name="par_sheet_progress_at_most_100")
        ]

    def __str__(self):
        return f"Par sheet {self.game} {self.config_hash[:10]} ({self.get_status_display().lower()})"


class VarianceRules(Sealed, models.Model):
    """When the statistics report flags a table; one row per casino, defaults as regulators use.
    Sealed in the casino's chain as it is written and removed (`casino.rules`)."""

    seal_changes = frozenset({
        "strategy", "z_limit", "base_points", "confidence", "rolling_days", "rolling_points",
        "minimum_hands", "win_tolerance",
    })
    seal_removable = True

    casino = models.OneToOneField("tables.Casino", on_delete=models.PROTECT, related_name="variance_rules")
    strategy = models.CharField(
        max_length=30,
        default=DEFAULT_STRATEGY,
        help_text="Player strategy the theoretical edge assumes: best (the best basic strategy), "
        "always_hit, pair_cost, pair_chance, fold_at_most_K.",
    )
    z_limit = models.FloatField(
        default=3.0,
        validators=[MinValueValidator(0.5)],
        help_text="Flag a day's win more than this many standard deviations from the theoretical.",
    )
    base_points = models.FloatField(
        default=3.0,
        validators=[MinValueValidator(0.0)],
        help_text="Flag a month's hold more than this many percentage points from the base level.",
    )
    confidence = models.FloatField(
        default=0.95,
        validators=[MinValueValidator(0.05), MaxValueValidator(0.9999)],
        help_text="Flag a month's hold outside this confidence interval around the theoretical.",
    )
    rolling_days = models.PositiveSmallIntegerField(default=30)
    rolling_points = models.FloatField(
        default=4.0,
        validators=[MinValueValidator(0.0)],
        help_text="Flag a rolling window's hold this many percentage points from the lifetime hold.",
    )
    minimum_hands = models.PositiveIntegerField(
        default=1000, help_text="Point rules apply only to periods with at least this many hands."
    )
    win_tolerance = models.PositiveBigIntegerField(
        default=WIN_TOLERANCE,
        help_text="Flag a table's day when its win by the formula (counted drop) and its win from "
        "settlements differ by more than this many units.",
    )

    class Meta:
        verbose_name_plural = "variance rules"

    def __str__(self):
        return f"Variance rules of {self.casino}"

    def seal_content(self) -> dict:
        # floats as the columns hold them: a limit typed 3 reads back 3.0
        return {
            "casino": self.casino_id,
            "strategy": self.strategy,
            "z_limit": float(self.z_limit),
            "base_points": float(self.base_points),
            "confidence": float(self.confidence),
            "rolling_days": self.rolling_days,
            "rolling_points": float(self.rolling_points),
            "minimum_hands": self.minimum_hands,
            "win_tolerance": self.win_tolerance,
        }


class CountRules(Sealed, models.Model):
    """A casino's count thresholds, in units of difference either way: between a drop box's counted
    and keyed drop (the soft count), and between a table count and the tray the ledger expects.
    One row per casino, edited by administrators; the defaults when there is none. Sealed in the
    casino's chain as it is written and removed (`casino.rules`)."""

    seal_changes = frozenset({"investigation_over", "explanation_over", "regulator_over"})
    seal_removable = True

    casino = models.OneToOneField("tables.Casino", on_delete=models.PROTECT, related_name="count_rules")
    investigation_over = models.PositiveIntegerField(
        default=25, help_text="A counted drop more than this from the keyed drop opens an investigation."
    )
    explanation_over = models.PositiveIntegerField(
        default=25, help_text="A count variance above this opens an incident the pit must explain in writing."
    )
    regulator_over = models.PositiveIntegerField(
        default=100, help_text="A count variance above this opens an incident to report to the regulator."
    )

    class Meta:
        verbose_name_plural = "count rules"
        constraints = [
            models.CheckConstraint(
                condition=Q(explanation_over__lte=models.F("regulator_over")),
                name="count_rules_explanation_not_above_regulator",
            )
        ]

    def __str__(self):
        return f"Count rules of {self.casino}"

    def seal_content(self) -> dict:
        return {
            "casino": self.casino_id,
            "investigation_over": self.investigation_over,
            "explanation_over": self.explanation_over,
            "regulator_over": self.regulator_over,
        }


class Investigation(Sealed, models.Model):
    """A variance flag: opened by the statistics report or a drop's count, closed by a manager with
    findings. Its row is updated when it closes, so it is sealed (`ledger.seals`) in its table's
    chain (its casino's, without a table) when opened and when closed."""

    # What closing it changes once it is sealed as opened (`ledger.models.Sealed`).
    seal_changes = frozenset({"status", "closed_by", "closed_at", "findings"})

    class Rule(models.TextChoices):
        Z_SCORE = "z_score", "Win against theoretical (z-score)"
        BASE_LEVEL = "base_level", "Month's hold against the base level"
        CONFIDENCE = "confidence", "Month's hold outside the confidence interval"
        ROLLING = "rolling", "Rolling window against lifetime"
        DROP_COUNT = "drop_count", "Counted drop against the keyed drop"
        WIN_DIFFERENCE = "win_difference", "Win by the formula against the win from settlements"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    key = models.CharField(max_length=120, unique=True, help_text="Rule, scope and period.")
    casino = models.ForeignKey("tables.Casino", on_delete=models.PROTECT, related_name="investigations")
    table = models.ForeignKey(
        "tables.Table", on_delete=models.PROTECT, null=True, blank=True, related_name="investigations"
    )
    game = models.CharField(max_length=20)
    rule = models.CharField(max_length=20, choices=Rule.choices)
    report = models.ForeignKey(
        Report, on_delete=models.PROTECT, null=True, blank=True, related_name="investigations"
    )
    period_start = models.DateField()
    period_end = models.DateField()
    measured = models.FloatField(help_text="The figure that broke the rule.")
    limit = models.FloatField(help_text="The rule's limit it was compared with.")
    detail = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    opened_at = models.DateTimeField(default=timezone.now)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    closed_at = models.DateTimeField(null=True, blank=True)
    findings = models.TextField(blank=True)

    class Meta:
        ordering = ["-opened_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status="open")
                | (Q(closed_by__isnull=False, closed_at__isnull=False) & ~Q(findings="")),
                name="closed_investigation_has_findings",
            ),
        ]

    def __str__(self):
        where = self.table or self.get_game_display()
        return f"{self.get_rule_display()}: {where}, {self.period_start} to {self.period_end}"

    def seal_content(self) -> dict:
        return {
            "key": self.key,
            "casino": self.casino_id,
            "table": self.table_id,
            "game": self.game,
            "rule": self.rule,
            "report": self.report_id,
            "period": [self.period_start.isoformat(), self.period_end.isoformat()],
            # As text: a float's repr comes back from either database unchanged, JSON's number may not.
            "measured": repr(float(self.measured)),
            "limit": repr(float(self.limit)),
            "detail": self.detail,
            "status": self.status,
            "opened_at": utc_iso(self.opened_at),
            "closed_by": self.closed_by_id,
            "closed_at": utc_iso(self.closed_at),
            "findings": self.findings,
        }

    def get_game_display(self) -> str:
        from tables.models import Game

        return dict(Game.choices).get(self.game, self.game)


class GamingDayClose(Sealed, AppendOnly):
    """A casino's gaming day, closed and signed: its master game figures, frozen.

    Append-only, once per casino and day (unique), and sealed in the casino's chain when written
    (the seal holds the SHA-256 of the figures, so a figure changed afterwards is named by
    `verify_ledger`).
    """

    casino = models.ForeignKey(
        "tables.Casino", on_delete=models.PROTECT, related_name="day_closes", db_index=False
    )
    day = models.DateField(help_text="The gaming day closed.")
    figures = models.JSONField(help_text="The day's master game figures as they stood at the close.")
    signed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    method = models.CharField(max_length=10, help_text="How the signer re-authenticated: password or pin.")
    device = models.CharField(max_length=100, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-day"]
        constraints = [models.UniqueConstraint(fields=["casino", "day"], name="one_close_per_casino_and_day")]

    def __str__(self):
        return f"{self.casino}: gaming day {self.day} closed"

    def seal_content(self) -> dict:
        return {
            "casino": self.casino_id,
            "day": self.day.isoformat(),
            "figures_sha256": hashlib.sha256(canonical_json(self.figures).encode()).hexdigest(),
            "signed_by": self.signed_by_id,
            "method": self.method,
            "device": self.device,
            "at": utc_iso(self.at),
        }


class DayAdjustment(Sealed, AppendOnly):
    """A change to a closed day's figures for one table, found after the close, posted into `day`
    (the next gaming day not closed) with a reference to the closed day. Append-only and sealed."""

    casino = models.ForeignKey("tables.Casino", on_delete=models.PROTECT, related_name="day_adjustments")
    closed = models.ForeignKey(GamingDayClose, on_delete=models.PROTECT, related_name="adjustments")
    day = models.DateField(help_text="The open gaming day the adjustment is posted into.")
    table = models.ForeignKey("tables.Table", on_delete=models.PROTECT, related_name="day_adjustments")
    changes = models.JSONField(help_text='Figure to change in units, e.g. {"fills": 500, "win": -500}.')
    memo = models.CharField(max_length=200)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["at", "pk"]

    def __str__(self):
        return f"{self.table}: adjustment of {self.closed.day} posted into {self.day}"

    def seal_content(self) -> dict:
        return {
            "casino": self.casino_id,
            "closed": self.closed_id,
            "day": self.day.isoformat(),
            "table": self.table_id,
            "changes": {str(name): int(delta) for name, delta in self.changes.items()},
            "memo": self.memo,
            "created_by": self.created_by_id,
            "at": utc_iso(self.at),
        }
