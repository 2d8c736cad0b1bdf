"""The design model: objects, identities, the file format and validation. No Qt here."""

from . import objects
from .codec import FormatError
from .document import Change, Document
from .fileformat import TopologyFileError, dumps, load, loads, save
from .index import Index
from .objects import *  # noqa: F403 - the model's vocabulary, listed in objects.__all__

__all__ = ["Change", "Document", "FormatError", "Index", "TopologyFileError", "dumps", "load", "loads", "save",
           *objects.__all__]
