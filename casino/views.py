from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from tables.models import Table


@login_required
def home(request):
    """The floor: every table with its pit and game."""
    tables = Table.objects.select_related("pit__casino").order_by("pit__name", "name")
    return render(request, "casino/home.html", {"tables": tables})
