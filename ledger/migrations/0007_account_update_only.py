"""A ledger account keeps its rows and all but its balance: found trying the audit, an account's
kind or table changed by the app's own role moved every figure read from it (a drop box's kind
set to a player's took the table's expected drop to 0) and `verify_ledger` still passed."""

from django.db import migrations

import ledger.db


class Migration(migrations.Migration):

    dependencies = [
        ("ledger", "0006_redundant_fk_indexes"),
    ]

    operations = [
        ledger.db.UpdateOnly("Account", ["balance"]),
    ]
