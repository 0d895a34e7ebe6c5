"""The HTTP API v1 of Poison on Litestar, and the `poison` command that serves it.

`app.create_app(settings)` builds the application; `controllers` hold the thin handlers;
`schemas` the request and response Structs; `views` turn a logged game into what a caller
may see; `problems` map every domain error to its problem+json response. Only this
package knows HTTP.
"""
