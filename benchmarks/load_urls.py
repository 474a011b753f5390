"""The project's URLs plus `/floor/`, the floor this stack can reach.

`/floor/` goes through the same granian, middleware and PostgreSQL as every table action, but does
one insert in one transaction and nothing else (no authentication, no rules, no ledger). The load
generator times it beside the real actions so their ratio is read in one run. Its table is made by
`benchmarks/load.py`; nothing else uses it.
"""

from django.db import connection, transaction
from django.http import JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from casino.urls import urlpatterns as project_urlpatterns

FLOOR_TABLE = "load_floor"


@csrf_exempt
@require_POST
def floor(request):
    with transaction.atomic(), connection.cursor() as cursor:
        device = request.headers.get("X-Device", "")
        cursor.execute(f"INSERT INTO {FLOOR_TABLE} (device) VALUES (%s)", [device])
    return JsonResponse({"ok": True}, status=201)


urlpatterns = [path("floor/", floor), *project_urlpatterns]
