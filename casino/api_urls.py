"""Everything under /api/: the table operations and the read-only ledger.

The schema (/api/schema/) and its interactive docs (/api/docs/) are routed in
`casino.urls`, next to this.
"""

from django.urls import include, path

urlpatterns = [
    path("", include("tables.api.urls")),
    path("", include("ledger.api")),
    path("reports/", include("reports.api")),
]
