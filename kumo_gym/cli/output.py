"""Where ``kumo-gym generate`` writes: all-or-nothing, resumable JSONL files."""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..core.errors import ConfigError


class JsonlOutput:
    """Where ``kumo-gym generate`` writes: all or nothing, resumable, and polite to what is there.

    Records go to ``OUT.partial`` (beside the real file when ``OUT`` is a symlink, which stays a
    symlink) and the finished file is renamed onto ``OUT``: a reader never sees half a file. The
    partial file is the run's own state, not a temporary: after Ctrl-C or a kill, the same command
    continues from the records it holds (a torn last line is dropped; the last kept record must be
    exactly what the command makes at that index, or it refuses). A new file gets the mode the
    umask allows (an existing one keeps its mode); a FIFO, a terminal or ``/dev/stdout`` is
    written in place, without resuming.
    """

    def __init__(self, path: str | os.PathLike):
        import stat

        self.given = Path(path)
        try:
            st = os.stat(self.given)  # follows a symlink
        except FileNotFoundError:
            st = None
        except OSError as e:
            raise ConfigError(f"cannot write {path}: {e.strerror or e}") from None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise ConfigError(f"--out {path} is a directory; give a file name")
        self.stream = st is not None and not stat.S_ISREG(st.st_mode)
        self.path = self.given if self.stream else Path(os.path.realpath(self.given))
        self.mode = None if st is None or self.stream else stat.S_IMODE(st.st_mode)
        self.partial = self.path.with_name(self.path.name + ".partial")
        self._file = None

    # -- resuming ------------------------------------------------------------------------------
    def kept(self) -> tuple[int, bytes | None]:
        """``(records already in OUT.partial, the last one)``; drops a torn last line."""
        if self.stream or not self.partial.exists():
            return 0, None
        with open(self.partial, "r+b") as f:
            count, last, end, prev = 0, None, 0, b""
            for line in f:
                if not line.endswith(b"\n"):
                    break
                count, end, prev = count + 1, end + len(line), line
            f.truncate(end)
            last = prev or None
        return count, last

    # -- writing -------------------------------------------------------------------------------
    def open(self, fresh: bool = False):
        """Open for writing: appending to what :meth:`kept` kept, or from scratch when ``fresh``."""
        try:
            if self.stream:
                self._file = open(self.given, "ab", buffering=0)  # noqa: SIM115 - closed by finish/abandon
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(self.partial, "wb" if fresh else "ab")  # noqa: SIM115 - closed by finish/abandon
        except OSError as e:
            raise ConfigError(f"cannot write {self.given}: {e.strerror or e}") from None
        return self

    def write(self, row: dict) -> None:
        self._file.write(json_line(row))
        self._file.flush()  # a kill loses at most the record being written

    def finish(self) -> None:
        """Close, and (for a file) move the finished partial file onto ``OUT``."""
        f, self._file = self._file, None
        if self.stream:
            f.close()
            return
        f.flush()
        os.fsync(f.fileno())
        f.close()
        if self.mode is not None:
            os.chmod(self.partial, self.mode)
        os.replace(self.partial, self.path)

    def abandon(self, keep: bool) -> None:
        """Close after a failure; the partial file stays only when ``keep`` (an interruption)."""
        f, self._file = self._file, None
        if f is not None:
            f.close()
        if not keep and not self.stream and self.partial.exists():
            self.partial.unlink()


def write_jsonl_atomic(path: str | os.PathLike, rows) -> int:
    """Write ``rows`` to ``path`` all at once (through :class:`JsonlOutput`, without resuming)."""
    out = JsonlOutput(path).open(fresh=True)
    n = 0
    try:
        for row in rows:
            out.write(row)
            n += 1
        out.finish()
    except BaseException:
        out.abandon(keep=False)
        raise
    return n


def json_line(row: dict) -> bytes:
    """One JSONL line: UTF-8, or ASCII escapes when the row holds text UTF-8 cannot encode."""
    try:
        return (json.dumps(row, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(row) + "\n").encode("ascii")
