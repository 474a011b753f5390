"""Every write at a table, as plain functions named `<entity>_<verb>`."""

from .approvals import approval_decide, approval_withdraw, correction_request, hand_void_request
from .card_corrections import hand_correct_card
from .counts import table_count, table_is_open
from .drop import drop_box_attach, drop_box_count, drop_box_deliver, drop_box_remove
from .hands import (
    HandError,
    RankRefused,
    hand_decide,
    hand_record_card,
    hand_settle,
    hand_settle_and_continue,
    hand_start,
    table_record_card,
)
from .incidents import incident_acknowledge
from .seating import SeatError, seat_buy_in, seat_close, seat_open
from .settings import SettingsError, pit_create, table_create, table_settings_change
from .shifts import ShiftError, shift_end, shift_rotate, shift_start
from .shoes import ShoeError, shoe_retire, shoe_start
from .slips import SignatureGiven, SignatureRefused, slip_void, slips_report
from .tray import TrayError, credit_request, fill_request, tray_credit, tray_fill

__all__ = [
    "SignatureGiven",
    "SignatureRefused",
    "correction_request",
    "credit_request",
    "fill_request",
    "slip_void",
    "slips_report",
    "table_count",
    "table_is_open",
    "drop_box_attach",
    "drop_box_count",
    "drop_box_deliver",
    "drop_box_remove",
    "incident_acknowledge",
    "HandError",
    "RankRefused",
    "approval_decide",
    "approval_withdraw",
    "hand_void_request",
    "SettingsError",
    "pit_create",
    "table_create",
    "table_settings_change",
    "ShiftError",
    "shift_end",
    "shift_rotate",
    "shift_start",
    "SeatError",
    "ShoeError",
    "TrayError",
    "hand_correct_card",
    "hand_decide",
    "hand_record_card",
    "hand_settle",
    "hand_settle_and_continue",
    "hand_start",
    "table_record_card",
    "seat_buy_in",
    "seat_close",
    "seat_open",
    "shoe_retire",
    "shoe_start",
    "tray_credit",
    "tray_fill",
]
