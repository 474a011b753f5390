from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from . import health, views

urlpatterns = [
    path("", views.home, name="home"),
    path("health/", health.health, name="health"),
    path("tablet/", include("tables.urls")),
    path("pit/", include("tables.pit_urls")),
    path("reports/", include("reports.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its start-up script as a file: the content security policy refuses inline scripts.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("api/", include("casino.api_urls")),
]
