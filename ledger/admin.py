"""The ledger in the admin: for reading only, by everyone, superusers included.

Money moves through `ledger.services` alone; an admin form that saved a posting would be a second
way in, so add, change and delete are refused here whatever a user's permissions say. Every list
exports as CSV (`casino.admin_csv`). An auditor limited to one casino reads that casino's
transactions, postings and accounts only; chains and seals belong to no casino and are hidden
from them (`casino.admin_scope`).
"""

from django.contrib import admin

from casino.admin_csv import CsvExportMixin
from casino.admin_scope import CasinoScoped

from .models import Account, Chain, Posting, Seal, Transaction
from .services import with_balances


class ReadOnly:
    """No add, change or delete in the admin, for anyone: records written by the services only."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class RecordAdmin(ReadOnly, CasinoScoped, CsvExportMixin, admin.ModelAdmin):
    """A read-only list with CSV export, kept to the casino of an auditor limited to one
    (`casino_paths`): the shape of every record's admin."""


class PostingInline(ReadOnly, admin.TabularInline):
    model = Posting
    fields = ["account", "amount", "reason"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("account")


@admin.register(Transaction)
class TransactionAdmin(RecordAdmin):
    casino_paths = ("casino",)
    list_display = [
        "created_at",
        "kind",
        "table",
        "hand_id",
        "memo",
        "created_by",
        "approved_by",
        "chain",
        "position",
    ]
    list_filter = [
        "kind",
        ("casino", admin.RelatedOnlyFieldListFilter),
        ("table__pit", admin.RelatedOnlyFieldListFilter),
        ("table", admin.RelatedOnlyFieldListFilter),
        ("created_by", admin.RelatedOnlyFieldListFilter),
        "created_at",
    ]
    list_select_related = ["table", "created_by", "approved_by", "chain"]
    search_fields = ["memo", "reason", "=hand_id"]
    date_hierarchy = "created_at"
    inlines = [PostingInline]


@admin.register(Posting)
class PostingAdmin(RecordAdmin):
    casino_paths = ("transaction__casino",)
    list_display = ["transaction", "created_at", "table", "account", "amount", "reason"]
    list_filter = [
        "transaction__kind",
        "account__kind",
        ("transaction__table__pit", admin.RelatedOnlyFieldListFilter),
        ("transaction__table", admin.RelatedOnlyFieldListFilter),
        "transaction__created_at",
    ]
    list_select_related = ["transaction__table", "account"]
    search_fields = ["account__code", "account__label", "reason", "=transaction__hand_id"]
    date_hierarchy = "transaction__created_at"
    csv_fields = [
        "id",
        "transaction_id",
        "transaction__created_at",
        "transaction__kind",
        "transaction__table__name",
        "transaction__hand_id",
        "account_id",
        "account__code",
        "amount",
        "reason",
    ]

    @admin.display(ordering="transaction__created_at", description="when")
    def created_at(self, posting):
        return posting.transaction.created_at

    @admin.display(ordering="transaction__table__name", description="table")
    def table(self, posting):
        return posting.transaction.table


@admin.register(Account)
class AccountAdmin(RecordAdmin):
    casino_paths = ("casino",)
    list_display = ["code", "kind", "label", "table", "held", "floor"]
    list_filter = [
        "kind",
        ("casino", admin.RelatedOnlyFieldListFilter),
        ("table__pit", admin.RelatedOnlyFieldListFilter),
        ("table", admin.RelatedOnlyFieldListFilter),
    ]
    list_select_related = ["table"]
    search_fields = ["code", "label"]

    def get_queryset(self, request):
        return with_balances(super().get_queryset(request))

    def get_csv_fields(self, request):
        # `balance` is empty for an account that keeps none (the cage): the export carries the
        # balance the list shows as well.
        return [*super().get_csv_fields(request), "held"]

    @admin.display(ordering="held", description="balance")
    def held(self, account):
        """The cached balance, or the postings' sum for an account that keeps none (the cage)."""
        return account.held


@admin.register(Chain)
class ChainAdmin(RecordAdmin):
    list_display = ["name", "length", "head"]
    search_fields = ["name"]


@admin.register(Seal)
class SealAdmin(RecordAdmin):
    """The figures of a slip, request, count or signature as each write left them."""

    list_display = ["at", "model", "record", "event", "chain", "position"]
    list_filter = ["model", "event", "at"]
    list_select_related = ["chain"]
    search_fields = ["=record", "chain__name"]
    date_hierarchy = "at"
