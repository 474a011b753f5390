"""Routes of the table operations; `casino.api_urls` mounts them under /api/."""

from rest_framework.routers import SimpleRouter

from . import drop, rating_slips, shifts, views

router = SimpleRouter(use_regex_path=False)
router.register("tables", views.TableViewSet, basename="table")
router.register("seat-sessions", views.SeatSessionViewSet, basename="seat-session")
router.register("shoes", views.ShoeViewSet, basename="shoe")
router.register("hands", views.HandViewSet, basename="hand")
router.register("approvals", views.ApprovalViewSet, basename="approval")
router.register("shifts", shifts.ShiftViewSet, basename="shift")
router.register("drop-boxes", drop.DropBoxViewSet, basename="drop-box")
router.register("incidents", drop.IncidentViewSet, basename="incident")
router.register("rating-slips", rating_slips.RatingSlipViewSet, basename="rating-slip")

urlpatterns = router.urls
