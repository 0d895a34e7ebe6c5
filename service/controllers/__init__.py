"""The HTTP handlers: each authenticates, calls one domain function, shapes the answer."""
