from django.contrib import admin

from .models import Casino, Pit, Shoe, Table


@admin.register(Casino)
class CasinoAdmin(admin.ModelAdmin):
    search_fields = ["name"]


@admin.register(Pit)
class PitAdmin(admin.ModelAdmin):
    list_display = ["name", "casino"]
    list_filter = ["casino"]
    search_fields = ["name"]


@admin.register(Table)
class TableAdmin(admin.ModelAdmin):
    list_display = ["name", "pit", "game", "min_bet", "max_bet", "payout_approval_threshold"]
    list_filter = ["game", "pit"]
    search_fields = ["name"]


@admin.register(Shoe)
class ShoeAdmin(admin.ModelAdmin):
    list_display = ["table", "decks", "kind", "state", "cards_out", "created_at"]
    list_filter = ["kind", "state", "table"]
    readonly_fields = ["commitment", "order", "salt", "cards_out", "cut_card_out", "retired_at"]

    def get_exclude(self, request, obj=None):
        # A system shoe's order stays secret while it deals; it is revealed on retirement.
        if obj is None or obj.state != Shoe.State.RETIRED:
            return ["order", "salt"]
        return []

    def get_readonly_fields(self, request, obj=None):
        return [f for f in self.readonly_fields if f not in self.get_exclude(request, obj)]
