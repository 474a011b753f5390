"""The floor and its records in the admin, for auditors above all.

Administrators edit the floor here: casinos; pits and tables through the services that check and
audit them (`pit_create`, `table_create`, `table_settings_change`); nothing of the floor is deleted.
They also set the casino an auditor is limited to (`StaffCasino`, audited); shifts are the pit's.
An auditor limited to one casino sees only its rows in every list, record page and CSV export
(`casino.admin_scope`). Everything written by the table services (shoes, seats, hands, cards, card
corrections, decisions, incidents and their findings, approvals, slips, signatures, counts, drop
boxes, their custody and counts) is read-only for everyone, superusers included: an edit here would
skip the locks, the ledger, the hash chain or dual control. Every list filters by what applies of
table, pit, game, dealer and date, loads its related rows in the same query, and exports as CSV.
"""

from django import forms
from django.contrib import admin
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.auth import get_user_model
from django.db.models import Case, CharField, F, IntegerField, JSONField, Q, Value, When
from django.urls import reverse
from django.utils.html import format_html

from casino.admin_csv import CsvExportMixin
from casino.admin_rules import AuditedRules
from casino.admin_scope import CasinoScoped, within_limit
from casino.audit import audit_record
from casino.errors import DomainError
from casino.models import AuditEvent
from casino.roles import AUDITOR
from ledger.admin import RecordAdmin

from .models import (
    ApprovalRequest,
    BackEntry,
    CardCorrection,
    CardEvent,
    CashIn,
    Casino,
    Comp,
    CountedDrop,
    Decision,
    DropBox,
    DropCount,
    DropCustody,
    Hand,
    HeldQueue,
    IdempotentRequest,
    Incident,
    IncidentFinding,
    Pit,
    Player,
    PlayerRules,
    RatingSlip,
    RatingSlipEvent,
    Recycle,
    Seat,
    SeatSession,
    SeatSessionIdentified,
    Shift,
    Shoe,
    Signature,
    Slip,
    SlipSeries,
    StaffCasino,
    Table,
    TableCount,
    TimeCharge,
)
from .services import pit_create, table_create, table_settings_change
from .services.settings import SETTINGS

RECENT_SHIFTS = 20  # shifts offered in the hands' "shift" filter; any other is reached from Shift
TABLE_CASINO = "table__pit__casino"  # from a record at a table to its casino (`casino_paths`)


def related_only(field: str):
    """A filter offering only the rows the list refers to (not every user or table there is)."""
    return (field, admin.RelatedOnlyFieldListFilter)


# The floor: edited by administrators


@admin.register(Casino)
class CasinoAdmin(CasinoScoped, CsvExportMixin, admin.ModelAdmin):
    casino_paths = ("pk",)
    list_display = ["name"]
    search_fields = ["name"]

    def has_delete_permission(self, request, obj=None):
        return False  # nothing of the floor is deleted; a casino in use could not be anyway


class ServiceForm(forms.ModelForm):
    """An admin form whose save is a service call: `write(by)` runs once the form and the model
    found nothing wrong (the last step of validation, so nothing can refuse after it), and a refusal
    (`DomainError`) is shown on the form with its sentence, nothing written. The form's instance is
    then the row the service wrote, and the admin saves nothing itself."""

    by = None  # the user, set by ServiceAdmin.get_form

    def _post_clean(self):
        super()._post_clean()
        if not self.errors:
            try:
                self.instance = self.write(self.by)
            except DomainError as error:
                self.add_error(None, error.message)

    def validate_unique(self):
        """The service checks names, in its own words, before it writes."""

    def write(self, by):
        raise NotImplementedError


class ServiceAdmin(CsvExportMixin, admin.ModelAdmin):
    """The floor's rows are written by services (audited), never deleted: their records point at them."""

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        return type(form.__name__, (form,), {"by": request.user})

    def save_model(self, request, obj, form, change):
        """Saved already, by the service `form.write` called."""

    def has_delete_permission(self, request, obj=None):
        return False


