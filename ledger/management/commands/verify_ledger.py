"""`manage.py verify_ledger [--anchor FILE | --anchor-dir DIR]`: prove the ledger was not altered."""

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from ledger.audit import anchor_latest, anchor_load, ledger_verify


class Command(BaseCommand):
    help = (
        "Walk every hash chain to its end (records of every chained model, in position order) and "
        "name every changed, removed or inserted record; compare every sealed record (slips, approval "
        "requests, table counts, signatures) with its latest seal; check cached balances and chain "
        "heads, every transaction's sum and the database protection, and compare with an anchor file "
        "(the newest in LEDGER_ANCHOR_DIR unless told). Prints each finding and exits non-zero on "
        "any; prints one summary line when clean."
    )

    def add_arguments(self, parser):
        group = parser.add_mutually_exclusive_group()
        group.add_argument("--anchor", type=Path, help="The anchor file to compare with.")
        group.add_argument("--anchor-dir", type=Path, help="Compare with the newest anchor file here.")

    def handle(self, *args, **options):
        path = options["anchor"] or anchor_latest(options["anchor_dir"] or Path(settings.LEDGER_ANCHOR_DIR))
        if options["anchor_dir"] and path is None:
            raise CommandError(f"No anchor file in {options['anchor_dir']}.")
        try:
            anchor = anchor_load(path) if path is not None else None
        except ValueError as error:
            raise CommandError(str(error)) from error
        result = ledger_verify(anchor=anchor)
        for finding in result.findings:
            self.stdout.write(str(finding))
        if not result.clean:
            raise CommandError(f"The ledger does not verify: {len(result.findings)} finding(s).")
        compared = f"matches anchor {path.name}" if path is not None else "no anchor file to compare with"
        self.stdout.write(
            f"Ledger verified: {result.chains} chains, {result.records} records, "
            f"{result.transactions} transactions, {result.accounts} accounts; {compared}."
        )
