"""The money: an append-only, double-entry ledger in whole units, chained for tamper evidence.

What it records: accounts (a table's tray, drop box, carry and rake; the casino's cage, its count
variance and the patrons outside; each seat session's chips in front of the player; each hand's
wagers and pot), and transactions made of postings. A posting's amount is an `int` of the table's chip units:
positive adds chips (or cash) to its account, negative takes them away.

Invariants, each held by the database as well as by `ledger.services`:
- every transaction has at least two postings, none zero, summing to zero (a trigger checks at
  commit; see `ledger.db`);
- transactions and postings are never updated or deleted, nor truncated (triggers that fire
  always, and the ORM refuses too); a mistake is corrected by a new transaction that reverses it;
- an account with a floor never holds less than it (a check constraint on the cached balance,
  and the service refuses the posting with a sentence staff understand);
- every transaction, like every card event and decision, sits in a hash chain (one per table,
  one per casino for the cage): its hash covers its content and the hash before it.
- the figures of records kept outside the chains (hands, slips, counts, signatures, approval
  requests) are sealed: each write of them appends a `Seal` with the figures to the table's chain.

`Chain` is the only ledger row that changes: it caches its chain's length and head. `Account`
caches its balance, which only `ledger_post` changes, under the row lock, in the same database
transaction as the postings; `verify_ledger` checks both caches against the records.
"""

import uuid
from datetime import UTC

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

ZERO_HASH = "0" * 64  # prev_hash of a chain's first record


class AppendOnlyError(RuntimeError):
    """Code tried to update or delete an append-only record: a bug, never a staff mistake."""


def _refuse(model: type[models.Model], action: str):
    label = model._meta.label
    raise AppendOnlyError(
        f"{label} records are append-only: they cannot be {action}. "
        "A mistake is corrected by a new transaction that reverses it (ledger_reverse)."
    )


class AppendOnlyQuerySet(models.QuerySet):
    """Reads and inserts only: every bulk write path that changes or removes rows raises."""

    def update(self, **kwargs):
        _refuse(self.model, "updated")

    def _update(self, values):
        _refuse(self.model, "updated")

    def bulk_update(self, objs, fields, batch_size=None):
        _refuse(self.model, "updated")

    def delete(self):
        _refuse(self.model, "deleted")

    def _raw_delete(self, using):
        _refuse(self.model, "deleted")


class AppendOnly(models.Model):
    """Rows are inserted once and never changed: the ORM half of the protection.

    The database half is the migration operation `ledger.db.AppendOnly(model_name)`, which every
    concrete subclass's migration must apply (the `ledger` system checks say so if it is missing;
    `verify_ledger` checks the triggers are in place). A subclass that declares its own manager
    must build it from `AppendOnlyQuerySet`.
    """

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            _refuse(type(self), "updated")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        _refuse(type(self), "deleted")


class Chain(models.Model):
    """One hash chain: `table:<id>` for a table's records, `casino:<id>` for the cage's."""

    name = models.CharField(max_length=50, unique=True)
    length = models.BigIntegerField(default=0)
    head = models.CharField(max_length=64, default=ZERO_HASH)

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(length__gte=0), name="chain_length_not_negative")]

    def __str__(self):
        return f"{self.name} ({self.length} records)"


class Chained(models.Model):
    """A record in a hash chain; `ledger.chain.chain_append` fills these four fields.

    `hash` is sha256(prev_hash + canonical JSON of `chain_content()`), hex. `chain_content` must
    return only values that come back from the database unchanged (ints, strings, ISO times in
    UTC): `chain_append` reloads the row and refuses it otherwise. Subclasses that declare Meta
    must inherit it (`class Meta(Chained.Meta)`) and keep its constraint; the `ledger` checks
    refuse a concrete subclass without the (chain, position) unique constraint.
    """

    # No index of its own: the (chain, position) constraint's index serves every lookup by chain,
    # and one index fewer is less work and WAL for each record written (docs/performance.md).
    chain = models.ForeignKey(Chain, on_delete=models.PROTECT, related_name="+", db_index=False)
    position = models.PositiveBigIntegerField()
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)

    class Meta:
        abstract = True
        constraints = [
            models.UniqueConstraint(
                fields=["chain", "position"], name="%(app_label)s_%(class)s_one_record_per_position"
            )
        ]

    def chain_content(self) -> dict:
        """What the hash covers: JSON-able values only. Subclasses add their own fields."""
        return {"model": self._meta.label}

    @classmethod
    def chain_queryset(cls) -> models.QuerySet:
        """The rows to walk when verifying, with whatever `chain_content` reads prefetched."""
        return cls._default_manager.all()



def utc_iso(moment) -> str | None:
    """A time as chained and sealed: ISO 8601 in UTC to the microsecond (what the database returns)."""
    return None if moment is None else moment.astimezone(UTC).isoformat(timespec="microseconds")


