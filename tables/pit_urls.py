"""The pit manager's and the auditor's screens, under /pit/."""

from django.urls import path

from tables.pit import cage, drop, players, rating, records, shifts
from tables.pit import views as pit

app_name = "pit"

urlpatterns = [
    path("", pit.floor_page, name="floor"),
    path("poll/", pit.floor_poll, name="poll"),
    path("tables/new/", pit.table_new, name="table_new"),
    path("tables/<int:table_id>/", pit.table_page, name="table"),
    path("tables/<int:table_id>/count/", pit.count_page, name="count_form"),
    path("tables/<int:table_id>/tray/", pit.tray_page, name="tray"),
    path("tables/<int:table_id>/settings/", pit.settings_page, name="settings"),
    path("tables/<int:table_id>/back-entry/", pit.back_entry_page, name="back_entry"),
    path("tables/<int:table_id>/seats/<int:session_id>/rating/", rating.slip_start_view, name="slip_start"),
    path(
        "tables/<int:table_id>/seats/<int:session_id>/rating/move/", rating.slip_move_view, name="slip_move"
    ),
    path(
        "tables/<int:table_id>/seats/<int:session_id>/identify/", players.identify_view, name="identify"
    ),
    path("rating-slips/<int:slip_id>/", rating.slip_page, name="rating_slip"),
    path("rating-slips/<int:slip_id>/step/", rating.slip_step_view, name="slip_step"),
    path("counts/<int:count_id>/", pit.count_result, name="count"),
    path("slip/<int:slip_id>/", pit.slip_page, name="slip"),
    path("approvals/", pit.approvals_page, name="approvals"),
    path("approvals/<int:request_id>/", pit.approval_decide_view, name="decide"),
    path("approvals/<int:request_id>/withdraw/", pit.approval_withdraw_view, name="withdraw"),
    path("hands/<int:hand_id>/", pit.hand_page, name="hand"),
    path("hands/<int:hand_id>/void/", pit.hand_void_view, name="hand_void"),
    path("slips/", pit.slips_this_year, name="slips_now"),
    path("slips/<int:year>/", pit.slips_page, name="slips"),
    path("ratings/", pit.ratings_page, name="ratings"),
    path("players/", players.players_page, name="players"),
    path("players/new/", players.player_new, name="player_new"),
    path("players/<int:player_id>/", players.player_page, name="player"),
    path("players/<int:player_id>/merge/", players.player_merge_view, name="player_merge"),
    path("players/<int:player_id>/comps/", players.comp_view, name="comp"),
    path("cash/", players.cash_page, name="cash"),
    path("cage/", cage.cage_page, name="cage"),
    path("shifts/", shifts.shifts_page, name="shifts"),
    path("shifts/<int:shift_id>/", records.shift_page, name="shift"),
    path("shoes/<int:shoe_id>/", records.shoe_page, name="shoe"),
    path("transactions/<uuid:transaction_id>/", records.transaction_page, name="transaction"),
    path("tables/<int:table_id>/shifts/", shifts.assign, name="shift_assign"),
    path("shifts/<int:shift_id>/rotate/", shifts.rotate, name="shift_rotate"),
    path("shifts/<int:shift_id>/break/", shifts.send_on_break, name="shift_break"),
    path("shifts/<int:shift_id>/end/", shifts.end, name="shift_end"),
    path("drop/", drop.drop_page, name="drop"),
    path("tables/<int:table_id>/drop/", drop.attach, name="drop_attach"),
    path("drop/<int:box_id>/remove/", drop.remove, name="drop_remove"),
    path("drop/<int:box_id>/deliver/", drop.deliver, name="drop_deliver"),
    path("drop/<int:box_id>/count/", drop.count, name="drop_count"),
    path("incidents/<int:incident_id>/acknowledge/", drop.acknowledge, name="acknowledge"),
]
