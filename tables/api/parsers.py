"""The API's JSON parser: DRF's, with a bound on how deeply a body may nest.

Python's JSON decoder recurses once per level of nesting; a body of a few thousand brackets raised
RecursionError, which DRF does not catch (a 500). Our requests nest two levels at most
(`{"bets": {"1": 20}}`), so a body nested deeper than MAX_DEPTH is refused as malformed JSON
(400) before any serializer walks it; so is one too deep for the decoder itself.
"""

from rest_framework import parsers
from rest_framework.exceptions import ParseError

MAX_DEPTH = 16  # levels of arrays and objects; ours use 2, and a generous client a few more


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
            if depth(data) <= MAX_DEPTH:
                return data
        except RecursionError:  # deeper than the decoder goes: deeper than MAX_DEPTH too
            pass
        raise ParseError(f"JSON parse error - the body nests more than {MAX_DEPTH} levels deep.")


def depth(data) -> int:
    """How many arrays and objects deep `data` nests (0 for a number or a string), without recursion:
    a recursive walk is what this guards against."""
    deepest, stack = 0, [(data, 0)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            deepest = max(deepest, level)
            continue
        deepest = max(deepest, level + 1)
        if level + 1 > MAX_DEPTH:
            break
        stack.extend((child, level + 1) for child in children)
    return deepest
