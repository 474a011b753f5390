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
    list_display = ["table", "decks", "kind", "state", "created_at"]
    list_filter = ["kind", "state", "table"]
