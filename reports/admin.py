"""Reports in the admin: reports and theoretical edges are read-only (the services write them);
administrators edit each casino's variance rules and count rules; investigations are read here and
closed on the investigations page, where the findings are written."""

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.forms import ModelForm

from tables.games import IllegalAction
from tables.simulation import rocket_strategy

from .models import CountRules, Investigation, Report, TheoreticalEdge, VarianceRules


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Report)
class ReportAdmin(ReadOnlyAdmin):
    list_display = [
        "title",
        "kind",
        "status",
        "progress",
        "flags",
        "attempts",
        "deliveries",
        "requested_by",
        "requested_at",
        "finished_at",
    ]
    list_filter = ["kind", "status", "requested_at"]
    list_select_related = ["requested_by"]
    search_fields = ["title", "key"]
    date_hierarchy = "requested_at"


@admin.register(TheoreticalEdge)
class TheoreticalEdgeAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "endless_edge", "edge", "half_width", "hands", "seconds", "computed_at"]
    search_fields = ["config_hash"]


class VarianceRulesForm(ModelForm):
    class Meta:
        model = VarianceRules
        fields = [
            "casino",
            "strategy",
            "z_limit",
            "base_points",
            "confidence",
            "rolling_days",
            "rolling_points",
            "minimum_hands",
        ]

    def clean_strategy(self):
        try:
            rocket_strategy(self.cleaned_data["strategy"])
        except IllegalAction as error:
            raise ValidationError(str(error)) from error
        return self.cleaned_data["strategy"]


@admin.register(VarianceRules)
class VarianceRulesAdmin(admin.ModelAdmin):
    form = VarianceRulesForm
    list_display = [
        "casino",
        "strategy",
        "z_limit",
        "base_points",
        "confidence",
        "rolling_days",
        "rolling_points",
    ]


@admin.register(CountRules)
class CountRulesAdmin(admin.ModelAdmin):
    list_display = ["casino", "investigation_over", "explanation_over", "regulator_over"]
    fields = ["casino", "investigation_over", "explanation_over", "regulator_over"]


@admin.register(Investigation)
class InvestigationAdmin(ReadOnlyAdmin):
    list_display = ["opened_at", "rule", "table", "period_start", "period_end", "status", "closed_by"]
    list_filter = ["status", "rule", "game", "opened_at"]
    list_select_related = ["table", "closed_by"]
    date_hierarchy = "opened_at"
