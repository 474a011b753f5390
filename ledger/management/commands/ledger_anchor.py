"""`manage.py ledger_anchor [--dir DIR]`: write every chain's head to an anchor file."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from ledger.audit import anchor_write


class Command(BaseCommand):
    help = (
        "Write anchor-<UTC time>.json with every chain's name, length and head and one digest over "
        "them, and print its path. Keep the files outside the database; verify_ledger compares them."
    )

    def add_arguments(self, parser):
        parser.add_argument("--dir", type=Path, help="Directory for the file (default: LEDGER_ANCHOR_DIR).")

    def handle(self, *args, **options):
        path = anchor_write(directory=options["dir"] or Path(settings.LEDGER_ANCHOR_DIR))
        self.stdout.write(str(path))
