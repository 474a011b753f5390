"""The API token of a device account, such as a card-reading shoe.

A device is a staff account of its own (e.g. "shoe-rocket-1") in the Dealer group, with no
password (it never signs in to a page), and a token it sends as "Authorization: Token <key>".
Like any dealer it may act only at the table where it is on shift.

    manage.py device_token shoe-rocket-1 --create   # make the account, print its token
    manage.py device_token shoe-rocket-1            # print its token (a new one if it has none
                                                    # that works: expired or revoked, see casino.tokens)
    manage.py device_token shoe-rocket-1 --rotate   # a new token; the old one stops working
    manage.py device_token shoe-rocket-1 --table 3 --by pete   # and put it on shift at table 3 (pete
                                                               # on shift in its pit; a move is a rotation)
"""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from rest_framework.authtoken.models import Token

from casino.errors import DomainError
from casino.roles import DEALER
from casino.tokens import token_refusal
from tables.models import Table
from tables.selectors import open_shifts
from tables.services import shift_rotate, shift_start


class Command(BaseCommand):
    help = "Print (creating it if needed) the API token of a device account, e.g. a card-reading shoe."

    def add_arguments(self, parser):
        parser.add_argument("username", help='The device\'s account, e.g. "shoe-rocket-1".')
        parser.add_argument(
            "--create", action="store_true", help="Make the account (Dealer group, no password) if missing."
        )
        parser.add_argument("--rotate", action="store_true", help="Replace the token with a new one.")
        parser.add_argument("--table", type=int, help="Put the device on shift at this table (its id).")
        parser.add_argument("--by", help="With --table: the pit manager who puts it on shift.")

    def handle(
        self, *, username: str, create: bool, rotate: bool, table: int | None, by: str | None, **options
    ):
        if (table is None) != (by is None):
            raise CommandError("--table and --by go together: who puts the device on shift, and where.")
        with transaction.atomic():
            user = self._device(username, create)
            token = self._token(user, rotate)
            if table is not None:
                self._on_shift(user, self._table(table), self._pit_manager(by))
        self.stdout.write(token.key)

    def _on_shift(self, user, table: Table, by) -> None:
        """On shift at `table`: rotated there from the table it is at, if any (one table at a time)."""
        current = open_shifts(user).first()
        try:
            if current is None:
                shift_start(user=user, table=table, by=by)
            else:
                shift_rotate(shift=current, table=table, by=by)
        except DomainError as refusal:
            raise CommandError(refusal.message) from None

    def _token(self, user, rotate: bool) -> Token:
        if not user.is_active:
            raise CommandError(f"{user.get_username()!r} is deactivated: activate it to give it a token.")
        token = Token.objects.filter(user=user).first()
        if token is not None and (rotate or token_refusal(token)):
            token.delete()
            token = None
        return token or Token.objects.create(user=user)

    def _table(self, pk: int) -> Table:
        try:
            return Table.objects.get(pk=pk)
        except Table.DoesNotExist:
            raise CommandError(f"There is no table {pk}.") from None

    def _pit_manager(self, username: str):
        user = get_user_model().objects.filter(username=username).first()
        if user is None or not user.has_perm("tables.supervise_table"):
            raise CommandError(f"{username!r} is not a pit manager: only the pit puts a device on shift.")
        return user

    def _device(self, username: str, create: bool):
        users = get_user_model().objects
        user = users.filter(username=username).first()
        if user is not None:
            return user
        if not create:
            raise CommandError(f"There is no account {username!r}; add --create to make a device account.")
        user = users.create_user(username=username)  # no password: a device signs in with its token only
        user.groups.add(Group.objects.get(name=DEALER))
        return user
