"""A casino's rules (`tables.PlayerRules`, `reports.CountRules`, `reports.VarianceRules`): the cash
reporting thresholds, the count thresholds and the variance rules that decide what is logged,
reported and investigated. Written and removed only here (the admin, the demo, the load floor), each
write sealed in the casino's chain in the same transaction (`ledger.seals`), so that a threshold
edited, a rules row removed or one inserted in the database is named by `verify_ledger`. Removing a
casino's rules puts the defaults back; the removal is sealed too (`REMOVED`), so it is told apart
from a row deleted outside the app. Nothing here is on a table's hot path: a buy-in only reads the
rules.
"""

from django.db import transaction

from ledger.models import REMOVED
from ledger.seals import seal
from tables.models import Casino


def rules_save(rules) -> None:
    """Save `rules` (new or changed) and seal them in their casino's chain."""
    event = "created" if rules._state.adding else "changed"
    with transaction.atomic():
        rules.save()
        seal(rules, casino=Casino(pk=rules.casino_id), event=event)


def rules_remove(rules) -> None:
    """Remove `rules` (the defaults hold again), sealing the figures they had as they go."""
    with transaction.atomic():
        seal(rules, casino=Casino(pk=rules.casino_id), event=REMOVED)
        rules.delete()
