"""Foreign keys that a unique constraint already indexes (its first column) lose their own index: every
row written updated both, for no lookup's sake (docs/performance.md, "Issue 17, session 20";
tests/test_indexes.py).

Only the indexes are dropped, by name (the same on PostgreSQL and SQLite): Django would alter each
field on SQLite by rebuilding its table, which drops the append-only triggers (ledger.db)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('ledger', '0006_redundant_fk_indexes'),
        ('tables', '0024_points_game_tables'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name='cardcorrection',
                    name='chain',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='ledger.chain'),
                ),
                migrations.AlterField(
                    model_name='cardcorrection',
                    name='hand',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='card_corrections', to='tables.hand'),
                ),
                migrations.AlterField(
                    model_name='cardevent',
                    name='chain',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='ledger.chain'),
                ),
                migrations.AlterField(
                    model_name='cardevent',
                    name='hand',
                    field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='cards', to='tables.hand'),
                ),
                migrations.AlterField(
                    model_name='cardevent',
                    name='shoe',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='cards', to='tables.shoe'),
                ),
                migrations.AlterField(
                    model_name='decision',
                    name='chain',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='ledger.chain'),
                ),
                migrations.AlterField(
                    model_name='decision',
                    name='hand',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='decisions', to='tables.hand'),
                ),
                migrations.AlterField(
                    model_name='dropbox',
                    name='table',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='drop_boxes', to='tables.table'),
                ),
                migrations.AlterField(
                    model_name='dropcount',
                    name='box',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='counts', to='tables.dropbox'),
                ),
                migrations.AlterField(
                    model_name='dropcustody',
                    name='box',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='custody', to='tables.dropbox'),
                ),
                migrations.AlterField(
                    model_name='hand',
                    name='table',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='hands', to='tables.table'),
                ),
                migrations.AlterField(
                    model_name='heldqueue',
                    name='by',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL),
                ),
                migrations.AlterField(
                    model_name='idempotentrequest',
                    name='user',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL),
                ),
                migrations.AlterField(
                    model_name='pit',
                    name='casino',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='pits', to='tables.casino'),
                ),
                migrations.AlterField(
                    model_name='recycle',
                    name='chain',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='ledger.chain'),
                ),
                migrations.AlterField(
                    model_name='recycle',
                    name='hand',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='recycles', to='tables.hand'),
                ),
                migrations.AlterField(
                    model_name='recycle',
                    name='shoe',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='recycles', to='tables.shoe'),
                ),
                migrations.AlterField(
                    model_name='seat',
                    name='table',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='seats', to='tables.table'),
                ),
                migrations.AlterField(
                    model_name='signature',
                    name='slip',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='signatures', to='tables.slip'),
                ),
                migrations.AlterField(
                    model_name='slip',
                    name='table',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='slips', to='tables.table'),
                ),
                migrations.AlterField(
                    model_name='table',
                    name='pit',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='tables', to='tables.pit'),
                ),
                migrations.AlterField(
                    model_name='timecharge',
                    name='session',
                    field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='time_charges', to='tables.seatsession'),
                ),
            ],
            database_operations=[
                migrations.RunSQL("DROP INDEX tables_cardcorrection_chain_id_b8e5f7e8", "CREATE INDEX tables_cardcorrection_chain_id_b8e5f7e8 ON tables_cardcorrection (chain_id)"),
                migrations.RunSQL("DROP INDEX tables_cardcorrection_hand_id_99bdf9f7", "CREATE INDEX tables_cardcorrection_hand_id_99bdf9f7 ON tables_cardcorrection (hand_id)"),
                migrations.RunSQL("DROP INDEX tables_cardevent_chain_id_9390e8cb", "CREATE INDEX tables_cardevent_chain_id_9390e8cb ON tables_cardevent (chain_id)"),
                migrations.RunSQL("DROP INDEX tables_cardevent_hand_id_cb16c7d6", "CREATE INDEX tables_cardevent_hand_id_cb16c7d6 ON tables_cardevent (hand_id)"),
                migrations.RunSQL("DROP INDEX tables_cardevent_shoe_id_503f5836", "CREATE INDEX tables_cardevent_shoe_id_503f5836 ON tables_cardevent (shoe_id)"),
                migrations.RunSQL("DROP INDEX tables_decision_chain_id_dc685174", "CREATE INDEX tables_decision_chain_id_dc685174 ON tables_decision (chain_id)"),
                migrations.RunSQL("DROP INDEX tables_decision_hand_id_24552ae5", "CREATE INDEX tables_decision_hand_id_24552ae5 ON tables_decision (hand_id)"),
                migrations.RunSQL("DROP INDEX tables_dropbox_table_id_e9507d73", "CREATE INDEX tables_dropbox_table_id_e9507d73 ON tables_dropbox (table_id)"),
                migrations.RunSQL("DROP INDEX tables_dropcount_box_id_32b59b60", "CREATE INDEX tables_dropcount_box_id_32b59b60 ON tables_dropcount (box_id)"),
                migrations.RunSQL("DROP INDEX tables_dropcustody_box_id_d1863bf5", "CREATE INDEX tables_dropcustody_box_id_d1863bf5 ON tables_dropcustody (box_id)"),
                migrations.RunSQL("DROP INDEX tables_hand_table_id_4f37350b", "CREATE INDEX tables_hand_table_id_4f37350b ON tables_hand (table_id)"),
                migrations.RunSQL("DROP INDEX tables_heldqueue_by_id_0e27965c", "CREATE INDEX tables_heldqueue_by_id_0e27965c ON tables_heldqueue (by_id)"),
                migrations.RunSQL("DROP INDEX tables_idempotentrequest_user_id_dcfe575e", "CREATE INDEX tables_idempotentrequest_user_id_dcfe575e ON tables_idempotentrequest (user_id)"),
                migrations.RunSQL("DROP INDEX tables_pit_casino_id_d55c737a", "CREATE INDEX tables_pit_casino_id_d55c737a ON tables_pit (casino_id)"),
                migrations.RunSQL("DROP INDEX tables_recycle_chain_id_a3af9614", "CREATE INDEX tables_recycle_chain_id_a3af9614 ON tables_recycle (chain_id)"),
                migrations.RunSQL("DROP INDEX tables_recycle_hand_id_d83c7181", "CREATE INDEX tables_recycle_hand_id_d83c7181 ON tables_recycle (hand_id)"),
                migrations.RunSQL("DROP INDEX tables_recycle_shoe_id_7e4d811c", "CREATE INDEX tables_recycle_shoe_id_7e4d811c ON tables_recycle (shoe_id)"),
                migrations.RunSQL("DROP INDEX tables_seat_table_id_67aaffa1", "CREATE INDEX tables_seat_table_id_67aaffa1 ON tables_seat (table_id)"),
                migrations.RunSQL("DROP INDEX tables_signature_slip_id_e70ced7d", "CREATE INDEX tables_signature_slip_id_e70ced7d ON tables_signature (slip_id)"),
                migrations.RunSQL("DROP INDEX tables_slip_table_id_51dde155", "CREATE INDEX tables_slip_table_id_51dde155 ON tables_slip (table_id)"),
                migrations.RunSQL("DROP INDEX tables_table_pit_id_37194b0e", "CREATE INDEX tables_table_pit_id_37194b0e ON tables_table (pit_id)"),
                migrations.RunSQL("DROP INDEX tables_timecharge_session_id_e548b49a", "CREATE INDEX tables_timecharge_session_id_e548b49a ON tables_timecharge (session_id)"),
            ],
        ),
        # found by the indexes' change: the custody steps were read in the order an index gave them
        migrations.AlterModelOptions(
            name='dropcustody',
            options={'ordering': ['pk']},
        ),
    ]
