"""The admin site as an auditor limited to one casino sees it: that casino's rows and no other's.

Every ModelAdmin of the floor, the ledger and the reports has `CasinoScoped` and names the paths
from its rows to their casino (`casino_paths`); `get_queryset` keeps a limited auditor
(`tables.selectors.casino_limit`) to the rows of their casino, so the lists, their filters
(`RelatedOnlyFieldListFilter` offers only what the list holds), a record's page (any other id is
"not found", as one that does not exist) and the CSV export (`casino.admin_csv`, built on the same
list) all keep to it. Rows that belong to no casino are hidden from a limited auditor unless their
admin says they carry nothing of one (`casino_paths = None`: the theoretical edges): the audit
log, seals, hash chains and idempotency records name tables and figures of every casino. Everyone
else (administrators, auditors of every casino) sees every row.

Staff accounts belong to no casino: a limited auditor sees the members of staff that the rows
they see name (`staff_within_limit`), and the admin's "view on site" redirect answers for a row
they do not see as for one that does not exist (`ScopedAdminSite`).
"""

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.contrib.contenttypes.views import shortcut
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db.models import Q, QuerySet
from django.http import Http404
from django.urls import path
from django.utils.translation import gettext as _

from tables.selectors import casino_limit


def within_limit(rows: QuerySet, user, casino_paths: tuple[str, ...] | None) -> QuerySet:
    """`rows` kept to the casino `user` is limited to: those reaching it by one of `casino_paths`
    (none if there is no path; all if the paths are None, rows that belong to no casino)."""
    return rows_of_casino(rows, casino_limit(user), casino_paths)


def rows_of_casino(rows: QuerySet, casino: int | None, casino_paths: tuple[str, ...] | None) -> QuerySet:
    """`within_limit` for a casino already looked up (None: no limit)."""
    if casino is None or casino_paths is None:
        return rows
    where = Q()
    for casino_path in casino_paths:
        where |= Q(**{casino_path: casino})
    return rows.filter(where) if casino_paths else rows.none()


class CasinoScoped:
    """A ModelAdmin whose rows a limited auditor sees only for their casino. `casino_paths`: the
    ORM paths from a row to its casino's id (a shift reaches it by its table or by its pit)."""

    casino_paths: tuple[str, ...] | None = ()

    def get_queryset(self, request):
        return within_limit(super().get_queryset(request), request.user, self.casino_paths)


def staff_within_limit(users: QuerySet, user, site: admin.AdminSite) -> QuerySet:
    """`users` kept, for an auditor limited to one casino, to the staff named by a row they see on
    `site`: whoever acted on the casino's records (a hand's dealer, a card's keyer, a fill's
    requester and approver, a transaction's maker), had a shift at its tables or pits (and who
    started and ended it), or is held to it (its other limited auditors). One query however many
    rows are listed: a union of each record's staff columns, each kept to the casino as its list
    is (PostgreSQL reads each record table's rows of the casino once; an admin page, not a poll)."""
    casino = casino_limit(user)
    if casino is None:
        return users
    named = [
        rows_of_casino(model._default_manager.order_by(), casino, paths).values(field.attname)
        for model, model_admin in site._registry.items()
        if (paths := getattr(model_admin, "casino_paths", ())) != ()
        for field in staff_fields(model)
    ]
    return users.filter(pk__in=named[0].union(*named[1:])) if named else users.none()


def staff_fields(model) -> list:
    """The columns of `model` that name a member of staff."""
    staff = get_user_model()
    return [
        field
        for field in model._meta.concrete_fields
        if field.is_relation and field.related_model is staff
    ]


class ScopedAdminSite(admin.AdminSite):
    """Django's admin site, but for its "view on site" redirect (`/admin/r/<type>/<id>/`): Django's
    looks any row up, so it would tell a limited auditor another casino's row (redirected, or
    "has no URL") from a missing one ("doesn't exist"). Installed as the default site
    (`casino.admin_apps`)."""

    def get_urls(self):
        urls = [url for url in super().get_urls() if getattr(url, "name", None) != "view_on_site"]
        on_site = self.admin_view(self.view_on_site)
        return [path("r/<path:content_type_id>/<path:object_id>/", on_site, name="view_on_site"), *urls]

    def view_on_site(self, request, content_type_id, object_id):
        """Django's redirect, for a row the user sees; any other is "doesn't exist", in the words
        Django uses for a missing row, so the answer is the same with DEBUG on."""
        if not self.shows(request, content_type_id, object_id):
            raise Http404(
                _("Content type %(ct_id)s object %(obj_id)s doesn’t exist")
                % {"ct_id": content_type_id, "obj_id": object_id}
            )
        return shortcut(request, content_type_id, object_id)

    def shows(self, request, content_type_id, object_id) -> bool:
        """Whether the row's page on this site would show it to the user: a limited auditor's
        model's admin keeps the rows of their casino; everyone else sees every row, as in Django."""
        if casino_limit(request.user) is None:
            return True
        try:
            model = ContentType.objects.get_for_id(content_type_id).model_class()
            model_admin = self._registry[model]
            if not model_admin.has_view_or_change_permission(request):
                return False
            return model_admin.get_queryset(request).filter(pk=object_id).exists()
        except (ObjectDoesNotExist, KeyError, ValueError, ValidationError):
            return False
