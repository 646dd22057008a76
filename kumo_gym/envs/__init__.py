"""Gymnasium environments and the rules of each family."""