class Sealed:
    """A record whose figures a `Seal` in its table's chain vouches for (a mixin for models).

    For records the app still changes (a slip voided, a request decided) or that carry no chain
    fields of their own: every write of their figures appends a seal with them, in the same
    database transaction (`ledger.seals.seal`), and `verify_ledger` compares each record with its
    latest seal. `seal_content` follows the rules of `Chained.chain_content`: JSON values that come
    back from the database unchanged (ints, strings with string keys, `utc_iso` times).

    `seal_changes` names the figures a later seal may hold changed (a slip's status as it is voided);
    every other figure keeps the value it was first sealed with, and `verify_ledger` names a record
    sealed again with another: anyone who may call `seal` could otherwise edit a record and seal it
    anew, and the new seal, appended after the last anchor, would pass the walk and the anchor.
    """

    seal_changes: frozenset[str] = frozenset()  # an append-only record: nothing changes
    # A record its service may remove (a casino's rules, back to the defaults): sealed with the event
    # `REMOVED` as it goes, so `verify_ledger` tells that removal from a deletion outside the app.
    seal_removable: bool = False

    def seal_content(self) -> dict:
        raise NotImplementedError(f"{type(self).__name__} must say what its seal covers.")

    @property
    def seal_required(self) -> bool:
        """Whether a row without a seal was written outside the app: true of every record but those
        a model leaves unsealed on purpose (a hand's pot, `Account`)."""
        return True


REMOVED = "removed"  # the event of the seal a removable record takes as its service removes it


class Seal(Chained, AppendOnly):
    """The figures of a `Sealed` record as written at one moment (issued, voided, decided...).

    `model` and `record` name it without a foreign key, so the ledger depends on no other app and a
    deleted record leaves its seal behind as evidence.
    """

    model = models.CharField(max_length=100, help_text='The sealed record\'s model, e.g. "tables.Slip".')
    record = models.BigIntegerField(help_text="The sealed record's primary key.")
    event = models.CharField(max_length=30, help_text='What wrote the figures, e.g. "issued", "voided".')
    figures = models.JSONField(help_text="The record's sealed figures (its seal_content()).")
    at = models.DateTimeField(default=timezone.now)

    class Meta(Chained.Meta):
        indexes = [models.Index(fields=["model", "record", "position"], name="ledger_seal_by_record")]

    def __str__(self):
        return f"Seal of {self.model} {self.record} ({self.event})"

    def chain_content(self) -> dict:
        return {
            **super().chain_content(),
            "sealed": self.model,
            "record": self.record,
            "event": self.event,
            "figures": self.figures,
            "at": utc_iso(self.at),
        }


class Account(Sealed, models.Model):
    """Where chips or cash sit. `balance` is a cache of the sum of the account's postings.

    Sealed as it is made (docs/ledger.md, "Accounts"), so that two accounts whose kind, code or ref
    were swapped in the database are named by `verify_ledger`: a posting's hash holds only its
    account's id, and what that id is (whose chips, which of the table's boxes) is the seal's. An
    account of a record is sealed with the record, in the insert of the record's own seal: a seat
    session's chips (`seat_open`), a hand's wagers (`hand_start`). The others are sealed by
    `ledger.services.accounts_sealed`: a table's tray, drop box, carry and rake with the table
    (`table_create`), and on first use any of them a table made before had not (`account_get`),
    as the casino's cage, patrons and count variance are. Not sealed: a hand's pot, made on first
    use in a pot game's step where the hand's seal is not written; it cannot take the place of its
    hand's sealed wagers, or of any sealed account, without that account's seal naming the swap.
    """

    class Kind(models.TextChoices):
        TRAY = "tray", "Chip tray"
        DROP = "drop", "Drop box"
        CAGE = "cage", "Cage"
        PATRONS = "patrons", "Patrons"
        PLAYER = "player", "Player's chips"
        WAGER = "wager", "Wagers on the layout"
        POT = "pot", "Pot"
        CARRY = "carry", "Carry to the next pot"
        RAKE = "rake", "Rake"
        VARIANCE = "variance", "Count variance"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    casino = models.ForeignKey("tables.Casino", on_delete=models.PROTECT, related_name="accounts")
    table = models.ForeignKey(
        "tables.Table", on_delete=models.PROTECT, null=True, blank=True, related_name="accounts"
    )
    ref = models.BigIntegerField(
        null=True, blank=True, help_text="The seat session (player accounts) or the hand (wagers, pot)."
    )
    code = models.CharField(max_length=60, unique=True)
    label = models.CharField(max_length=100, blank=True, help_text='What staff call it, e.g. "Seat 3".')
    floor = models.BigIntegerField(null=True, blank=True, help_text="Lowest balance allowed; empty: none.")
    # Empty for a casino-wide account without a floor (the cage, the patrons, the count variance): its
    # balance is the sum of its postings. A cached one would be a row every table's buy-ins, cash-outs,
    # fills and credits lock until commit, so the whole floor would wait on it (issue 17).
    balance = models.BigIntegerField(null=True, blank=True, default=0)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(floor__isnull=True) | Q(balance__gte=F("floor")),
                name="account_balance_above_floor",
            ),
            models.CheckConstraint(
                condition=Q(balance__isnull=False) | Q(table__isnull=True, floor__isnull=True),
                name="account_balance_cached_where_checked",
            ),
        ]

    def __str__(self):
        return self.code

    # Everything but `balance`, which every post moves: what the reports read postings by.
    def seal_content(self) -> dict:
        return {
            "kind": self.kind,
            "casino": self.casino_id,
            "table": self.table_id,
            "ref": self.ref,
            "code": self.code,
            "label": self.label,
            "floor": self.floor,
        }

    @property
    def seal_required(self) -> bool:
        return self.kind in SEALED_KINDS

    @property
    def cached(self) -> bool:
        """Whether `balance` is kept (and the row locked by each post): a table's account, or one
        with a floor to enforce. The others never hold a figure a post must check."""
        return self.table_id is not None or self.floor is not None

    @property
    def staff_name(self) -> str:
        """The account in staff words, for error messages: "Seat 3", "The tray"."""
        if self.label:
            return self.label
        return {
            self.Kind.TRAY: "The tray",
            self.Kind.DROP: "The drop box",
            self.Kind.CAGE: "The cage",
            self.Kind.PATRONS: "The patrons",
            self.Kind.PLAYER: f"The player of seat session {self.ref}",
            self.Kind.WAGER: f"The wagers of hand {self.ref}",
            self.Kind.POT: f"The pot of hand {self.ref}",
            self.Kind.CARRY: "The carry",
            self.Kind.RAKE: "The rake",
            self.Kind.VARIANCE: "The count variance",
        }[self.kind]


