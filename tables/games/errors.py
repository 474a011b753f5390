"""The one error the engine raises for anything a dealer or a record got wrong."""


class IllegalAction(ValueError):
    """An action, a card or a setting the rules do not allow now.

    The message is a sentence a dealer understands, naming what was expected.
    The game's state is unchanged when it is raised.
    """
