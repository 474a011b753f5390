"""Report pages, under /reports/."""

from django.urls import path

from . import views

app_name = "reports"

urlpatterns = [
    path("", views.report_list, name="list"),
    path("start/", views.report_start, name="start"),
    path("<int:pk>/", views.report_detail, name="detail"),
    path("<int:pk>/progress/", views.report_progress, name="progress"),
    path("<int:pk>/csv/", views.report_csv, name="csv"),
    path("<int:pk>/chart.svg", views.report_chart, name="chart"),
    path("days/<int:casino_id>/", views.day_list, name="days"),
    path("days/<int:casino_id>/close/", views.day_close, name="day_close"),
    path("days/<int:casino_id>/adjust/", views.day_adjust, name="day_adjust"),
    path("adjustments/<int:pk>/", views.adjustment_detail, name="adjustment"),
    path("par-sheets/", views.par_sheet_list, name="par_sheets"),
    path("par-sheets/table/<int:table_id>/", views.par_sheet_page, name="par_sheet"),
    path("par-sheets/table/<int:table_id>/print/", views.par_sheet_print, name="par_sheet_print"),
    path("par-sheets/table/<int:table_id>/progress/", views.par_sheet_progress, name="par_sheet_progress"),
    path("par-sheets/table/<int:table_id>/csv/", views.par_sheet_csv, name="par_sheet_csv"),
    path("investigations/", views.investigation_list, name="investigations"),
    path("investigations/<int:pk>/close/", views.investigation_close_view, name="close"),
]
