"""Foreign keys a unique constraint already indexes lose their own index, as in
tables/migrations/0025_redundant_fk_indexes.py (which says why by name)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('ledger', '0005_casino_accounts_uncached'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='seal',
                    name='chain',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='ledger.chain'),
                ),
                migrations.AlterField(
                    model_name='transaction',
                    name='chain',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='ledger.chain'),
                ),
                migrations.AlterField(
                    model_name='transaction',
                    name='reverses',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='reversed_by', to='ledger.transaction'),
                ),
            ],
            database_operations=[
                migrations.RunSQL("DROP INDEX ledger_seal_chain_id_842c1e20", "CREATE INDEX ledger_seal_chain_id_842c1e20 ON ledger_seal (chain_id)"),
                migrations.RunSQL("DROP INDEX ledger_transaction_chain_id_eeb67a34", "CREATE INDEX ledger_transaction_chain_id_eeb67a34 ON ledger_transaction (chain_id)"),
                migrations.RunSQL("DROP INDEX ledger_transaction_reverses_id_f312c56d", "CREATE INDEX ledger_transaction_reverses_id_f312c56d ON ledger_transaction (reverses_id)"),
            ],
        ),
    ]