class PitForm(ServiceForm):
    class Meta:
        model = Pit
        fields = ["casino", "name"]

    def write(self, by):
        return pit_create(casino=self.cleaned_data["casino"], name=self.cleaned_data["name"], by=by)


@admin.register(Pit)
class PitAdmin(CasinoScoped, ServiceAdmin):
    """Pits are created here (`pit_create`, audited); a pit is never renamed or deleted."""

    casino_paths = ("casino",)
    form = PitForm
    list_display = ["name", "casino"]
    list_filter = [related_only("casino")]
    list_select_related = ["casino"]
    search_fields = ["name", "casino__name"]

    def has_change_permission(self, request, obj=None):
        return False


class TableForm(ServiceForm):
    """A new table (`table_create`) or a change of its settings (`table_settings_change`): both
    checked and audited with the reason given here."""

    reason = forms.CharField(
        max_length=500, required=False, help_text="Kept in the audit log with the change."
    )

    class Meta:
        model = Table
        fields = ["pit", "name", *SETTINGS]

    def write(self, by):
        data = {name: self.cleaned_data[name] for name in SETTINGS}
        reason = self.cleaned_data["reason"]
        if self.instance.pk is None:
            where = {"pit": self.cleaned_data["pit"], "name": self.cleaned_data["name"]}
            return table_create(**where, **data, by=by, reason=reason)
        return table_settings_change(table=self.instance, **data, by=by, reason=reason)


@admin.register(Table)
class TableAdmin(CasinoScoped, ServiceAdmin):
    """Tables are created and their settings changed through the services; pit and name stay."""

    casino_paths = ("pit__casino",)
    form = TableForm
    list_display = [
        "name",
        "pit",
        "game",
        "min_bet",
        "max_bet",
        "chip_unit_cents",
        "payout_approval_threshold",
    ]
    list_filter = ["game", related_only("pit__casino"), related_only("pit")]
    list_select_related = ["pit__casino"]
    search_fields = ["name", "pit__name"]

    def get_readonly_fields(self, request, obj=None):
        return ["pit", "name"] if obj is not None else []


