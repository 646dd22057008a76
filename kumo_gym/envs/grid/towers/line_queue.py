"""The work queue of the line-solving numba kernel of Towers (Pattern's writes it out): which rows and columns
still have to be solved again, each at most once in it.

A ring buffer ``queue`` of one more slot than there are lines and a flag per line ``inq``
(whether it is waiting). The helpers are inlined into each kernel (``inline="always"``), so a
kernel still compiles as one function. numba's on-disk cache of a kernel does not notice an edit
here: clear ``__pycache__`` (or touch the kernel) after changing this file.
"""
from ....solvers.native import kernel


@kernel(inner=True, inline="always", _nrt=False)
def start(queue, inq, nl):
    """Every line 0..nl-1 waiting, in order: ``(head, tail)``."""
    for li in range(nl):
        queue[li] = li
        inq[li] = 1
    return 0, nl


@kernel(inner=True, inline="always", _nrt=False)
def pop(queue, inq, head):
    """The next waiting line (``head != tail``): ``(line, new head)``."""
    li = queue[head]
    inq[li] = 0
    head += 1
    return li, 0 if head == len(queue) else head


@kernel(inner=True, inline="always", _nrt=False)
def push(queue, inq, tail, li):
    """Line ``li`` waiting (unless it already is): the new tail."""
    if inq[li]:
        return tail
    inq[li] = 1
    queue[tail] = li
    tail += 1
    return 0 if tail == len(queue) else tail
