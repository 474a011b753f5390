"""Chips brought to a seat: a transaction kind of its own (choices only: no column changes)."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('ledger', '0007_account_update_only'),
    ]

    operations = [
        migrations.AlterField(
            model_name='transaction',
            name='kind',
            field=models.CharField(choices=[('opening', 'Opening count (cage to tray)'), ('buy_in', 'Buy-in'), ('bet', 'Bet'), ('ante', 'Ante'), ('settlement', 'Settlement'), ('cash_out', 'Cash-out'), ('chips_in', 'Chips brought to a seat'), ('fill', 'Fill (cage to tray)'), ('credit', 'Credit (tray to cage)'), ('drop_count', 'Drop box to the count room'), ('correction', 'Correction'), ('closing', 'Closing count (tray to cage)'), ('time_charge', 'Time charge (seat to rake)')], max_length=20),
        ),
    ]
