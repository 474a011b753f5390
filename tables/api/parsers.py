"""The API's JSON parser: DRF's, with a bound on how deeply a body may nest, and no key twice.

Python's JSON decoder recurses once per level of nesting; a body of a few thousand brackets raised
RecursionError, which DRF does not catch (a 500). Our requests nest two levels at most
(`{"bets": {"1": 20}}`), so a body nested deeper than MAX_DEPTH is refused as malformed JSON
(400) before any serializer walks it; so is one too deep for the decoder itself.

The decoder also keeps the last of two values under one key (`{"bets": {"1": 20, "1": 500}}` bet
500, `{"rank": 5, "rank": 7}` keyed a 7) without a word, the very ambiguity a bet keyed "01" is
refused for; a key written twice in one object is refused as malformed JSON too.
"""

import codecs

from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.utils import json

MAX_DEPTH = 16  # levels of arrays and objects; ours use 2, and a generous client a few more


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        """DRF's parse, with each object's keys checked as it is decoded (`unique_keys`)."""
        encoding = parsers.get_encoding(parser_context or {})
        try:
            return loads(codecs.getreader(encoding)(stream).read(), strict=self.strict)
        except ValueError as error:
            raise ParseError(f"JSON parse error - {error}") from error


def loads(text: str, *, strict: bool = True):
    """JSON text decoded as the API decodes a body (also a JSON value sent as a form's field): a key
    written twice, or nesting deeper than MAX_DEPTH, is a ValueError saying so, as malformed JSON is."""
    parse_constant = json.strict_constant if strict else None
    try:
        data = json.loads(text, parse_constant=parse_constant, object_pairs_hook=unique_keys)
        if depth(data) <= MAX_DEPTH:
            return data
    except RecursionError:  # deeper than the decoder goes: deeper than MAX_DEPTH too
        pass
    raise ValueError(f"the JSON nests more than {MAX_DEPTH} levels deep.")


def unique_keys(pairs: list[tuple]) -> dict:
    """One JSON object as a dict, refusing a key it holds twice (ValueError: a parse error)."""
    data = {}
    for key, value in pairs:
        if key in data:
            raise ValueError(f"the key {key!r} is written twice in one object.")
        data[key] = value
    return data


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
