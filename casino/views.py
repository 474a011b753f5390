from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from tables.selectors import tables_visible_to


@login_required
def home(request):
    """The floor as this user may see it, each table linking to its tablet screen."""
    return render(request, "tables/floor.html", {"tables": tables_visible_to(request.user)})
