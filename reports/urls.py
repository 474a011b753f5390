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
    path("investigations/", views.investigation_list, name="investigations"),
    path("investigations/<int:pk>/close/", views.investigation_close_view, name="close"),
]
