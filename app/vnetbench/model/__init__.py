"""The design model: objects, identities, the file format and validation. No Qt here."""

from .codec import FormatError
from .document import Change, Document
from .fileformat import TopologyFileError, dumps, load, loads, save
from .index import Index
from .objects import *  # noqa: F403 - the model vocabulary is its API
