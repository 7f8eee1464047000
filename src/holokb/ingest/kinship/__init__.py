"""Reading crowd-written family stories (CLUTRR): kinship statements with spans, pronouns resolved by
gender and salience, ambiguous readings kept as choices."""
from .reader import KinshipReader
from .story import Person, ReadChoice, StoryReading, Unnamed
from .text import sentences

__all__ = ["KinshipReader", "Person", "ReadChoice", "StoryReading", "Unnamed", "sentences"]
