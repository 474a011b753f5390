"""Figures as a report shows them: percentages, signed numbers, blanks for "not applicable"."""

from django import template

register = template.Library()


@register.filter
def percent(value, places: int = 2) -> str:
    """0.0341 -> "3.41%"; None -> "–"."""
    if value is None or value == "":
        return "–"
    return f"{100 * float(value):.{int(places)}f}%"


@register.filter
def number(value, places: int = 0) -> str:
    """A figure with thousands separators; None -> "–"."""
    if value is None or value == "":
        return "–"
    return f"{float(value):,.{int(places)}f}"


@register.filter
def lookup(mapping, key):
    """mapping[key] in a template."""
    return (mapping or {}).get(key)
