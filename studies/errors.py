"""The one error type of the studies app."""


class StudyError(Exception):
    """A refused change; the message says what to do instead."""
