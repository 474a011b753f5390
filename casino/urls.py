from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.utils.functional import lazy
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from . import health, views

urlpatterns = [
    path("", views.home, name="home"),
    path("health/", health.health, name="health"),
    # Browsers ask for /favicon.ico on every page without an icon of its own (the admin's too); the
    # icon's URL is looked up when first asked for, once the static files' manifest exists.
    path("favicon.ico", RedirectView.as_view(url=lazy(static, str)("casino/favicon.svg"), permanent=True)),
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

handler404 = views.not_found
