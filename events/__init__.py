"""Every game of Poison as an append-only log of events, stored in Redis.

`schema` defines the events and their codecs, `play` turns moves into events through the
core, `replay` rebuilds (and validates) a game from its events, `store` keeps the logs in
Redis Streams, `server` runs an embedded Redis-compatible server. `events` imports only
`core` of the product.
"""
