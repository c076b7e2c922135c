"""The errors that mean the input is at fault, not the program.

Everything the Stadium refuses because of what it was given (a pack, a script, a saved
battle, a command-line option, a file to write) is a BadInput whose message is one line
naming the thing and the problem: the command line prints it and exits 2. Any other
exception is a bug in our code and shows its traceback.
"""


class BadInput(Exception):
    """Input that cannot be used; the message names it and says why."""


class BadOption(BadInput):
    """A command-line option, or options that conflict."""

    def __init__(self, option: str, problem: str):
        self.option = option
        super().__init__(f"{option}: {problem}")


class BadFile(BadInput):
    """A file given to read or to write: missing, not what it should be, or in the way."""

    def __init__(self, path, problem: str):
        self.path = str(path)
        super().__init__(f"{self.path}: {problem}")


class UnknownSpecies(BadInput, LookupError):
    """A species name that is neither a bundled species nor a .pack file."""