@admin.register(StaffCasino)
class StaffCasinoAdmin(CasinoScoped, CsvExportMixin, admin.ModelAdmin):
    """Administrators hold an auditor to one casino here (or lift it by deleting the row); every
    change goes to the audit log, with the auditor and the casino (none once lifted)."""

    casino_paths = ("casino",)
    list_display = ["user", "casino"]
    list_filter = [related_only("casino")]
    list_select_related = ["user", "casino"]
    search_fields = ["user__username", "casino__name"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "user":  # only an auditor reads without a shift, so only one is held
            kwargs["queryset"] = get_user_model().objects.filter(groups__name=AUDITOR).order_by("username")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        self.audit(request, obj, obj.casino.name)

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        self.audit(request, obj, None)

    def delete_queryset(self, request, queryset):
        lifted = list(queryset.select_related("user"))
        super().delete_queryset(request, queryset)
        for obj in lifted:
            self.audit(request, obj, None)

    def audit(self, request, obj: StaffCasino, casino: str | None) -> None:
        audit_record(
            action=AuditEvent.Action.AUDITOR_CASINO,
            user=request.user,
            auditor=obj.user.get_username(),
            casino=casino,
        )


@admin.register(Shift)
class ShiftAdmin(RecordAdmin):
    """Read-only: the pit runs shifts (`tables.services.shifts`), which check and audit each change."""

    casino_paths = ("table__pit__casino", "pit__casino")

    list_display = [
        "user",
        "table",
        "pit",
        "started_at",
        "started_by",
        "ended_at",
        "ended_reason",
        "ended_by",
        "hands",
    ]
    list_filter = [
        ("ended_at", admin.EmptyFieldListFilter),
        "ended_reason",
        related_only("table"),
        related_only("pit"),
        related_only("user"),
        "started_at",
    ]
    list_select_related = ["user", "table", "pit__casino", "started_by", "ended_by"]
    search_fields = ["user__username", "table__name", "pit__name"]
    date_hierarchy = "started_at"

    @admin.display(description="hands")
    def hands(self, shift):
        if shift.table_id is None:
            return "-"
        url = reverse("admin:tables_hand_changelist") + f"?{HandShiftFilter.parameter_name}={shift.pk}"
        return format_html('<a href="{}">hands dealt</a>', url)


# Records written by the services: read-only


@admin.register(Shoe)
class ShoeAdmin(RecordAdmin):
    casino_paths = (TABLE_CASINO,)
    list_display = [
        "table",
        "decks",
        "kind",
        "state",
        "cards_out",
        "cut_card_out",
        "created_at",
        "retired_at",
    ]
    list_filter = [
        "kind",
        "state",
        "table__game",
        related_only("table__pit"),
        related_only("table"),
        "created_at",
    ]
    list_select_related = ["table"]
    search_fields = ["table__name", "commitment"]
    date_hierarchy = "created_at"
    readonly_fields = ["commitment", "order", "salt", "cards_out", "cut_card_out", "retired_at"]
    csv_exclude = ["order", "salt"]  # exported by csv_queryset, and only once the shoe is retired

    def get_exclude(self, request, obj=None):
        # A system shoe's order stays secret while it deals; it is revealed on retirement.
        if obj is None or obj.state != Shoe.State.RETIRED:
            return ["order", "salt"]
        return []

    def get_readonly_fields(self, request, obj=None):
        return [f for f in self.readonly_fields if f not in self.get_exclude(request, obj)]

    def get_csv_fields(self, request):
        return [*super().get_csv_fields(request), "order_if_retired", "salt_if_retired"]

    def csv_queryset(self, request, queryset):
        retired = Q(state=Shoe.State.RETIRED)
        return queryset.annotate(
            order_if_retired=Case(
                When(retired, then=F("order")), default=Value(None), output_field=JSONField()
            ),
            salt_if_retired=Case(When(retired, then=F("salt")), default=Value(""), output_field=CharField()),
        )


@admin.register(Seat)
class SeatAdmin(RecordAdmin):
    casino_paths = (TABLE_CASINO,)
    list_display = ["table", "number"]
    list_filter = ["table__game", related_only("table__pit"), related_only("table")]
    list_select_related = ["table"]
    search_fields = ["table__name"]


@admin.register(SeatSession)
class SeatSessionAdmin(RecordAdmin):
    casino_paths = ("seat__table__pit__casino",)
    list_display = ["seat", "player_name", "buy_in", "started_at", "ended_at", "started_by"]
    list_filter = [
        ("ended_at", admin.EmptyFieldListFilter),
        "seat__table__game",
        related_only("seat__table__pit"),
        related_only("seat__table"),
        related_only("started_by"),
        "started_at",
    ]
    list_select_related = ["seat__table", "started_by"]
    search_fields = ["player_name", "seat__table__name"]
    date_hierarchy = "started_at"


class HandShiftFilter(admin.SimpleListFilter):
    """Hands dealt at a dealer's table while their shift lasted."""

    title = "shift"
    parameter_name = "shift"

    def lookups(self, request, model_admin):
        shifts = within_limit(Shift.objects.exclude(table=None), request.user, (TABLE_CASINO,))
        shifts = shifts.select_related("user", "table").order_by("-started_at")
        return [
            (str(s.pk), f"{s.user} at {s.table}, {s.started_at:%Y-%m-%d %H:%M}")
            for s in shifts[:RECENT_SHIFTS]
        ]

    def queryset(self, request, queryset):
        if not self.value():
            return queryset
        if not self.value().isdecimal():  # a typed URL: the admin says its filter was wrong (?e=1)
            raise IncorrectLookupParameters(f"A shift is named by its number, not {self.value()!r}.")
        shift = Shift.objects.filter(pk=self.value()).exclude(table=None).first()
        if shift is None:
            return queryset.none()
        during = queryset.filter(table_id=shift.table_id, started_at__gte=shift.started_at)
        return during if shift.ended_at is None else during.filter(started_at__lt=shift.ended_at)


@admin.register(Hand)
class HandAdmin(RecordAdmin):
    casino_paths = (TABLE_CASINO,)
    list_display = ["__str__", "game", "status", "started_at", "settled_at", "started_by", "seq"]
    list_filter = [
        "game",
        "status",
        related_only("table__pit"),
        related_only("table"),
        related_only("started_by"),
        HandShiftFilter,
        "started_at",
    ]
    list_select_related = ["table", "started_by"]
    search_fields = ["=number", "table__name"]
    date_hierarchy = "started_at"


# A card's rank is shown here once its hand is settled or voided (a burn outside any hand, once its
# shoe is retired): a hole card a system shoe dealt must not be read while the hand is in play. This
# list cannot tell face down from face up without replaying each hand, so it shows no rank of a hand
# in play; the pit's hand review does, face-up cards only (docs/pit.md, "Hand review").
RANK_SHOWN = Q(hand__status__in=[Hand.Status.SETTLED, Hand.Status.VOIDED]) | Q(
    hand=None, shoe__state=Shoe.State.RETIRED
)


@admin.register(CardEvent)
class CardEventAdmin(RecordAdmin):
    casino_paths = ("shoe__table__pit__casino",)
    list_display = [
        "hand",
        "seq",
        "shoe_position",
        "rank_shown",
        "receiver",
        "seat",
        "why",
        "keyed_by",
        "device",
        "at",
    ]
    list_filter = [
        "receiver",
        "shoe__table__game",
        related_only("shoe__table__pit"),
        related_only("shoe__table"),
        related_only("keyed_by"),
        "at",
    ]
    list_select_related = ["hand__table", "keyed_by"]
    search_fields = ["device", "=hand__number", "shoe__table__name"]
    date_hierarchy = "at"
    readonly_fields = ["rank_shown"]
    csv_exclude = ["rank"]  # exported as rank_if_shown

    def get_queryset(self, request):
        shown = Case(When(RANK_SHOWN, then=F("rank")), default=Value(None), output_field=IntegerField())
        return super().get_queryset(request).annotate(rank_if_shown=shown, rank_waits=~RANK_SHOWN)

    def get_fields(self, request, obj=None):
        fields = [name for name in super().get_fields(request, obj) if name != "rank_shown"]
        return [name if name != "rank" else "rank_shown" for name in fields]

    def get_csv_fields(self, request):
        return [*super().get_csv_fields(request), "rank_if_shown"]

    @admin.display(description="rank")
    def rank_shown(self, card: CardEvent):
        return "sealed until the hand is over" if card.rank_waits and card.rank is not None else card.rank


@admin.register(CardCorrection)
class CardCorrectionAdmin(RecordAdmin):
    casino_paths = ("hand__table__pit__casino",)
    list_display = [
        "hand",
        "seq",
        "card__shoe_position",
        "card__rank",
        "rank",
        "reason",
        "by",
        "signed_by",
        "method",
        "device",
        "at",
    ]
    list_filter = [
        "hand__game",
        related_only("hand__table__pit"),
        related_only("hand__table"),
        related_only("by"),
        related_only("signed_by"),
        "at",
    ]
    list_select_related = ["hand__table", "card", "by", "signed_by"]
    search_fields = ["device", "reason", "=hand__number", "hand__table__name"]
    date_hierarchy = "at"


@admin.register(Recycle)
class RecycleAdmin(RecordAdmin):
    casino_paths = ("shoe__table__pit__casino",)
    list_display = ["hand", "seq", "shoe", "shoe_position", "cards", "burned", "by", "device", "at"]
    list_filter = [
        "shoe__kind",
        "hand__game",
        related_only("hand__table__pit"),
        related_only("hand__table"),
        "at",
    ]
    list_select_related = ["hand__table", "shoe__table", "by"]
    search_fields = ["device", "commitment", "=hand__number", "hand__table__name"]
    date_hierarchy = "at"
    csv_exclude = ["order", "salt"]  # exported by csv_queryset, and only once the shoe is retired

    def get_exclude(self, request, obj=None):
        # Like its shoe's, a recycled order stays secret until the shoe is retired.
        if obj is None or obj.shoe.state != Shoe.State.RETIRED:
            return ["order", "salt"]
        return []

    def get_csv_fields(self, request):
        return [*super().get_csv_fields(request), "order_if_retired", "salt_if_retired"]

    def csv_queryset(self, request, queryset):
        retired = Q(shoe__state=Shoe.State.RETIRED)
        return queryset.annotate(
            order_if_retired=Case(
                When(retired, then=F("order")), default=Value(None), output_field=JSONField()
            ),
            salt_if_retired=Case(When(retired, then=F("salt")), default=Value(""), output_field=CharField()),
        )


@admin.register(Decision)
class DecisionAdmin(RecordAdmin):
    casino_paths = ("hand__table__pit__casino",)
    list_display = ["hand", "seq", "seat", "action", "by", "device", "at"]
    list_filter = [
        "hand__game",
        related_only("hand__table__pit"),
        related_only("hand__table"),
        related_only("by"),
        "at",
    ]
    list_select_related = ["hand__table", "by"]
    search_fields = ["device", "key", "=hand__number", "hand__table__name"]
    date_hierarchy = "at"


@admin.register(Incident)
class IncidentAdmin(RecordAdmin):
    casino_paths = (TABLE_CASINO,)
    list_display = ["at", "kind", "table", "hand", "by", "device", "detail"]
    list_filter = [
        "kind",
        "table__game",
        related_only("table__pit"),
        related_only("table"),
        related_only("by"),
        "at",
    ]
    list_select_related = ["table", "hand__table", "by"]
    search_fields = ["detail", "device", "key", "table__name"]
    date_hierarchy = "at"


@admin.register(BackEntry)
class BackEntryAdmin(RecordAdmin):
    casino_paths = ("hand__table__pit__casino",)
    list_display = ["at", "hand", "by", "signed_by", "signed_as", "reason"]
    list_filter = [related_only("hand__table__pit"), related_only("hand__table"), related_only("by"), "at"]
    list_select_related = ["hand__table", "by", "signed_by"]
    search_fields = ["reason", "device", "hand__table__name"]
    date_hierarchy = "at"


@admin.register(HeldQueue)
class HeldQueueAdmin(RecordAdmin):
    casino_paths = (TABLE_CASINO,)
    list_display = ["at", "table", "hand", "by", "device", "refusal"]
    list_filter = [related_only("table__pit"), related_only("table"), related_only("by"), "at"]
    list_select_related = ["table", "hand__table", "by"]
    search_fields = ["refusal", "device", "first_key", "table__name"]
    date_hierarchy = "at"


@admin.register(TimeCharge)
class TimeChargeAdmin(RecordAdmin):
    casino_paths = ("session__seat__table__pit__casino",)
    list_display = ["at", "session", "period", "amount", "due_at", "by"]
    list_filter = [related_only("session__seat__table"), related_only("by"), "at"]
    list_select_related = ["session__seat__table", "by"]
    search_fields = ["session__player_name", "session__seat__table__name"]
    date_hierarchy = "at"


@admin.register(ApprovalRequest)
class ApprovalRequestAdmin(RecordAdmin):
    casino_paths = (TABLE_CASINO,)
    list_display = [
        "requested_at",
        "kind",
        "status",
        "table",
        "hand",
        "amount",
        "requested_by",
        "decided_by",
        "decided_at",
    ]
    list_filter = [
        "kind",
        "status",
        "table__game",
        related_only("table__pit"),
        related_only("table"),
        related_only("requested_by"),
        related_only("decided_by"),
        "requested_at",
    ]
    list_select_related = ["table", "hand__table", "requested_by", "decided_by"]
    search_fields = ["reason", "decision_reason", "table__name"]
    date_hierarchy = "requested_at"


@admin.register(IdempotentRequest)
class IdempotentRequestAdmin(RecordAdmin):
    list_display = ["key", "user", "created_at"]
    list_filter = [related_only("user"), "created_at"]
    list_select_related = ["user"]
    search_fields = ["key"]
    date_hierarchy = "created_at"


@admin.register(Slip)
class SlipAdmin(RecordAdmin):
    casino_paths = (TABLE_CASINO,)
    list_display = ["__str__", "kind", "status", "table", "amount", "created_by", "created_at"]
    list_filter = [
        "kind",
        "status",
        "year",
        "table__game",
        related_only("table__pit"),
        related_only("table"),
        related_only("created_by"),
        "created_at",
    ]
    list_select_related = ["table", "created_by"]
    search_fields = ["=serial", "void_reason", "table__name"]
    date_hierarchy = "created_at"


@admin.register(SlipSeries)
class SlipSeriesAdmin(RecordAdmin):
    casino_paths = (TABLE_CASINO,)  # the casino-wide runs of the past belong to no one casino
    list_display = ["table", "year", "first", "last"]
    list_filter = ["year", related_only("table")]
    list_select_related = ["table"]


@admin.register(Signature)
class SignatureAdmin(RecordAdmin):
    casino_paths = ("slip__table__pit__casino",)
    list_display = ["slip", "user", "role", "method", "device", "at"]
    list_filter = [
        "role",
        "method",
        "slip__kind",
        related_only("slip__table__pit"),
        related_only("slip__table"),
        related_only("user"),
        "at",
    ]
    list_select_related = ["slip", "user"]
    search_fields = ["user__username", "device", "=slip__serial"]
    date_hierarchy = "at"


@admin.register(TableCount)
class TableCountAdmin(RecordAdmin):
    casino_paths = (TABLE_CASINO,)
    list_display = ["table", "kind", "slip", "counted", "expected", "difference", "at"]
    list_filter = ["kind", "table__game", related_only("table__pit"), related_only("table"), "at"]
    list_select_related = ["table", "slip"]
    search_fields = ["table__name", "=slip__serial"]
    date_hierarchy = "at"


@admin.register(PlayerRules)
class PlayerRulesAdmin(AuditedRules, CasinoScoped, CsvExportMixin, admin.ModelAdmin):
    """A casino's cash-reporting thresholds and comp share: settings, changed here (audited)."""

    casino_paths = ("casino",)

    list_display = ["casino", "logging_threshold", "reporting_threshold", "comp_share"]


@admin.register(Player)
class PlayerAdmin(RecordAdmin):
    """Players are recorded and merged in the pit (`tables.services.players`), which audits it."""

    casino_paths = ("casino",)

    list_display = ["name", "card_number", "casino", "id_type", "merged_into", "created_at"]
    list_filter = [related_only("casino"), ("merged_into", admin.EmptyFieldListFilter), "created_at"]
    list_select_related = ["casino", "merged_into"]
    search_fields = ["name", "card_number"]


@admin.register(CashIn)
class CashInAdmin(RecordAdmin):
    casino_paths = ("session__seat__table__pit__casino",)
    list_display = ["day", "at", "session", "player", "description", "units", "cents", "logged", "by"]
    list_filter = ["logged", related_only("session__seat__table"), related_only("by"), "day"]
    list_select_related = ["session__seat__table", "player", "by"]
    search_fields = ["player__name", "player__card_number", "description"]
    date_hierarchy = "at"


@admin.register(Comp)
class CompAdmin(RecordAdmin):
    casino_paths = ("player__casino",)
    list_display = ["at", "player", "cents", "reason", "by"]
    list_filter = [related_only("by"), "at"]
    list_select_related = ["player", "by"]
    search_fields = ["player__name", "player__card_number", "reason"]
    date_hierarchy = "at"


@admin.register(DropBox)
class DropBoxAdmin(RecordAdmin):
    casino_paths = (TABLE_CASINO,)
    list_display = ["table", "number", "opener", "attached_at", "attached_by"]
    list_filter = ["table__game", related_only("table__pit"), related_only("table"), "attached_at"]
    list_select_related = ["table", "opener__table", "attached_by"]
    search_fields = ["table__name", "=number"]
    date_hierarchy = "attached_at"


@admin.register(DropCustody)
class DropCustodyAdmin(RecordAdmin):
    casino_paths = ("box__table__pit__casino",)
    list_display = ["box", "step", "by", "device", "at"]
    list_filter = [
        "step", related_only("box__table__pit"), related_only("box__table"), related_only("by"), "at"
    ]
    list_select_related = ["box__table", "by"]
    search_fields = ["box__table__name", "=box__number", "device"]
    date_hierarchy = "at"


@admin.register(DropCount)
class DropCountAdmin(RecordAdmin):
    casino_paths = ("box__table__pit__casino",)
    list_display = ["box", "round", "counter", "total", "denominations", "by", "at"]
    list_filter = [related_only("box__table__pit"), related_only("box__table"), related_only("by"), "at"]
    list_select_related = ["box__table", "by"]
    search_fields = ["box__table__name", "=box__number"]
    date_hierarchy = "at"


@admin.register(CountedDrop)
class CountedDropAdmin(RecordAdmin):
    casino_paths = ("box__table__pit__casino",)
    list_display = ["box", "counted", "expected", "difference", "round", "transaction", "at"]
    list_filter = [related_only("box__table__pit"), related_only("box__table"), "at"]
    list_select_related = ["box__table", "transaction"]
    search_fields = ["box__table__name", "=box__number"]
    date_hierarchy = "at"


@admin.register(IncidentFinding)
class IncidentFindingAdmin(RecordAdmin):
    casino_paths = ("incident__table__pit__casino",)
    list_display = ["incident", "findings", "by", "at"]
    list_filter = ["incident__kind", related_only("incident__table"), related_only("by"), "at"]
    list_select_related = ["incident__table", "by"]
    search_fields = ["findings", "incident__table__name"]
    date_hierarchy = "at"


@admin.register(RatingSlip)
class RatingSlipAdmin(RecordAdmin):
    """Slips are run on the floor (`tables.services.rating_slips`); each step is a RatingSlipEvent."""

    casino_paths = ("player__casino",)
    list_display = ["pk", "player", "created_at"]
    list_filter = ["created_at"]
    list_select_related = ["player"]
    search_fields = ["player__name", "player__card_number"]
    date_hierarchy = "created_at"


@admin.register(SeatSessionIdentified)
class SeatSessionIdentifiedAdmin(RecordAdmin):
    """Written by a pit manager on the table's page (`tables.services.players.identify_session`)."""

    casino_paths = ("player__casino",)
    list_display = ["at", "session", "player", "reason", "by"]
    list_filter = [related_only("session__seat__table"), related_only("by"), "at"]
    list_select_related = ["session__seat__table", "player", "by"]
    search_fields = ["player__name", "player__card_number", "reason"]
    date_hierarchy = "at"


@admin.register(RatingSlipEvent)
class RatingSlipEventAdmin(RecordAdmin):
    casino_paths = ("slip__player__casino",)
    list_display = ["at", "slip", "kind", "session", "by", "device"]
    list_filter = ["kind", related_only("session__seat__table"), related_only("by"), "at"]
    list_select_related = ["slip__player", "session__seat__table", "by"]
    search_fields = ["slip__player__name", "slip__player__card_number", "device"]
    date_hierarchy = "at"
