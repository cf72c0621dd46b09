"""The one error type the command line turns into a one-line message and exit status 2."""

from __future__ import annotations


class InputError(Exception):
    """Bad input or usage: the message is one line, specific, and says what was expected.

    Raised anywhere from loading to writing; the CLI prints ``releasegate: error: <message>`` on stderr
    and exits with status 2 without writing any output file.
    """

    def __init__(self, message: str) -> None:
        # One line only: a multi-line message would break the "one line per problem" promise on stderr,
        # and a value from the input must not start a line of a CI log (see releasegate.text).
        from releasegate.text import one_line

        super().__init__(one_line(message))
