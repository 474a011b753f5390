from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from casino.demo import seed_demo


class Command(BaseCommand):
    help = "Create the demo casino, its tables and one user per role, and print the logins."

    def add_arguments(self, parser):
        parser.add_argument(
            "--force", action="store_true", help="Seed even with DEBUG off (the demo passwords are public)."
        )

    def handle(self, *args, force=False, **options):
        if not settings.DEBUG and not force:
            raise CommandError(
                "Refusing to create demo users with published passwords while DEBUG is off; "
                "pass --force if this really is a demo machine."
            )
        logins = seed_demo()
        self.stdout.write(self.style.SUCCESS("Demo floor ready at http://127.0.0.1:8000/ - logins:"))
        for username, role, password in logins:
            self.stdout.write(f"  {role:<12} {username:<6} password: {password}")