# The accounts sealed as they are made (`Account`): every kind but a hand's pot.
SEALED_KINDS = frozenset(Account.Kind) - {Account.Kind.POT}


class Transaction(Chained, AppendOnly):
    """One movement of chips or cash: its postings sum to zero."""

    class Kind(models.TextChoices):
        OPENING = "opening", "Opening count (cage to tray)"
        BUY_IN = "buy_in", "Buy-in"
        BET = "bet", "Bet"
        ANTE = "ante", "Ante"
        SETTLEMENT = "settlement", "Settlement"
        CASH_OUT = "cash_out", "Cash-out"
        CHIPS_IN = "chips_in", "Chips brought to a seat"
        FILL = "fill", "Fill (cage to tray)"
        CREDIT = "credit", "Credit (tray to cage)"
        DROP_COUNT = "drop_count", "Drop box to the count room"
        CORRECTION = "correction", "Correction"
        CLOSING = "closing", "Closing count (tray to cage)"
        TIME_CHARGE = "time_charge", "Time charge (seat to rake)"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    memo = models.CharField(max_length=200, blank=True)
    casino = models.ForeignKey("tables.Casino", on_delete=models.PROTECT, related_name="transactions")
    table = models.ForeignKey(
        "tables.Table", on_delete=models.PROTECT, null=True, blank=True, related_name="transactions"
    )
    hand_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    # A default rather than auto_now_add: the value must exist before hashing, and save() must not
    # replace it afterwards.
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reverses = models.ForeignKey(  # indexed by the reversed_once constraint
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="reversed_by", db_index=False
    )
    reason = models.TextField(blank=True)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta(Chained.Meta):
        constraints = Chained.Meta.constraints + [
            # A transaction is reversed at most once, even by two pit managers at the same moment.
            models.UniqueConstraint(fields=["reverses"], name="ledger_transaction_reversed_once"),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} {self.id}"

    def chain_content(self) -> dict:
        lines = sorted((p.account_id, p.amount, p.reason) for p in self.postings.all())
        return {
            **super().chain_content(),
            "id": str(self.id),
            "kind": self.kind,
            "memo": self.memo,
            "casino": self.casino_id,
            "table": self.table_id,
            "hand": self.hand_id,
            "created_at": utc_iso(self.created_at),
            "created_by": self.created_by_id,
            "reverses": str(self.reverses_id) if self.reverses_id else None,
            "reason": self.reason,
            "approved_by": self.approved_by_id,
            "lines": [list(line) for line in lines],
        }

    @classmethod
    def chain_queryset(cls) -> models.QuerySet:
        return cls.objects.prefetch_related("postings")


class Posting(AppendOnly):
    """One line of a transaction: `amount` units into (positive) or out of `account`."""

    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, related_name="postings")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="postings")
    amount = models.BigIntegerField()
    reason = models.CharField(max_length=100, blank=True, help_text='e.g. "fold price", "pot split".')

    class Meta:
        constraints = [models.CheckConstraint(condition=~Q(amount=0), name="posting_amount_not_zero")]

    def __str__(self):
        return f"{self.account} {self.amount:+d}"
