"""The errors of bad input or usage: one base type the command line turns into one line and exit status 2, and
one subclass per kind of problem, each with a stable ``code`` (docs/input-errors.md lists them).

The command line prints ``releasegate: error[<code>]: <message>``; the GitHub action carries the code in its
``error-code`` output; a notebook catches the kind it can handle (``except releasegate.errors.PairingError``).
"""

from __future__ import annotations


class InputError(Exception):
    """Bad input or usage: the message is one line, specific, and says what was expected.

    Raised anywhere from loading to writing; the CLI prints ``releasegate: error[<code>]: <message>`` on stderr
    and exits with status 2 without writing any output file. Raised as itself only where no kind below fits.
    """

    code = "input"

    def __init__(self, message: str) -> None:
        # One line only: a multi-line message would break the "one line per problem" promise on stderr,
        # and a value from the input must not start a line of a CI log (see releasegate.text).
        from releasegate.text import one_line

        super().__init__(one_line(message))


class FileError(InputError):
    """A file cannot be read as what it was named for: missing, not a regular file, too large, empty,
    unreadable, of an unknown format or malformed."""

    code = "file"


class ColumnError(InputError):
    """A column is missing, named twice, or named by an option or the policy but in none of the files."""

    code = "column"


class BadValueError(InputError):
    """A value in the results cannot be read: an outcome that is not pass/fail or a number, a missing outcome,
    a blank or duplicated key, a score out of its range."""

    code = "value"


class PolicyError(InputError):
    """A policy key or flag is unknown, of the wrong type, or out of its range."""

    code = "policy"


class PairingError(InputError):
    """What would be compared is not one case with itself: the case sets differ, a case's content changed
    between releases, or ids that are dataset positions cannot be paired by content."""

    code = "pairing"


class IncompleteRunsError(PairingError):
    """A case has fewer runs on one side than the run axis shows elsewhere: the missing runs would be dropped
    unseen."""

    code = "runs"


class StoreError(InputError):
    """A `releasegate run` store cannot be read as the gate's input: holes, a damaged or edited record."""

    code = "store"


class RunConfigError(InputError):
    """A `releasegate run` configuration is invalid: a key, a system, a metric or a file it names."""

    code = "run-config"


class OutputError(InputError):
    """An output cannot be written where asked: its folder is missing or read-only, or it is an input."""

    code = "output"


# Every kind, for the documentation and the tests: code -> class.
KINDS: dict[str, type[InputError]] = {cls.code: cls for cls in (
    InputError, FileError, ColumnError, BadValueError, PolicyError, PairingError, IncompleteRunsError, StoreError,
    RunConfigError, OutputError)}

__all__ = ["KINDS", "BadValueError", "ColumnError", "FileError", "IncompleteRunsError", "InputError", "OutputError",
           "PairingError", "PolicyError", "RunConfigError", "StoreError"]
