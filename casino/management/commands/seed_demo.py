from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from casino.demo import DEMO_CASINO, seed_demo
from reports.demo import compute_demo_figures
from tables.models import Casino


class Command(BaseCommand):
    help = "Create the demo casino, its tables and one user per role, and print the logins."

    def add_arguments(self, parser):
        parser.add_argument(
            "--force", action="store_true", help="Seed even with DEBUG off (the demo passwords are public)."
        )
        parser.add_argument(
            "--figures",
            action="store_true",
            help="Compute the demo tables' par sheets and theoretical edges now (make run does), so "
            "no first report or par sheet page waits for them.",
        )

    def handle(self, *args, force=False, figures=False, **options):
        if not settings.DEBUG and not force:
            raise CommandError(
                "Refusing to create demo users with published passwords while DEBUG is off; "
                "pass --force if this really is a demo machine."
            )
        logins = seed_demo()
        if figures:
            self.compute_figures()
        self.stdout.write(self.style.SUCCESS("Demo floor ready at http://127.0.0.1:8000/ - logins:"))
        for username, role, password in logins:
            self.stdout.write(f"  {role:<12} {username:<6} password: {password}")

    def compute_figures(self):
        casino = Casino.objects.get(name=DEMO_CASINO)
        for table, seconds in compute_demo_figures(casino):
            self.stdout.write(f"  par sheet of {table}: {seconds:.1f} s")
