"""The hold chart as server-side SVG: no script, nothing from elsewhere, so it passes a strict CSP.

Hold over time against the theoretical edge: the shaded band is the theoretical with its 95%
interval for the handle played so far (it narrows as hands accumulate), the line through it the
theoretical, the dark line the cumulative hold, the dots each day's own hold. Colours are SVG
presentation attributes, not `style` attributes, which a CSP without 'unsafe-inline' would block.
"""

from __future__ import annotations

from django.utils.html import escape

WIDTH, HEIGHT = 760, 340
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 44  # margins for the axes' labels
TICKS = 5
BAND, THEORY, HOLD, DAY = "#cfe8d8", "#0b5d3b", "#1b1b1b", "#b00020"


def _scale(lo: float, hi: float, size: int, flip: bool):
    span = (hi - lo) or 1.0

    def at(value: float) -> float:
        share = (value - lo) / span
        return round((1 - share if flip else share) * size, 1)

    return at


def _y_range(series: list[dict]) -> tuple[float, float]:
    """From the band and the cumulative hold; a wild day's dot is clipped rather than squashing all."""
    values = [v for p in series for v in (*p["band"], p["cumulative_hold"], p["theoretical"])]
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.1 or 0.01
    return lo - pad, hi + pad


def hold_chart_svg(series: list[dict], title: str = "Hold against the theoretical edge") -> str:
    """The chart of a house-edge report's daily series (see `house_edge.daily_series`)."""
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>'
    )
    if not series:
        return (
            head
            + f'<text x="{WIDTH // 2}" y="{HEIGHT // 2}" text-anchor="middle">No Rocket hands</text></svg>'
        )
    lo, hi = _y_range(series)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    y = _scale(lo, hi, plot_h, flip=True)
    x = _scale(0, max(len(series) - 1, 1), plot_w, flip=False)
    points = [(x(i) if len(series) > 1 else plot_w / 2, p) for i, p in enumerate(series)]
    upper = " ".join(f"{px},{y(p['band'][1])}" for px, p in points)
    lower = " ".join(f"{px},{y(p['band'][0])}" for px, p in reversed(points))
    parts = [head, f'<g transform="translate({LEFT},{TOP})">', *_axes(lo, hi, y, plot_w, plot_h, series)]
    parts.append(f'<polygon points="{upper} {lower}" fill="{BAND}"><title>95% band</title></polygon>')
    parts.append(_line(points, y, "theoretical", THEORY, dashed=True))
    parts.append(_line(points, y, "cumulative_hold", HOLD))
    for px, p in points:
        if p["hold"] is not None and lo <= p["hold"] <= hi:
            label = f"{p['day']}: hold {100 * p['hold']:.2f}% over {p['hands']} hands"
            parts.append(
                f'<circle cx="{px}" cy="{y(p["hold"])}" r="3" fill="{DAY}"><title>{label}</title></circle>'
            )
    parts.append("</g>" + _legend() + "</svg>")
    return "".join(parts)


def _line(points, y, field: str, colour: str, dashed: bool = False) -> str:
    coords = " ".join(f"{px},{y(p[field])}" for px, p in points)
    dash = ' stroke-dasharray="6 4"' if dashed else ""
    return f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>'


def _axes(lo, hi, y, plot_w: int, plot_h: int, series: list[dict]) -> list[str]:
    parts = [
        f'<line x1="0" y1="{plot_h}" x2="{plot_w}" y2="{plot_h}" stroke="#888"/>',
        f'<line x1="0" y1="0" x2="0" y2="{plot_h}" stroke="#888"/>',
    ]
    for i in range(TICKS + 1):
        value = lo + (hi - lo) * i / TICKS
        parts.append(
            f'<text x="-8" y="{y(value) + 4}" text-anchor="end" font-size="12">{100 * value:.2f}%</text>'
        )
        parts.append(f'<line x1="0" y1="{y(value)}" x2="{plot_w}" y2="{y(value)}" stroke="#eee"/>')
    parts.append(f'<text x="0" y="{plot_h + 18}" font-size="12">{escape(series[0]["day"])}</text>')
    parts.append(
        f'<text x="{plot_w}" y="{plot_h + 18}" text-anchor="end" font-size="12">'
        f"{escape(series[-1]['day'])}</text>"
    )
    return parts


def _legend() -> str:
    y = HEIGHT - 8
    items = [(BAND, "95% band"), (THEORY, "theoretical"), (HOLD, "cumulative hold"), (DAY, "day's hold")]
    parts, x = [], LEFT
    for colour, label in items:
        parts.append(
            f'<rect x="{x}" y="{y - 10}" width="12" height="12" fill="{colour}"/>'
            f'<text x="{x + 16}" y="{y}" font-size="12">{label}</text>'
        )
        x += 24 + 8 * len(label)
    return "".join(parts)
