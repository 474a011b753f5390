"""Every write at a table, as plain functions named `<entity>_<verb>`."""

from .hands import HandError, hand_decide, hand_record_card, hand_settle, hand_start
from .seating import SeatError, seat_buy_in, seat_close, seat_open
from .shoes import ShoeError, shoe_retire, shoe_start
from .tray import TrayError, tray_credit, tray_fill

__all__ = [
    "HandError",
    "SeatError",
    "ShoeError",
    "TrayError",
    "hand_decide",
    "hand_record_card",
    "hand_settle",
    "hand_start",
    "seat_buy_in",
    "seat_close",
    "seat_open",
    "shoe_retire",
    "shoe_start",
    "tray_credit",
    "tray_fill",
]
