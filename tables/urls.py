"""The dealer's tablet, under /tablet/."""

from django.urls import path

from . import views

app_name = "tablet"

urlpatterns = [
    path("", views.table_list, name="tables"),
    path("<int:table_id>/", views.table_page, name="table"),
    path("<int:table_id>/poll/", views.table_poll, name="table_poll"),
    path("<int:table_id>/seats/", views.seat_open_view, name="seat_open"),
    path("<int:table_id>/seats/<int:session_id>/buy/", views.seat_buy_view, name="seat_buy"),
    path("<int:table_id>/seats/<int:session_id>/leave/", views.seat_close_view, name="seat_close"),
    path("<int:table_id>/seats/<int:session_id>/rating/", views.slip_start_view, name="slip_start"),
    path("<int:table_id>/seats/<int:session_id>/rating/move/", views.slip_move_view, name="slip_move"),
    path("slips/<int:slip_id>/", views.slip_step_view, name="slip_step"),
    path("<int:table_id>/shoe/", views.shoe_start_view, name="shoe_start"),
    path("<int:table_id>/shoe/retire/", views.shoe_retire_view, name="shoe_retire"),
    path("<int:table_id>/hands/", views.hand_start_view, name="hand_start"),
    path(
        "<int:table_id>/requests/<int:request_id>/withdraw/",
        views.tray_request_withdraw_view,
        name="tray_request_withdraw",
    ),
    path("hands/<int:hand_id>/", views.hand_page, name="hand"),
    path("hands/<int:hand_id>/poll/", views.hand_poll, name="hand_poll"),
    path("hands/<int:hand_id>/card/", views.hand_card_view, name="hand_card"),
    path("hands/<int:hand_id>/decide/", views.hand_decide_view, name="hand_decide"),
    path("hands/<int:hand_id>/queue/", views.hand_queue_view, name="hand_queue"),
    path("hands/<int:hand_id>/settle/", views.hand_settle_view, name="hand_settle"),
    path("hands/<int:hand_id>/void/", views.hand_void_view, name="hand_void"),
    path("hands/<int:hand_id>/withdraw/", views.hand_withdraw_view, name="hand_withdraw"),
    path("hands/<int:hand_id>/correct-card/", views.hand_correct_card_view, name="hand_correct_card"),
]
