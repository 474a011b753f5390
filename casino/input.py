"""Refuse a NUL byte in a URL before any view reads it.

PostgreSQL's text cannot hold NUL (0x00): a query string carrying one into a filter (the admin's list
filters, the ratings page's `?player=`) made the database driver raise, a 500. Forms and the API's
fields already refuse NUL in what they parse (Django's ProhibitNullCharactersValidator); this covers
the query string and the path, which views read directly. The answer is a plain 400 (JSON under
/api/, like every API refusal).
"""

from django.http import HttpResponseBadRequest, JsonResponse

NUL = "\x00"
REFUSED = "A URL may not contain a NUL character (%00); nothing was done."


class NulRefusedMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if carries_nul(request):
            if request.path_info.startswith("/api/"):
                return JsonResponse({"detail": REFUSED}, status=400)
            return HttpResponseBadRequest(REFUSED)
        return self.get_response(request)


def carries_nul(request) -> bool:
    query = request.GET.lists()
    return NUL in request.path_info or any(NUL in name or NUL in "".join(values) for name, values in query)
