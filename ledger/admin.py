"""The ledger in the admin: for reading only, by everyone, superusers included.

Money moves through `ledger.services` alone; an admin form that saved a posting would be a second
way in, so add, change and delete are refused here whatever a user's permissions say.
"""

from django.contrib import admin

from .models import Account, Chain, Posting, Transaction


class ReadOnly:
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class PostingInline(ReadOnly, admin.TabularInline):
    model = Posting
    fields = ["account", "amount", "reason"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("account")


@admin.register(Transaction)
class TransactionAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["created_at", "kind", "table", "hand_id", "memo", "created_by", "approved_by", "position"]
    list_filter = ["kind", "casino", "table"]
    list_select_related = ["table", "created_by", "approved_by"]
    search_fields = ["memo", "reason", "=hand_id"]
    date_hierarchy = "created_at"
    inlines = [PostingInline]


@admin.register(Posting)
class PostingAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["transaction", "account", "amount", "reason"]
    list_select_related = ["transaction", "account"]
    search_fields = ["account__code", "reason"]


@admin.register(Account)
class AccountAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["code", "kind", "label", "table", "balance", "floor"]
    list_filter = ["kind", "casino"]
    list_select_related = ["table"]
    search_fields = ["code", "label"]


@admin.register(Chain)
class ChainAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["name", "length", "head"]
    search_fields = ["name"]
