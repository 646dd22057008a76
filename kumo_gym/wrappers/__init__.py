"""Wrappers: the chat interface, trace logging, and the structured (SB3) view."""
from .chat import ChatEnv
from .structured import StructuredWrapper
from .trace import TraceWrapper, TraceWriter, read_traces

__all__ = ["ChatEnv", "StructuredWrapper", "TraceWrapper", "TraceWriter", "read_traces"]
