"""Search and SAT: pure functions over arrays and plain data, no Gymnasium."""
